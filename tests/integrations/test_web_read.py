"""web_read against a local fake site: main text, passages for an objective, redirects checked hop by hop, the
connection pinned to the checked address, and the limits (size, redirects, time, kinds of page)."""

import gzip
import ssl

import pytest

from core import web_addresses as addresses
from core.errors import ToolError
from integrations.web import fetch
from integrations.web.services import web_read
from tests.integrations.web_fakes import HOURS_PAGE, FakeSite, Route, minimal_pdf, self_signed

pytestmark = pytest.mark.usefixtures("web_on")


def read(*urls, objective=None):
    return web_read(urls=list(urls), objective=objective)


def test_a_page_gives_its_title_and_main_text_without_navigation_or_footer(site):
    site.page("/central", HOURS_PAGE)
    result = read(site.url("/central"))
    assert result["failed"] == []
    [page] = result["pages"]
    assert page["url"] == site.url("/central")
    assert page["title"] == "Central Library"
    assert "closes at 4pm" in page["text"] and "knitting circle" in page["text"]
    assert "Bins and recycling" not in page["text"] and "Privacy" not in page["text"]


def test_with_an_objective_only_the_passages_that_bear_on_it(site):
    site.page("/central", HOURS_PAGE)
    [page] = read(site.url("/central"), objective="When does the library open on Saturday?")["pages"]
    assert "On Saturdays it opens at 10am" in page["text"]
    assert "knitting" not in page["text"] and "80,000 books" not in page["text"]
    [page] = read(site.url("/central"), objective="How much is parking near the library?")["pages"]
    assert "£2 an hour" in page["text"] and "Saturdays" not in page["text"]


def test_a_page_with_nothing_on_the_objective_gives_no_text(site):
    site.page("/central", HOURS_PAGE)
    [page] = read(site.url("/central"), objective="quarterly VAT filing deadline")["pages"]
    assert page["text"] == "" and page["title"] == "Central Library"


def test_the_same_pages_and_objective_give_the_same_passages(site):
    site.page("/central", HOURS_PAGE)
    site.page("/other", "<html><body><p>Saturday market opens at 8am by the quay.</p></body></html>")
    first = read(site.url("/central"), site.url("/other"), objective="Saturday opening")
    assert first == read(site.url("/central"), site.url("/other"), objective="Saturday opening")
    assert "8am" in first["pages"][1]["text"]


def test_up_to_five_pages_are_read_and_each_failure_is_listed_with_why(site):
    site.page("/a", "<html><body><p>Alpha page.</p></body></html>")
    site.page("/gone", "gone", status=410)
    site.page("/busy", "slow down", status=429)
    site.page("/broken", "oops", status=503)
    site.page("/private", "no", status=403)
    result = read(site.url("/a"), site.url("/gone"), site.url("/busy"), site.url("/broken"), site.url("/private"))
    assert [p["url"] for p in result["pages"]] == [site.url("/a")]
    errors = {f["url"].rsplit("/", 1)[1]: f["error"] for f in result["failed"]}
    assert "Nothing at" in errors["gone"] and "HTTP 410" in errors["gone"]
    assert "limiting requests" in errors["busy"]
    assert "didn't answer properly (HTTP 503)" in errors["broken"]
    assert "doesn't let Roadstar read it (HTTP 403)" in errors["private"]


def test_plain_text_and_pdf_are_read(site):
    site.page("/notes.txt", "Delivery on Tuesdays.\nInvoices by the 5th.", **{"Content-Type": "text/plain"})
    site.page("/prices.pdf", minimal_pdf("Sourdough loaf 4.50"), **{"Content-Type": "application/pdf"})
    pages = {p["url"].rsplit("/", 1)[1]: p for p in read(site.url("/notes.txt"), site.url("/prices.pdf"))["pages"]}
    assert pages["notes.txt"]["text"] == "Delivery on Tuesdays.\nInvoices by the 5th."
    assert "Sourdough loaf 4.50" in pages["prices.pdf"]["text"] and pages["prices.pdf"]["title"] == "Price list"


def test_a_kind_of_page_without_text_is_unsupported(site):
    site.page("/logo.png", b"\x89PNG\r\n\x1a\n....", **{"Content-Type": "image/png"})
    site.page("/empty", "<html><body><script>app()</script></body></html>")
    errors = {f["url"].rsplit("/", 1)[1]: f["error"] for f in read(site.url("/logo.png"), site.url("/empty"))["failed"]}
    assert "is image/png, not a page with text" in errors["logo.png"]
    assert "has no text Roadstar can read" in errors["empty"]


