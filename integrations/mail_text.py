"""What is the same about mail on every app: addresses, quoted text, HTML bodies, outgoing MIME, attachments' text.

- `address_list`, `plain_address`, `person`, `people_on`: headers -> addresses, and everyone on a thread but the
  owner, each once, as "Dana Whitfield <dana@juniperdental.test>".
- `strip_quoted(text)`: a message without the earlier messages it quotes ("On … wrote:", "-----Original
  Message-----", Outlook's From/Sent block, "> " lines), signatures kept (they give names, roles and phones).
- `html_to_text(html)`: an HTML body as plain text, blockquotes marked "> " so strip_quoted drops them.
- `mime_message(mail, sender=…)`: an OutgoingMail as an RFC 5322 message (Gmail's `raw`, the local copy).
- `attachment_content(data)`: an attachment read like a file (integrations.files.content): text or an image.
"""

from __future__ import annotations

import base64
import re
from email.message import EmailMessage
from email.utils import formataddr, formatdate, getaddresses, make_msgid
from html.parser import HTMLParser
from typing import Any

from integrations.files.content import extract
from integrations.models import Connection
from integrations.providers.base import FileData, OutgoingMail

MAX_ATTACHMENTS = 25 * 1024 * 1024  # "25 MB in all"


# --- addresses ------------------------------------------------------------------------------------------------


def address_list(values) -> list[tuple[str, str]]:
    """[(name, address)] from header values ("Dana <dana@x.test>, rosa@y.test"); address lower case."""
    if isinstance(values, str):
        values = [values]
    found = []
    for name, address in getaddresses([v for v in values or [] if v]):
        address = address.strip().lower()
        if "@" in address:
            found.append((name.strip().strip('"'), address))
    return found


def plain_address(value: str) -> str:
    """The address in "Dana <dana@x.test>", lower case; the value itself when it holds none."""
    found = address_list(value)
    return found[0][1] if found else value.strip().lower()


def person(name: str, address: str) -> str:
    return formataddr((name, address)) if name and name.lower() != address else address


def people_on(headers: list[tuple[str, list[str]]], owner: set[str]) -> list[str]:
    """Everyone on these messages ([(sender, [to…, cc…])]) but the owner, each once, in order of appearance; the
    first name given for an address is kept."""
    seen: dict[str, str] = {}
    for sender, others in headers:
        for name, address in address_list([sender, *others]):
            if address in owner:
                continue
            if address not in seen or (name and seen[address] == address):
                seen[address] = person(name, address)
    return list(seen.values())


def new_message_id(account: str) -> str:
    domain = account.rsplit("@", 1)[-1] if "@" in account else "roadstar.local"
    return make_msgid(idstring="roadstar", domain=domain)


# --- quoted text ----------------------------------------------------------------------------------------------

_REPLY_HEADER = re.compile(
    r"^\s*(On\s.+\b(wrote|writes)\s?:|Le\s.+a\s+écrit\s?:|Am\s.+schrieb.*:|El\s.+escribió\s?:|"
    r"Il giorno.+ha scritto\s?:|Op\s.+schreef.*:)\s*$",
    re.IGNORECASE,
)
_ORIGINAL = re.compile(
    r"^\s*-{2,}\s*(Original Message|Reply Message|Ursprüngliche Nachricht|Message d'origine|Mensaje original)"
    r"\s*-{2,}\s*$",
    re.IGNORECASE,
)
_FORWARDED = re.compile(r"^\s*-{2,}\s*Forwarded message\s*-{2,}\s*$|^\s*Begin forwarded message:\s*$", re.I)
_HEADER_FROM = re.compile(r"^\s*\*?(From|De|Von)\s?:\*?\s+\S", re.IGNORECASE)
_HEADER_NEXT = re.compile(r"^\s*\*?(Sent|Date|Envoyé|Gesendet|To|Subject|Objet|Betreff)\s?:", re.IGNORECASE)


def _cut_at(lines: list[str]) -> int | None:
    """The index where the quoted earlier messages begin, or None."""
    for i, line in enumerate(lines):
        if _REPLY_HEADER.match(line) or _ORIGINAL.match(line):
            return i
        # "On Tue, Nov 10, 2026 at 10:12 AM Dana Whitfield <" / "dana@juniperdental.test> wrote:"
        if line.lstrip().lower().startswith(("on ", "le ", "am ", "el ")) and i + 1 < len(lines):
            joined = f"{line.rstrip()} {lines[i + 1].strip()}"
            if _REPLY_HEADER.match(joined):
                return i
        # Outlook: "From: …" then "Sent:/Date:" and "To:/Subject:" right under it; not a forwarded message's header.
        if _HEADER_FROM.match(line):
            following = [x for x in lines[i + 1 : i + 5] if x.strip()]
            if sum(1 for x in following if _HEADER_NEXT.match(x)) >= 2:
                before = [x for x in lines[max(0, i - 2) : i] if x.strip()]
                if not any(_FORWARDED.match(x) for x in before):
                    start = i - 1 if i > 0 and re.match(r"^\s*_{8,}\s*$", lines[i - 1]) else i
                    return start
    return None


