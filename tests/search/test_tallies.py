"""The tallies behind broad searches: kept by the database through every write, move and deletion, equal to counting
the items one by one, and a broad search's total and counts equal to the one-by-one path's (search/tallies.py)."""

import datetime
from collections import Counter

import pytest
from django.db import connection as db

from integrations.services import connection_create_local, connection_search_set
from search import index, selectors, sync, tallies
from search.models import SearchItem, SearchPeopleTally, SearchPerson, SearchTally
from tests.factories import OrganizationFactory

pytestmark = pytest.mark.django_db

OWNER = "sam@fernhill.test"
START = datetime.datetime(2025, 11, 20, 12, 0, tzinfo=datetime.UTC)


def mail(n: int, *, days: int, sent: bool = False, bulk: bool = False, people=None, source=OWNER, conn=None):
    other = people or [("Dana Whitfield", "dana@juniper.test")]
    role = "to" if sent else "from"
    return index.Entry(
        key=f"mail:k:m:{n}", type="email", source=source, connection_id=conn, title=f"Message {n}", body="hello",
        date=START + datetime.timedelta(days=days), thread=f"mail:k:t:{n}",
        people=[("from" if sent else "to", "Sam Rivera", OWNER, True)] + [(role, name, a, False) for name, a in other],
        dir="sent" if sent else "received", bulk=bulk,
    )


def truth(org):
    """The tallies as counting every row would give them."""
    items = {i.id: i for i in SearchItem.objects.filter(organization=org)}

    def bucket(i):
        return (i.source, i.type, i.year, i.date.astimezone(datetime.UTC).strftime("%Y-%m"), i.dir, i.bulk)

    tally = Counter(bucket(i) for i in items.values())
    people = Counter((*bucket(items[p.item_id]), p.address, p.name)
                     for p in SearchPerson.objects.filter(organization=org, counted=True))
    return +tally, +people


def kept(org):
    tally = Counter({(t.source, t.type, t.year, t.month, t.dir, t.bulk): t.n
                     for t in SearchTally.objects.filter(organization=org)})
    people = Counter({(t.source, t.type, t.year, t.month, t.dir, t.bulk, t.address, t.name): t.n
                      for t in SearchPeopleTally.objects.filter(organization=org)})
    assert all(n >= 0 for n in [*tally.values(), *people.values()])
    return +tally, +people


def test_tallies_follow_writes_moves_and_deletions(org):
    other_org = OrganizationFactory()
    index.put(other_org, [mail(1, days=1)])
    index.put(org, [mail(n, days=n * 9, sent=n % 3 == 0, bulk=n % 5 == 0) for n in range(40)])
    assert kept(org) == truth(org) and sum(truth(org)[0].values()) == 40
    # Written again: moved to another month, turned sent, with other people (one of them twice: to and cc).
    index.put(org, [mail(n, days=n * 9 + 45, sent=True, people=[("Rosa", "rosa@o.test"), ("Rosa Ortiz", "rosa@o.test"),
                                                                ("Marco", "marco@r.test")]) for n in range(0, 40, 4)])
    assert kept(org) == truth(org)
    assert SearchPerson.objects.filter(organization=org, address="rosa@o.test", counted=True).count() == 10
    assert SearchPerson.objects.filter(organization=org, address="rosa@o.test", counted=True,
                                       name="Rosa Ortiz").count() == 10  # the greatest name is the one counted
    index.put(org, [mail(n, days=n * 9 + 45, sent=True, people=[("Rosa", "rosa@o.test"), ("Rosa Ortiz", "rosa@o.test"),
                                                                ("Marco", "marco@r.test")]) for n in range(0, 40, 4)])
    assert kept(org) == truth(org)  # written again unchanged: nothing moves
    index.remove(org.id, [f"mail:k:m:{n}" for n in range(0, 40, 3)])
    assert kept(org) == truth(org)
    SearchItem.objects.filter(organization=org, dir="received").delete()
    assert kept(org) == truth(org)
    SearchPerson.objects.filter(organization=org, address="marco@r.test").delete()
    assert kept(org) == truth(org)
    SearchItem.objects.filter(organization=org).delete()
    assert kept(org) == (Counter(), Counter())
    assert kept(other_org) == truth(other_org) != (Counter(), Counter())