# --- redirects --------------------------------------------------------------------------------------------------


def test_redirects_are_followed_to_the_page_they_end_on(site):
    site.redirect("/old", "/newer", status=301)
    site.redirect("/newer", site.url("/central"), status=307)
    site.page("/central", HOURS_PAGE)
    [page] = read(site.url("/old"))["pages"]
    assert page["url"] == site.url("/central") and "4pm" in page["text"]


@pytest.mark.parametrize(
    ("location", "why"),
    [
        ("http://10.0.0.7/admin", "10.0.0.7 is a private network address"),
        ("http://169.254.169.254/latest/meta-data/iam/", "169.254.169.254 is a cloud metadata address"),
        ("http://[::ffff:127.0.0.2]/", "127.0.0.2 is a loopback address"),
        ("http://2130706434/", "127.0.0.2 is a loopback address"),
        ("file:///etc/passwd", "only http and https links can be read, not file"),
        ("gopher://127.0.0.1:6379/_FLUSHALL", "not gopher"),
        ("http://intranet.test/", "intranet.test resolves to 10.9.8.7 is a private network address"),
        ("http://93.184.216.34:6379/", "port 6379 is not one of the web's ports"),
    ],
)
def test_a_redirect_to_a_refused_address_is_refused_and_nothing_is_fetched_there(site, dns, location, why):
    dns({"intranet.test": ["10.9.8.7"]})
    site.redirect("/go", location)
    result = read(site.url("/go"))
    assert result["pages"] == []
    [failed] = result["failed"]
    assert failed["error"].startswith(f"{site.url('/go')} redirected to ")
    assert ", which is refused: " in failed["error"] and why in failed["error"]
    assert [s["path"] for s in site.seen] == ["/go"]


def test_more_than_five_redirects_are_not_followed(site):
    for hop in range(7):
        site.redirect(f"/r{hop}", f"/r{hop + 1}")
    site.page("/r7", "<p>end</p>")
    [failed] = read(site.url("/r0"))["failed"]
    assert "redirects more than 5 times" in failed["error"]
    assert [s["path"] for s in site.seen] == [f"/r{hop}" for hop in range(6)]


# --- the connection goes to the address that was checked --------------------------------------------------------


def test_the_connection_goes_to_the_checked_address_with_the_name_as_host(site, dns):
    # The first answer is the one checked; a rebinding DNS would answer a private address on the next lookup.
    resolver = dns({"shop.test": [["127.0.0.1"], ["10.0.0.1"], ["10.0.0.1"]]})
    site.page("/menu", "<html><body><p>Croissant 2.40</p></body></html>")
    [page] = read(f"http://shop.test:{site.port}/menu")["pages"]
    assert "Croissant 2.40" in page["text"]
    assert site.seen == [{"path": "/menu", "host": f"shop.test:{site.port}"}]
    assert resolver.calls == ["shop.test"]  # resolved once, and the fetch didn't resolve it again


def test_each_redirect_hop_is_resolved_and_pinned_again(site, dns):
    resolver = dns({"shop.test": ["127.0.0.1"], "cdn.test": ["127.0.0.1"]})
    site.redirect("/menu", f"http://cdn.test:{site.port}/menu.html")
    site.page("/menu.html", "<html><body><p>Baguette 1.90</p></body></html>")
    [page] = read(f"http://shop.test:{site.port}/menu")["pages"]
    assert "Baguette" in page["text"] and page["url"] == f"http://cdn.test:{site.port}/menu.html"
    assert resolver.calls == ["shop.test", "cdn.test"]
    assert [s["host"] for s in site.seen] == [f"shop.test:{site.port}", f"cdn.test:{site.port}"]


def test_proxies_from_the_environment_are_not_used(site, monkeypatch):
    monkeypatch.setenv("HTTP_PROXY", "http://10.0.0.99:3128")
    monkeypatch.setenv("ALL_PROXY", "http://10.0.0.99:3128")
    site.page("/a", "<p>Direct.</p>")
    assert read(site.url("/a"))["pages"][0]["text"] == "Direct."


# --- limits -----------------------------------------------------------------------------------------------------


def test_a_page_over_the_size_cap_is_too_large(site, monkeypatch):
    monkeypatch.setattr(fetch, "MAX_BYTES", 10_000)
    site.page("/big", "<p>" + "x" * 20_000 + "</p>")
    site.page("/big-unannounced", "<p>" + "y" * 20_000 + "</p>", **{"omit-length": True})
    site.page("/bomb", gzip.compress(b"<p>" + b"z" * 200_000 + b"</p>"), **{"Content-Encoding": "gzip"})
    errors = [f["error"] for f in read(site.url("/big"), site.url("/big-unannounced"), site.url("/bomb"))["failed"]]
    assert len(errors) == 3 and all("use its link instead" in e for e in errors)


