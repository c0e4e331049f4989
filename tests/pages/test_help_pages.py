"""Roadstar's own docs on the web: /help/… for people, .md for agents, /llms.txt, /llms-full.txt and /tools.json.
They are public product docs: none asks for a sign-in."""

import json
from dataclasses import replace

import pytest

from tools import registry
from tools.help import generate
from tools.help.library import library


def test_every_page_is_served_as_html_to_anyone(client, db):
    for page in library():
        response = client.get("/help" + page.address)
        assert response.status_code == 200, page.address
        assert response["Content-Type"].startswith("text/html")
        assert f"<h1 id=\"help-title\">{page.title}</h1>" in response.content.decode().replace("&#x27;", "'")


def test_every_page_is_served_as_markdown_with_md_added(client, db):
    for page in library():
        url = "/help/index.md" if page.address == "/" else f"/help{page.address.rstrip('/')}.md"
        response = client.get(url)
        assert response.status_code == 200, url
        assert response["Content-Type"] == "text/markdown; charset=utf-8"
        assert response.content.decode().startswith(f"# {page.title}\n")


def test_the_plain_address_gives_markdown_to_an_agent_that_asks_for_it(client, db):
    response = client.get("/help/tools/mail/", HTTP_ACCEPT="text/markdown")
    assert response["Content-Type"] == "text/markdown; charset=utf-8" and "Accept" in response["Vary"]
    assert response.content.decode().startswith("# Mail\n")


def test_links_between_pages_point_where_the_pages_are_served(client, db):
    html = client.get("/help/tools/mail/").content.decode()
    markdown = client.get("/help/tools/mail.md").content.decode()
    assert 'href="/help/reference/errors/"' in html and "(/help/reference/errors.md)" in markdown
    assert 'id="send"' in html  # the part help.read calls /tools/mail/#send


@pytest.mark.parametrize("url", ["/help/tools/telepathy/", "/help/tools/telepathy.md", "/help/no/such/page/"])
def test_an_unknown_page_is_a_404(client, db, url):
    assert client.get(url).status_code == 404


def test_a_tools_description_is_escaped_on_the_page(client, db, monkeypatch):
    tool = registry.TOOLS["help.read"]
    hostile = 'Read <script>alert(1)</script> and <img src=x onerror=alert(2)> [x](javascript:alert(3))'
    monkeypatch.setattr(registry, "TOOLS", registry.TOOLS.with_entry(replace(tool, description=hostile)))
    html = client.get("/help/tools/help/").content.decode()
    assert "<script>alert" not in html and "<img src=x" not in html and 'href="javascript:' not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_posting_to_a_page_is_refused(client, db):
    assert client.post("/help/tools/mail/").status_code == 405


def test_llms_txt_lists_every_page_with_its_markdown_address_and_summary(client, db):
    response = client.get("/llms.txt")
    text = response.content.decode()
    assert response.status_code == 200 and response["Content-Type"].startswith("text/plain")
    assert text.startswith("# ") and "\n> " in text
    for page in library():
        url = "http://testserver" + ("/help/index.md" if page.address == "/" else f"/help{page.address.rstrip('/')}.md")
        assert f"- [{page.title}]({url}): {page.summary}" in text, page.address


def test_llms_full_txt_holds_every_page(client, db):
    text = client.get("/llms-full.txt").content.decode()
    for page in library():
        assert f"# {page.title}\n" in text


def test_tools_json_is_every_tool_as_the_registry_declares_it(client, db):
    response = client.get("/tools.json")
    assert response.status_code == 200 and response["Content-Type"] == "application/json"
    assert json.loads(response.content) == json.loads(json.dumps(generate.tools_json()))
    assert [t["name"] for t in json.loads(response.content)] == list(registry.TOOLS)


def test_the_docs_need_no_sign_in(client, db):
    for url in ("/help/", "/help/tools/mail.md", "/llms.txt", "/llms-full.txt", "/tools.json"):
        response = client.get(url)
        assert response.status_code == 200 and "login" not in response.get("Location", ""), url


def test_a_signed_in_owner_reads_them_in_the_sites_frame(client, org):
    client.force_login(org.owner)
    html = client.get("/help/how-it-works/the-owners-yes/").content.decode()
    assert 'class="nav' in html and "The owner&#x27;s yes" in html


@pytest.mark.parametrize("url", ["/help/..%2F..%2Froadstar%2Fsettings%2Fbase.md", "/help/../manage.md",
                                 "/help/tools/../../README.md", "/help/%2e%2e/ARCHITECTURE.md"])
def test_no_address_reads_a_file_outside_the_docs(client, db, url):
    response = client.get(url)
    assert response.status_code in (404, 301) and b"SECRET_KEY" not in response.content
