"""A local fake web site for web.read's tests, recorded search answers, and a resolver that answers without DNS.

The site listens on 127.0.0.1, which the SSRF check refuses; tests read it inside `allowing_for_tests`, the
allow-list that exists only under the test settings.
"""

from __future__ import annotations

import datetime
import json
import socket
import ssl
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from core import web_addresses as addresses

RECORDED = Path(__file__).parent / "web_recorded"


def recorded(name: str) -> dict:
    return json.loads((RECORDED / name).read_text())


@dataclass
class Route:
    status: int = 200
    body: bytes = b""
    headers: dict = field(default_factory=dict)
    hang: bool = False  # accept the request and never answer


class FakeSite:
    def __init__(self, tls: ssl.SSLContext | None = None):
        self.routes: dict[str, Route] = {}
        self.seen: list[dict] = []  # each request: path and Host header
        self.release = threading.Event()
        site = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                site.seen.append({"path": self.path, "host": self.headers.get("Host")})
                route = site.routes.get(self.path.split("?", 1)[0], Route(status=404, body=b"no such page"))
                if route.hang:
                    site.release.wait(60)
                    return
                self.send_response(route.status)
                headers = {"Content-Type": "text/html; charset=utf-8", **route.headers}
                omit_length = headers.pop("omit-length", False)  # then the body ends when the connection closes
                for name, value in headers.items():
                    self.send_header(name, value)
                if "Content-Length" not in headers and not omit_length:
                    self.send_header("Content-Length", str(len(route.body)))
                self.end_headers()
                self.wfile.write(route.body)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        if tls is not None:
            self.server.socket = tls.wrap_socket(self.server.socket, server_side=True)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def url(self, path: str, host: str = "127.0.0.1", scheme: str = "http") -> str:
        return f"{scheme}://{host}:{self.port}{path}"

    def page(self, path: str, body: str | bytes, status: int = 200, **headers):
        self.routes[path] = Route(status=status, body=body.encode() if isinstance(body, str) else body,
                                  headers=headers)

    def redirect(self, path: str, to: str, status: int = 302):
        self.routes[path] = Route(status=status, headers={"Location": to})

    def close(self):
        self.release.set()
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def site():
    fake = FakeSite()
    with addresses.allowing_for_tests("127.0.0.1"):
        yield fake
    fake.close()


class FakeResolver:
    """Names to addresses, like DNS; each call recorded. A list of lists answers each call in turn."""

    def __init__(self, answers: dict[str, list]):
        self.answers = answers
        self.calls: list[str] = []

    def __call__(self, host: str, port: int) -> list[str]:
        self.calls.append(host)
        answer = self.answers.get(host)
        if answer is None:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        if answer and isinstance(answer[0], list):
            return answer[min(self.calls.count(host), len(answer)) - 1]
        return answer


@pytest.fixture
def dns(monkeypatch):
    """`dns({"shop.test": ["127.0.0.1"]})`: web.read resolves names from this table, never from the network."""

    def install(answers: dict[str, list]) -> FakeResolver:
        resolver = FakeResolver(answers)
        monkeypatch.setattr(addresses, "resolver", resolver)
        return resolver

    install({})
    return install


@pytest.fixture
def web_on(settings):
    """A search provider configured (SearXNG at a name the tests answer with respx), so the web group is there."""
    settings.SEARXNG_URL = "http://searx.internal.test:8888"
    settings.BRAVE_SEARCH_API_KEY = None
    settings.WEB_SEARCH_PROVIDER = None
    return settings


HOURS_PAGE = """<!doctype html><html><head><title>Central Library | Harbor Council</title></head><body>
<nav><a href="/">Home</a> | <a href="/bins">Bins and recycling</a> | <a href="/parking">Parking</a></nav>
<main><article>
<h1>Central Library</h1>
<p>Central Library is the largest of Harbor's five libraries, with over 80,000 books, a children's floor and a
local history room run by volunteers since 1987.</p>
<p>Opening hours: the library opens at 9am Monday to Friday and closes at 6pm. On Saturdays it opens at 10am and
closes at 4pm. It is closed on Sundays and bank holidays.</p>
<p>Parking: the Quay Street car park behind the library costs £2 an hour, and the first 30 minutes are free.</p>
<p>Members can borrow up to 12 books at a time for three weeks, and renew them online or by phone.</p>
<p>The library hosts a knitting circle on Tuesdays and a job club on Thursday mornings.</p>
</article></main>
<footer>© Harbor Council · Privacy · Cookies</footer>
</body></html>"""


def minimal_pdf(text: str) -> bytes:
    """A one-page PDF whose page shows `text` in Helvetica, with its cross-reference table, for pypdf to read."""
    stream = f"BT /F1 12 Tf 72 712 Td ({text}) Tj ET".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        (b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
         b"/Resources << /Font << /F1 5 0 R >> >> >>"),
        b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        b"<< /Title (Price list) >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for offset in offsets:
        out += b"%010d 00000 n \n" % offset
    out += b"trailer\n<< /Size %d /Root 1 0 R /Info 6 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def self_signed(name: str, directory: Path) -> tuple[Path, Path]:
    """A certificate for `name` alone (and its key), signed by itself: what a test site serves over TLS."""
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder().subject_name(subject).issuer_name(subject).public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1)).not_valid_after(now + datetime.timedelta(days=7))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(name)]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = directory / f"{name}.pem", directory / f"{name}.key"
    cert_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert_path, key_path
