"""Signing out: a POST with its CSRF token, as Django does it; a GET of /logout/ answers a page with the button
(not a blank 405) and signs no one out; the admin's own /admin/logout/ leads there too. And the favicon."""

import pytest
from django.contrib.auth import SESSION_KEY
from django.test import Client


@pytest.fixture
def signed_in(client, org):
    client.force_login(org.owner)
    return client


def test_a_get_of_logout_offers_the_button_and_signs_no_one_out(signed_in):
    reply = signed_in.get("/logout/")
    body = reply.content.decode()
    assert reply.status_code == 200 and '<form method="post" action="/logout/">' in body
    assert 'name="csrfmiddlewaretoken"' in body
    assert '<button type="submit" class="button button--primary">Sign out</button>' in body
    assert "<title>Sign out · Roadstar</title>" in body and SESSION_KEY in signed_in.session


def test_a_get_of_logout_when_signed_out_says_so(client, db):
    body = client.get("/logout/").content.decode()
    assert "You're signed out." in body and 'href="/login/"' in body


def test_the_button_signs_out(signed_in):
    reply = signed_in.post("/logout/")
    assert reply.status_code == 302 and reply["Location"] == "/login/" and SESSION_KEY not in signed_in.session


def test_signing_out_needs_the_forms_token(org):
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(org.owner)
    reply = browser.post("/logout/")
    assert reply.status_code == 403 and "That form wasn't sent" in reply.content.decode()
    assert SESSION_KEY in browser.session


def test_the_admins_logout_address_leads_to_the_same_page(signed_in, org):
    org.owner.is_staff = True
    org.owner.save()
    reply = signed_in.get("/admin/logout/")
    assert reply.status_code == 302 and reply["Location"] == "/logout/" and SESSION_KEY in signed_in.session


def test_pages_link_the_favicon(signed_in):
    body = signed_in.get("/").content.decode()
    assert '<link rel="icon" href="/static/roadstar/favicon.svg" type="image/svg+xml">' in body


def test_favicon_ico_leads_to_the_icon(client, db):
    reply = client.get("/favicon.ico", follow=True)
    assert reply.redirect_chain == [("/static/roadstar/favicon.svg", 302)] and reply.status_code == 200
    assert reply["Content-Type"].startswith("image/svg+xml") and b"<svg" in b"".join(reply.streaming_content)
