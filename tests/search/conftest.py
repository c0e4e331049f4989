import datetime

import pytest

from integrations.services import connection_create_local, connection_search_set
from search import sync
from tests.integrations.mail_helpers import mail_root, store  # noqa: F401

DAY = datetime.datetime(2026, 11, 10, 15, 12, tzinfo=datetime.UTC)


@pytest.fixture
def box(org):
    """Sam's local mailbox, with search turned on."""
    connection = connection_create_local(org=org, account="sam@fernhill.test", groups=["mail"])
    connection_search_set(org=org, account_key=connection.account_key, on=True)
    return connection


def copy_now(connection):
    """What the worker's sweep does for one account."""
    return sync.copy_run(connection)


def received(connection, *, sender, subject, text, at, thread=None, **kw):
    return store(connection, sender=sender, subject=subject, text=text, at=at, thread=thread, **kw)


def sent(connection, *, to, subject, text, at, thread=None, **kw):
    return store(connection, sender="Sam Rivera <sam@fernhill.test>", to=to, subject=subject, text=text, at=at,
                 box="sent", thread=thread, **kw)