def test_an_account_disconnected_takes_its_copy_out_of_the_tallies(org):
    box = connection_create_local(org=org, account=OWNER, groups=["mail"])
    connection_search_set(org=org, account_key=box.account_key, on=True)
    index.put(org, [mail(n, days=n, conn=box.id) for n in range(12)])
    index.put(org, [index.Entry(key="doc:1", type="doc", source="workspace", title="Doc", body="x", date=START)])
    sync.drop_copy(box)
    assert kept(org) == truth(org)
    assert sum(kept(org)[0].values()) == 1
    box.delete()
    assert kept(org) == truth(org)


class _Editor:
    """What tallies.install needs of a schema editor, on the test's own connection."""
    connection = db

    def execute(self, sql):
        with db.cursor() as cursor:
            cursor.execute(sql)


def test_installing_on_a_copy_already_there_sums_what_is_there(org):
    index.put(org, [mail(n, days=n * 5, sent=n % 2 == 0, people=[("Rosa", "rosa@o.test"), ("Rosa O", "rosa@o.test")])
                    for n in range(30)])
    before = kept(org)
    tallies.uninstall(None, _Editor())
    assert kept(org) == (Counter(), Counter())
    tallies.install(None, _Editor())
    assert kept(org) == before == truth(org)
    index.put(org, [mail(99, days=3)])  # the triggers are back
    assert kept(org) == truth(org)


@pytest.mark.parametrize("filters", [
    {},
    {"dir": "sent"},
    {"bulk": False, "dir": "received"},
    {"types": ["email"], "after": "2026-01-17"},
    {"after": "2025-12-03", "before": "2026-04-20"},
    {"before": "2026-03-01"},
    {"after": "2026-02-01", "before": "2026-02-09"},  # inside one month: counted one by one
])
def test_a_broad_search_counts_exactly_what_counting_every_match_gives(org, filters, monkeypatch):
    people = [[("Dana", "dana@j.test")], [("Rosa", "rosa@o.test"), ("Marco", "marco@r.test")],
              [("Rosa Ortiz", "rosa@o.test"), ("Rosa", "rosa@o.test")]]
    index.put(org, [mail(n, days=n * 2, sent=n % 4 == 0, bulk=n % 7 == 0, people=people[n % 3]) for n in range(90)])
    index.put(org, [index.Entry(key=f"doc:{n}", type="doc", source="workspace", title="Doc", body="x",
                                date=START + datetime.timedelta(days=n * 11)) for n in range(12)])
    from_tallies = []
    real = selectors._tally_counts
    monkeypatch.setattr(selectors, "_tally_counts", lambda *a: from_tallies.append(real(*a)) or from_tallies[-1])
    out = selectors.search(org=org, filters=selectors.Filters(**filters))
    assert (from_tallies[0] is not None) == (filters.get("before") != "2026-02-09")
    # Counted one by one over the items plain Python finds.
    total, counts = selectors._counts(SearchItem.objects.filter(id__in=[i.id for i in _matching(org, filters)]))
    assert out["total"] == total > 0
    assert out["counts"] == counts
    assert len(counts["people"]) >= 2


def _matching(org, filters):
    """Every item a broad search with these filters matches, found with plain Python over the rows."""
    from search import dates

    rows = list(SearchItem.objects.filter(organization=org))
    now = datetime.datetime.now(datetime.UTC)
    if "after" in filters:
        start, _ = dates.start_of(filters["after"], time_zone=org.time_zone, now=now)
        rows = [r for r in rows if r.date >= start]
    if "before" in filters:
        end, _ = dates.start_of(filters["before"], time_zone=org.time_zone, now=now)
        rows = [r for r in rows if r.date < end]
    if "types" in filters:
        rows = [r for r in rows if r.type in filters["types"]]
    if "dir" in filters:
        rows = [r for r in rows if r.dir == filters["dir"]]
    if "bulk" in filters:
        rows = [r for r in rows if r.type == "email" and r.bulk == filters["bulk"]]
    return rows