def strip_quoted(text: str) -> str:
    """A message's own words: the earlier messages it quotes left out, its signature kept."""
    if not text:
        return ""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    cut = _cut_at(lines)
    if cut is not None:
        lines = lines[:cut]
    kept = [line.rstrip() for line in lines if not line.lstrip().startswith(">")]
    own = re.sub(r"\n{3,}", "\n\n", "\n".join(kept)).strip()
    # A message that is nothing but quotes (a bare forward of a reply): its text as it came, rather than nothing.
    return own or text.strip()


# --- HTML -----------------------------------------------------------------------------------------------------

_BLOCKS = {"p", "div", "br", "tr", "li", "h1", "h2", "h3", "h4", "h5", "h6", "table", "ul", "ol", "blockquote", "hr"}
_SKIP = {"style", "script", "head", "title"}


class _Text(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.quote = 0
        self.skip = 0
        self.href: str | None = None

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag in _SKIP:
            self.skip += 1
        # Quoted earlier messages (Gmail's gmail_quote holds its quote in a blockquote; its "On … wrote:" line
        # is caught by strip_quoted).
        if tag == "blockquote":
            self.quote += 1
        if tag in _BLOCKS:
            self.parts.append("\n")
        if tag == "li":
            self.parts.append("- ")
        if tag == "a":
            self.href = attributes.get("href")

    def handle_endtag(self, tag):
        if tag in _SKIP and self.skip:
            self.skip -= 1
        if tag == "blockquote" and self.quote:
            self.quote -= 1
        if tag in _BLOCKS:
            self.parts.append("\n")
        if tag == "a":
            self.href = None

    def handle_data(self, data):
        if self.skip:
            return
        data = re.sub(r"[ \t\r\n\f\xa0]+", " ", data)
        if not data.strip() and not self.parts:
            return
        if self.href and self.href.startswith("http") and self.href not in data:
            data = f"{data} ({self.href})"
        if self.quote:
            data = data.replace("\n", "\n> ")
            if not self.parts or self.parts[-1].endswith("\n"):
                data = "> " + data.lstrip()
        self.parts.append(data)


def html_to_text(html: str) -> str:
    parser = _Text()
    parser.feed(html or "")
    parser.close()
    text = "".join(parser.parts)
    lines = [line.strip() for line in text.split("\n")]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


# --- outgoing -------------------------------------------------------------------------------------------------


def with_signature(text: str, signature: str | None) -> str:
    return f"{text.rstrip()}\n\n-- \n{signature.strip()}" if signature and signature.strip() else text


def mime_message(
    mail: OutgoingMail, *, sender: str, in_reply_to: str = "", references: str = "", signature: str | None = None
) -> EmailMessage:
    """The email as it goes: From/To/Cc/Subject, the Message-ID Roadstar gave it, threading headers, attachments."""
    message = EmailMessage()
    message["From"] = sender
    if mail.to:
        message["To"] = ", ".join(mail.to)
    if mail.cc:
        message["Cc"] = ", ".join(mail.cc)
    message["Subject"] = mail.subject
    message["Date"] = formatdate(localtime=False)
    message["Message-ID"] = mail.message_id or new_message_id(sender)
    if in_reply_to:
        message["In-Reply-To"] = in_reply_to
        message["References"] = (f"{references} {in_reply_to}" if references else in_reply_to).strip()
    message.set_content(with_signature(mail.text, signature if mail.signature else None))
    for attachment in mail.attachments:
        maintype, _, subtype = (attachment.mime_type or "application/octet-stream").partition("/")
        message.add_attachment(
            attachment.data, maintype=maintype or "application", subtype=subtype or "octet-stream",
            filename=attachment.name,
        )
    return message


def raw_of(message: EmailMessage) -> str:
    """Gmail's `raw`: the message, base64url."""
    return base64.urlsafe_b64encode(message.as_bytes()).decode()


# --- attachments' text ----------------------------------------------------------------------------------------


def attachment_content(data: FileData) -> dict:
    """An attachment read like a file (integrations.files.content, the same text files.read gives): {text} or
    {text: "", image}, with `note` when there is one; an HTML attachment as its text."""
    name, mime = data.name.lower(), (data.mime_type or "").lower()
    if mime.startswith("text/html") or name.endswith((".html", ".htm")):
        return {"text": html_to_text(data.data.decode("utf-8", "replace"))}
    extracted = extract(data)
    content: dict[str, Any] = {"text": extracted.text}
    if extracted.image is not None:
        content["image"] = extracted.image
    if extracted.note:
        content["note"] = extracted.note
    return content


def owner_addresses(connection) -> set[str]:
    """The owner's own addresses, lower case: the workspace's owner email and every account it connected."""
    cached = getattr(connection, "_owner_addresses", None)
    if cached is None:
        org = connection.organization
        accounts = Connection.objects.filter(organization_id=org.pk).values_list("account", flat=True)
        cached = {a.strip().lower() for a in [org.owner_email or "", connection.account, *accounts] if "@" in a}
        connection._owner_addresses = cached
    return cached
