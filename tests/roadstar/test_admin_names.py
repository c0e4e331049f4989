"""The admin under Roadstar's name: its header, one page-title pattern ("<page> · Roadstar admin") and plural
names that are English ("company people", "files watches", never "company persons" or "files watchs")."""

import re

import pytest
from django.apps import apps
from django.contrib import admin
from django.urls import reverse

from roadstar.admin_site import RoadstarAdminSite

PROJECT_APPS = ("roadstar", "agents", "records", "routines", "tools", "checks",
                "integrations", "mcp_server", "pages", "api", "core", "home")
MODELS = [m for m in apps.get_models() if m._meta.app_label in PROJECT_APPS]


@pytest.fixture
def staff(client, org):
    org.owner.is_staff = org.owner.is_superuser = True
    org.owner.save()
    client.force_login(org.owner)
    return client


def test_the_admin_site_is_roadstars():
    assert isinstance(admin.site, RoadstarAdminSite)


def test_the_admin_says_roadstar_not_django(staff):
    body = staff.get(reverse("admin:index")).content.decode()
    assert "Roadstar administration" in body and "Django administration" not in body and "Django site admin" not in body


@pytest.mark.parametrize("address", [
    "admin:index", "admin:records_contact_changelist", "admin:records_contact_add", "admin:password_change",
])
def test_every_admin_page_title_has_one_pattern(staff, address):
    title = re.search(r"<title>(.*?)</title>", staff.get(reverse(address)).content.decode(), re.S).group(1).strip()
    assert re.fullmatch(r"[^|·]+( · [^|·]+)* · Roadstar admin", title), title


def test_the_admin_sign_in_page_too(client, db):
    title = re.search(r"<title>(.*?)</title>", client.get(reverse("admin:login")).content.decode(), re.S).group(1)
    assert title.strip() == "Log in · Roadstar admin"


@pytest.mark.parametrize(("label", "plural"), [
    ("records.CompanyPerson", "company people"),
    ("integrations.FilesWatch", "files watches"),
    ("integrations.MailWatch", "mail watches"),
    ("integrations.CalendarWatch", "calendar watches"),
    ("integrations.BooksWatch", "books watches"),
    ("agents.Work", "pieces of work"),
    ("agents.Usage", "usage"),
])
def test_plural_names_are_english(label, plural):
    assert apps.get_model(label)._meta.verbose_name_plural == plural


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m._meta.label)
def test_no_plural_is_a_blind_added_s(model):
    """Django's default plural adds an "s": wrong after -ch, -sh, -s, -x, -z, a consonant's -y and "person"."""
    name, plural = str(model._meta.verbose_name), str(model._meta.verbose_name_plural)
    blind = plural == name + "s"
    assert not (blind and re.search(r"(ch|sh|s|x|z|[^aeiou]y|person)$", name)), (name, plural)


@pytest.mark.parametrize("address", ["admin:index", "admin:records_contact_changelist", "admin:records_contact_add"])
def test_the_admins_inline_scripts_and_styles_carry_the_pages_nonce(staff, address):
    reply = staff.get(reverse(address))
    policy, body = reply["Content-Security-Policy"], reply.content.decode()
    inline = [tag for tag in re.findall(r"<(?:script|style)\b[^>]*>", body) if "src=" not in tag]
    nonces = {re.search(r'nonce="([^"]+)"', tag).group(1) if "nonce=" in tag else None for tag in inline}
    assert all(n and f"'nonce-{n}'" in policy for n in nonces), (inline, policy)
