"""What each app is: its key, the words the owner sees, the groups it serves and the scopes each group needs.

How to add an app: add an `App` to `APPS` (scopes it asks for, which groups they serve, which allow writing),
give it an OAuth flow in `integrations/oauth.py` and views, and register its providers (see providers/registry.py).
An app named in the spec but not built yet goes in `NOT_YET`, so `integrations.list` says so honestly.
"""

from __future__ import annotations

from dataclasses import dataclass, field

GROUPS = ("mail", "files", "calendar", "books")

# What agents can do with each group, as the owner reads it on cards and the connect page.
GROUP_USE = {
    "mail": "search and read your mail, draft and send",
    "files": "find, read and write your files",
    "calendar": "read your meetings and hold time",
    "books": "read your invoices and what customers owe",
}

_G = "https://www.googleapis.com/auth/"


@dataclass(frozen=True)
class App:
    key: str
    label: str  # what the owner connects, as integrations.list and the cards name it
    group_labels: dict[str, str]  # the app's name for each group it serves: {"mail": "Gmail"}
    # Any one of these granted scopes lets the app serve the group (read) / write in it.
    read_scopes: dict[str, frozenset[str]] = field(default_factory=dict)
    write_scopes: dict[str, frozenset[str]] = field(default_factory=dict)
    # What the first connection asks for, and what "connect again for writing" adds, per group.
    ask_read: dict[str, tuple[str, ...]] = field(default_factory=dict)
    ask_write: dict[str, tuple[str, ...]] = field(default_factory=dict)
    identity_scopes: tuple[str, ...] = ()
    oauth: bool = True

    @property
    def groups(self) -> tuple[str, ...]:
        return tuple(self.group_labels)

    def groups_granted(self, scopes) -> list[str]:
        """The groups these granted scopes let the app serve, in the catalog's order."""
        granted = set(scopes)
        return [g for g in GROUPS if g in self.group_labels and granted & (self.read_scopes[g] | self.write_scopes[g])]

    def can_write(self, group: str, scopes) -> bool:
        return bool(set(scopes) & self.write_scopes.get(group, frozenset()))


GOOGLE = App(
    key="google",
    label="Gmail, Drive and Calendar",
    group_labels={"mail": "Gmail", "files": "Google Drive", "calendar": "Google Calendar"},
    read_scopes={
        "mail": frozenset({_G + "gmail.readonly", _G + "gmail.modify", "https://mail.google.com/"}),
        "files": frozenset({_G + "drive.readonly", _G + "drive"}),
        "calendar": frozenset({_G + "calendar.readonly", _G + "calendar.events", _G + "calendar"}),
    },
    # gmail.send alone can't make drafts; compose can do both, so compose is what writing needs.
    write_scopes={
        "mail": frozenset({_G + "gmail.compose", _G + "gmail.modify", "https://mail.google.com/"}),
        "files": frozenset({_G + "drive"}),
        "calendar": frozenset({_G + "calendar.events", _G + "calendar"}),
    },
    ask_read={
        "mail": (_G + "gmail.readonly",),
        "files": (_G + "drive.readonly",),
        "calendar": (_G + "calendar.readonly",),
    },
    ask_write={
        "mail": (_G + "gmail.compose", _G + "gmail.send"),
        "files": (_G + "drive",),
        "calendar": (_G + "calendar.events",),
    },
    identity_scopes=("openid", _G + "userinfo.email"),
)

QUICKBOOKS_ACCOUNTING = "com.intuit.quickbooks.accounting"

QUICKBOOKS = App(
    key="quickbooks",
    label="QuickBooks Online",
    group_labels={"books": "QuickBooks Online"},
    read_scopes={"books": frozenset({QUICKBOOKS_ACCOUNTING})},
    write_scopes={"books": frozenset({QUICKBOOKS_ACCOUNTING})},
    ask_read={"books": (QUICKBOOKS_ACCOUNTING,)},
)

# Microsoft Graph's delegated permissions, as the identity platform names them in a token's `scope`.
MS_GRAPH = "https://graph.microsoft.com/"
MS_FILES_READ = "Files.Read.All"
MS_FILES_WRITE = "Files.ReadWrite.All"

MICROSOFT = App(
    key="microsoft",
    label="OneDrive",
    group_labels={"files": "OneDrive"},
    # Files.Read.All: the owner's OneDrive and what's shared with them, SharePoint's libraries included (Microsoft
    # Search finds files in both). Writing is saving workspace files back (files.save), which needs ReadWrite.
    read_scopes={"files": frozenset({MS_FILES_READ, MS_FILES_WRITE, "Files.Read", "Files.ReadWrite"})},
    write_scopes={"files": frozenset({MS_FILES_WRITE, "Files.ReadWrite"})},
    ask_read={"files": (MS_FILES_READ,)},
    ask_write={"files": (MS_FILES_WRITE,)},
    # offline_access: a refresh token; User.Read: whose account it is.
    identity_scopes=("openid", "email", "offline_access", "User.Read"),
)

# The embedded providers: the owner's mail, files, calendar and books kept by Roadstar itself. No OAuth, and
# writing is always allowed (the scopes below are only there so the same checks read the same way).
LOCAL_SCOPE = "local"
LOCAL = App(
    key="local",
    label="Roadstar's own mail, files, calendar and books",
    group_labels={
        "mail": "Roadstar's mailbox",
        "files": "Roadstar's files",
        "calendar": "Roadstar's calendar",
        "books": "Roadstar's books",
    },
    read_scopes={g: frozenset({LOCAL_SCOPE}) for g in GROUPS},
    write_scopes={g: frozenset({LOCAL_SCOPE}) for g in GROUPS},
    oauth=False,
)

# The owner's other apps, each connected by its MCP address (integrations/mcp_apps.py): a connection's group is
# named after its app, so the groups aren't known here; the account is the app's name.
OTHER_APPS = "apps"
OTHER = App(key=OTHER_APPS, label="Another app, by its MCP address", group_labels={})

APPS: dict[str, App] = {a.key: a for a in (GOOGLE, QUICKBOOKS, MICROSOFT, LOCAL, OTHER)}

# The apps the owner connects through a web flow, in the order integrations.list offers them.
CONNECTABLE = ("google", "microsoft", "quickbooks")

# Apps the spec names that Roadstar can't connect yet: key -> what the owner would call it.
NOT_YET: dict[str, str] = {}

# Other words an agent may use for an app's key.
ALIASES = {
    "gmail": "google",
    "google drive": "google",
    "drive": "google",
    "google calendar": "google",
    "calendar": "google",
    "google workspace": "google",
    "qbo": "quickbooks",
    "quickbooks online": "quickbooks",
    "intuit": "quickbooks",
    "onedrive": "microsoft",
    "one drive": "microsoft",
    "sharepoint": "microsoft",
    "microsoft 365": "microsoft",
    "office 365": "microsoft",
    "mcp": "apps",
    "other app": "apps",
    "app": "apps",
}

# The app a group's connect card offers when no app of the group is connected.
DEFAULT_APP = {"mail": "google", "files": "google", "calendar": "google", "books": "quickbooks"}


def app(key: str) -> App:
    return APPS[key]


def normalize_key(text: str) -> str:
    key = " ".join(text.strip().lower().replace("_", " ").replace("-", " ").split())
    return ALIASES.get(key, key.replace(" ", ""))
