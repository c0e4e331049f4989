"""The owner's pages in a real browser: a held email opened from Home, an ask that shows the action it asks about,
Roadstar's own 404, and Home, a chat and a record page at a phone's width (390 px) with nothing to scroll sideways.

They share the session's stack with the other browser tests (one xdist group). The 404 needs a server without
DEBUG (the shared stack runs with DEBUG=1, which shows Django's page for a developer): a second daphne on the same
database, started for this module."""

import sys

import pytest

from tests.browser.conftest import _free_port, _start, _stop, _wait_for_http

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]

PHONE = {"width": 390, "height": 844}
LIVE_WAIT_MS = 20_000


def sign_in(page, stack):
    page.goto("/login/")
    page.fill("input[name=username]", stack.seed["username"])
    page.fill("input[name=password]", stack.seed["password"])
    page.click("button[type=submit]")
    page.wait_for_url(stack.url + "/")


@pytest.fixture
def phone(chromium, stack):
    context = chromium.new_context(base_url=stack.url, viewport=PHONE, device_scale_factor=2, is_mobile=True,
                                   has_touch=True)
    context.set_default_timeout(10_000)
    page = context.new_page()
    sign_in(page, stack)
    yield page
    context.close()


def sideways(page) -> int:
    """How many pixels the page is wider than the screen (0: nothing to scroll sideways)."""
    return page.evaluate("Math.max(document.documentElement.scrollWidth, document.body.scrollWidth) - "
                         "window.innerWidth")


def wider_than_the_screen(page) -> list[str]:
    """The elements that reach past the screen's right edge, for the failure message."""
    return page.evaluate("""() => [...document.querySelectorAll('body *')]
        .filter(el => el.getBoundingClientRect().right > window.innerWidth + 1)
        .slice(0, 8).map(el => el.tagName.toLowerCase() + '.' + [...el.classList].join('.'))""")


# --- a phone's width ---------------------------------------------------------------------------------------


def test_home_fits_a_phone(phone):
    phone.goto("/")
    assert phone.locator("h2#waiting").is_visible()
    assert sideways(phone) == 0, wider_than_the_screen(phone)


def test_a_chat_fits_a_phone_and_its_box_is_usable(phone, stack):
    phone.goto(f"/chat/{stack.seed['agents']['Client desk']}/")
    box = phone.locator("#chat-text")
    box.fill("Can you find Dana's number?")
    assert box.is_visible() and phone.get_by_role("button", name="Send").is_visible()
    assert sideways(phone) == 0, wider_than_the_screen(phone)


def test_a_record_page_fits_a_phone(phone):
    phone.goto("/companies/")
    phone.get_by_role("link", name="Juniper Dental").first.click()
    phone.wait_for_selector("h2#timeline")
    assert sideways(phone) == 0, wider_than_the_screen(phone)


def test_a_connection_token_fits_a_phone(phone, stack):
    phone.goto("/connections/mcp/")
    phone.fill("input[name=name]", "Claude on my phone, with a long name to wrap")
    phone.get_by_role("button", name="Make a token").click()
    phone.wait_for_selector("#token")
    assert sideways(phone) == 0, wider_than_the_screen(phone)


# --- Home -----------------------------------------------------------------------------------------------------


def test_a_held_email_opens_from_home_in_full_with_undo(signed_in, stack):
    page = signed_in
    subject = "Signage proofs for both clinics"
    held = stack.act("held", subject)
    line = page.locator("li.held", has_text=subject)
    line.wait_for(timeout=LIVE_WAIT_MS)
    line.get_by_role("link").click()
    page.locator("h1", has_text=subject).wait_for()
    head = page.locator(".held-email__head").inner_text()
    assert "dana@juniperdental.test" in head and subject in head
    assert "Hi Dana, the proofs are ready." in page.locator(".held-email__text").inner_text()
    assert page.title() == f"{subject} · Home · Roadstar"
    page.get_by_role("button", name="Undo: don't send it").click()
    page.wait_for_url(stack.url + "/")
    assert stack.act("held_state", held["id"])["state"] == "undone"


def test_an_ask_shows_the_action_it_asks_about(signed_in, stack):
    # The seed's ask: Client desk's thread held back from rewriting Rosa's Context (the other tests make their own).
    ask = signed_in.locator(f'li[data-key="ask-{stack.seed["ask"]["id"]}"]')
    action = ask.locator(".ask__action").inner_text()
    # What would change, its new value, and why it waits, in the owner's words (never "the owner").
    assert "Prefers invoices by post" in action and "Rosa Ortiz" in action
    assert "waiting because" in action and "the owner" not in action


# --- Roadstar's own 404 ---------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def quiet_server(stack):
    """daphne on the stack's database with DEBUG off, as someone trying Roadstar runs it."""
    env = {k: v for k, v in stack.env.items() if k != "DEBUG"}
    url = f"http://127.0.0.1:{_free_port()}"
    other = type(stack)(url=url, folder=stack.folder, env=env)
    server = _start(other, "daphne-quiet", [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p",
                                            url.rsplit(":", 1)[1], "roadstar.asgi:application"])
    try:
        _wait_for_http(other, server)
        yield url
    finally:
        _stop(server)


def test_a_missing_page_is_roadstars_404(chromium, quiet_server, stack):
    context = chromium.new_context(base_url=quiet_server, viewport=PHONE)
    page = context.new_page()
    try:
        sign_in(page, type(stack)(url=quiet_server, folder=stack.folder, env={}, seed=stack.seed))
        response = page.goto("/companies/00000000-0000-0000-0000-000000000000/")
        assert response.status == 404
        body = page.locator("body").inner_text()
        assert page.title() == "Not found · Roadstar"
        assert "Page not found (404)" not in body and "URLconf" not in body and "Traceback" not in body
        assert page.locator("h1").is_visible() and page.get_by_role("link", name="Home").first.is_visible()
        assert sideways(page) == 0
    finally:
        context.close()