def test_a_page_that_does_not_answer_in_time_is_unavailable(site, monkeypatch):
    monkeypatch.setattr(fetch, "READ_TIMEOUT", 0.5)
    site.routes["/hang"] = Route(hang=True)
    [failed] = read(site.url("/hang"))["failed"]
    assert "didn't answer in time" in failed["error"]


def test_a_page_past_its_deadline_is_unavailable(site, monkeypatch):
    monkeypatch.setattr(fetch, "PAGE_DEADLINE", -1)  # the deadline has passed by the first chunk
    site.page("/slow", "<p>slow</p>")
    [failed] = read(site.url("/slow"))["failed"]
    assert "took too long" in failed["error"]


def test_long_text_is_cut_at_the_cap(site):
    site.page("/long", "<html><body>" + "".join(f"<p>Paragraph {i} " + "word " * 60 + "</p>" for i in range(200))
              + "</body></html>")
    [page] = read(site.url("/long"))["pages"]
    assert len(page["text"]) <= 30_000 + 4 and page["text"].endswith(" […]")


def test_the_same_url_twice_is_read_once(site):
    site.page("/a", "<p>Once.</p>")
    assert len(read(site.url("/a"), site.url("/a"))["pages"]) == 1
    assert len(site.seen) == 1


def test_a_refused_url_fails_the_whole_call_before_anything_is_fetched(site):
    site.page("/a", "<p>A.</p>")
    with pytest.raises(ToolError) as caught:
        read(site.url("/a"), "http://192.168.0.1/")
    assert caught.value.kind == "bad_input"
    assert caught.value.message.startswith("urls[1]: http://192.168.0.1/ is refused: 192.168.0.1 is a private")
    assert site.seen == []


def test_a_name_that_does_not_resolve_is_listed_as_failed(site, dns):
    site.page("/a", "<p>A.</p>")
    result = read(site.url("/a"), "https://nowhere.test/")
    assert [p["text"] for p in result["pages"]] == ["A."]
    assert result["failed"] == [{"url": "https://nowhere.test/",
                                 "error": "https://nowhere.test/: no such host (nowhere.test has no address)."}]


# --- TLS to the pinned address: the name is the server name and what the certificate is checked against -------


@pytest.fixture
def tls_site(tmp_path, monkeypatch):
    cert, key = self_signed("shop.test", tmp_path)
    server_tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_tls.load_cert_chain(cert, key)
    names = []
    server_tls.sni_callback = lambda sock, name, context: names.append(name)
    # The client trusts this one certificate, as it trusts the public authorities in the product.
    monkeypatch.setattr(fetch, "tls_context", lambda: ssl.create_default_context(cafile=str(cert)))
    fake = FakeSite(tls=server_tls)
    fake.server_names = names
    with addresses.allowing_for_tests("127.0.0.1"):
        yield fake
    fake.close()


def test_https_connects_to_the_checked_address_with_the_name_for_sni_and_the_certificate(tls_site, dns):
    dns({"shop.test": [["127.0.0.1"], ["10.0.0.1"]]})
    tls_site.page("/menu", "<p>Tarte 3.10</p>")
    [page] = read(tls_site.url("/menu", host="shop.test", scheme="https"))["pages"]
    assert page["text"] == "Tarte 3.10"
    assert tls_site.server_names == ["shop.test"]
    assert tls_site.seen == [{"path": "/menu", "host": f"shop.test:{tls_site.port}"}]


def test_https_to_a_name_the_certificate_is_not_for_fails(tls_site, dns):
    dns({"other.test": ["127.0.0.1"]})
    tls_site.page("/menu", "<p>Tarte 3.10</p>")
    [failed] = read(tls_site.url("/menu", host="other.test", scheme="https"))["failed"]
    assert "couldn't be reached (ConnectError)" in failed["error"]
    assert tls_site.seen == []


@pytest.mark.parametrize("location", ["http://[::1", "//[zz]/", "http://ex\tample/\x7f"])
def test_a_redirect_to_a_broken_link_is_listed_as_failed(site, location):
    site.redirect("/go", location)
    site.page("/ok", "<p>Fine.</p>")
    result = read(site.url("/go"), site.url("/ok"))
    assert [p["text"] for p in result["pages"]] == ["Fine."]
    [failed] = result["failed"]
    assert failed["url"] == site.url("/go") and "redirected to" in failed["error"]
