"""In a real browser (Debian's Chromium, driven by Playwright): a doc's chart is drawn from the vendored vega-embed,
with no request leaving Roadstar, and a spec that tries to load an address draws nothing of it.

Skips when Playwright or Chromium isn't installed (`scripts/ensure-chromium` installs Chromium for `make test`).
"""

from __future__ import annotations

import json
import os
import shutil

import pytest
from django.urls import reverse

from core.actors import Actor
from docs import services as doc_services
from tests.pages.test_mdx import SPEC

CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
# As root in a container Chromium needs --no-sandbox; the rest keep it from reaching out on its own.
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]

playwright_api = pytest.importorskip("playwright.sync_api", reason="Playwright isn't installed")
pytestmark = [
    pytest.mark.skipif(not shutil.which(CHROMIUM), reason=f"no Chromium at {CHROMIUM}"),
    pytest.mark.django_db(transaction=True),
]


def open_doc(live_server, client, org, doc, violations: list | None = None):
    """Load the doc's page signed in as the owner; returns (what the page drew, addresses asked for elsewhere).

    `violations` collects what the page's Content-Security-Policy refused (directive and address), if given.
    """
    client.force_login(org.owner)
    session = client.cookies["sessionid"].value
    url = live_server.url + reverse("pages:doc", args=[doc.id])
    outside: list[str] = []
    with playwright_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            context = browser.new_context()
            context.add_cookies([{"name": "sessionid", "value": session, "url": live_server.url}])
            # Playwright's init scripts run outside the page's CSP, so this listener sees every refusal.
            context.add_init_script(
                "window.__refused = []; document.addEventListener('securitypolicyviolation', e => "
                "window.__refused.push(e.violatedDirective + ' ' + (e.blockedURI || 'inline')));"
            )
            page = context.new_page()
            page.on("request", lambda r: None if r.url.startswith(live_server.url) else outside.append(r.url))
            page.goto(url)
            page.wait_for_selector("[data-chart][data-drawn], .chart__view--failed", timeout=15_000)
            drawn = page.evaluate(
                """() => [...document.querySelectorAll('[data-chart]')].map(v => ({
                    drawn: v.getAttribute('data-drawn') === 'true',
                    bars: v.querySelectorAll('svg .mark-rect path').length,
                    texts: [...v.querySelectorAll('svg text')].map(t => t.textContent),
                    failed: v.classList.contains('chart__view--failed'),
                    // the Save links: in vega-embed's menu, closed (not a bare list over the bars)
                    menu: v.querySelector('details') ? (v.querySelector('details').open ? 'open' : 'closed') : 'none',
                    message: v.textContent.trim(),
                }))"""
            )
            if violations is not None:
                page.wait_for_timeout(300)  # a refusal is reported as an event just after it happens
                violations += page.evaluate("() => window.__refused")
        finally:
            browser.close()
    return drawn, outside


@pytest.fixture
def charted(org, agent):
    def make(spec: dict):
        version = doc_services.doc_write(
            org=org,
            actor=Actor.for_agent(agent),
            title="Hours",
            project=_project(org),
            text='## Hours\n\n<Chart title="Hours by client">\n```vega-lite\n' + json.dumps(spec) + "\n```\n</Chart>\n",
        )
        return version.doc

    return make


def _project(org):
    from records.models import Project

    return Project.objects.create(organization=org, name="Reports")


def test_a_chart_is_drawn_in_the_page(live_server, client, org, charted):
    violations: list[str] = []
    drawn, outside = open_doc(live_server, client, org, charted(SPEC), violations)
    chart = drawn[0]
    assert (
        chart["drawn"]
        and chart["bars"] == 4
        and "Juniper Dental" in chart["texts"]
        and chart["menu"] == "closed"
        and any(t.startswith("</script><script>alert(") for t in chart["texts"])
        and outside == []
        and violations == []  # drawn under the Content-Security-Policy, which refused nothing the page needs
    )


def test_a_spec_that_loads_an_address_draws_nothing_from_it(live_server, client, org, charted):
    spec = {
        "data": {"values": [{"x": 1}]},
        "mark": "image",
        "encoding": {"url": {"value": "https://evil.test/pixel.png"}, "x": {"field": "x", "type": "quantitative"}},
    }
    drawn, outside = open_doc(live_server, client, org, charted(spec))
    assert outside == []
