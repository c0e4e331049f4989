"""Roadstar's own pages for 404, 500, 403, 400 and a refused form: in its layout, saying what to do, and never a
path, an exception's words or Django's debug page (tests/roadstar/test_settings.py asks the same of production)."""

import re

import pytest
from django.test import Client

pytestmark = [pytest.mark.urls("tests.roadstar.error_urls"), pytest.mark.django_db]

DEBUG_SIGNS = ("SECRET-DETAIL", "Traceback", "URLconf", "Request Method", "django.", "{%", "{#")


def looks_like_roadstar(reply, heading: str) -> bool:
    body = reply.content.decode()
    return (
        heading in body
        and '<link rel="stylesheet" href="/static/roadstar/roadstar.css">' in body
        and '<a class="button button--primary" href="/">Go to Home</a>' in body
        and not any(sign in body for sign in DEBUG_SIGNS)
    )


@pytest.fixture
def anyone():
    return Client(raise_request_exception=False)


def test_a_missing_page_is_roadstars_404(anyone):
    reply = anyone.get("/no-such-page/")
    assert reply.status_code == 404 and looks_like_roadstar(reply, "There's nothing here")
    assert "<title>Not found · Roadstar</title>" in reply.content.decode()


def test_the_404_keeps_the_owners_navigation(anyone, org):
    anyone.force_login(org.owner)
    body = anyone.get("/contacts/00000000-0000-4000-8000-000000000000/").content.decode()
    assert "There's nothing here" in body and 'aria-label="Pages"' in body and "Fernhill Studio" in body


def test_a_failure_is_roadstars_500(anyone):
    reply = anyone.get("/boom/")
    assert reply.status_code == 500 and looks_like_roadstar(reply, "Something went wrong on Roadstar's side")


def test_the_500_reads_nothing_that_may_have_failed(anyone, org, django_assert_num_queries):
    anyone.force_login(org.owner)
    with django_assert_num_queries(0):
        reply = anyone.get("/boom/")
    assert reply.status_code == 500 and 'aria-label="Pages"' not in reply.content.decode()


def test_a_refusal_is_roadstars_403(anyone):
    reply = anyone.get("/forbidden/")
    assert reply.status_code == 403 and looks_like_roadstar(reply, "You can't open this page")


def test_a_bad_request_is_roadstars_400(anyone):
    reply = anyone.get("/bad/")
    assert reply.status_code == 400 and looks_like_roadstar(reply, "Roadstar couldn't read that request")


def test_a_host_roadstar_doesnt_serve_is_roadstars_400(anyone):
    reply = anyone.get("/", headers={"host": "evil.test"})
    assert reply.status_code == 400 and looks_like_roadstar(reply, "Roadstar couldn't read that request")


def test_a_form_without_its_token_is_refused_in_roadstars_words():
    reply = Client(enforce_csrf_checks=True).post("/login/", {"username": "sam", "password": "x"})
    assert reply.status_code == 403 and looks_like_roadstar(reply, "That form wasn't sent")
    assert "Your browser must allow cookies for this site." in reply.content.decode()


def test_error_pages_carry_the_content_security_policy(anyone):
    policy = anyone.get("/no-such-page/")["Content-Security-Policy"]
    assert "default-src 'self'" in policy and "frame-ancestors 'none'" in policy


def test_every_page_carries_the_content_security_policy(anyone, org):
    anyone.force_login(org.owner)
    policy = anyone.get("/")["Content-Security-Policy"]
    directives = dict(part.strip().split(" ", 1) for part in policy.split(";"))
    assert directives == {
        "default-src": "'self'",
        "script-src": "'self'",
        "style-src": "'self'",
        "img-src": "'self' data:",
        "font-src": "'self'",
        "connect-src": "'self'",
        "object-src": "'none'",
        "base-uri": "'none'",
        "frame-ancestors": "'none'",
        "form-action": "'self' https://accounts.google.com https://appcenter.intuit.com",
    }


def test_no_owner_page_has_inline_script_or_style(anyone, org):
    anyone.force_login(org.owner)
    for address in ("/", "/contacts/", "/companies/", "/docs/", "/agents/", "/routines/", "/connections/",
                    "/connections/mcp/", "/chat/", "/logout/", "/no-such-page/"):
        reply = anyone.get(address, follow=True)
        body = reply.content.decode()
        inline_scripts = [s for s in re.findall(r"<script\b[^>]*>", body) if "src=" not in s and "json" not in s]
        assert (inline_scripts, "<style" in body, " style=" in body, re.search(r" on[a-z]+=", body)) == (
            [], False, False, None
        ), address


def test_a_database_busy_past_its_timeout_is_roadstars_busy_page_not_a_500(anyone):
    reply = anyone.post("/locked/")
    assert reply.status_code == 503 and reply["Retry-After"] == "2"
    body = reply.content.decode()
    assert "Roadstar is busy for a moment" in body and "Nothing was done." in body
    assert '<a class="button button--primary" href="/">Go to Home</a>' in body
    assert not any(sign in body for sign in DEBUG_SIGNS)


def test_a_live_fetch_that_finds_the_database_busy_gets_the_words_to_show_beside_its_form(anyone):
    reply = anyone.post("/locked/", headers={"X-Requested-With": "fetch"})
    assert reply.status_code == 503 and reply["Content-Type"].startswith("text/plain")
    assert reply.content.decode() == (
        "Roadstar's database is busy with other work right now: busy, try again in a moment. Nothing was done."
    )


def test_any_other_database_error_is_still_the_500_page(anyone):
    reply = anyone.get("/broken-database/")
    assert reply.status_code == 500 and looks_like_roadstar(reply, "Something went wrong on Roadstar's side")
