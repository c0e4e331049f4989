"""The MDX renderer: Markdown, each component, what it refuses (raw HTML, javascript: links, fetched data), the
chart's JSON reaching the page intact, and roadstar links."""

from __future__ import annotations

import html
import json
import re

import pytest

from pages import mdx
from pages.links import WorkspaceLinks
from tests.factories import AgentFactory, CompanyFactory, ContactFactory, DocFactory, ProjectFactory


def render(text: str, **kw) -> str:
    return str(mdx.render(text, **kw).html)


class Known:
    """A stand-in for the workspace's links: these (kind, id) have pages."""

    def __init__(self, *refs):
        self.refs = set(refs)
        self.prepared: list[set] = []

    def prepare(self, refs):
        self.prepared.append(set(refs))

    def url(self, kind, id_):
        return f"/{kind}s/{id_}/" if (kind, id_) in self.refs else None


def chart_specs(page: str) -> dict:
    """Every JSON script of the page by its id, parsed as the browser would read it."""
    found = re.findall(r'<script id="([^"]+)" type="application/json">(.*?)</script>', page, re.S)
    return {element_id: json.loads(body) for element_id, body in found}


# --- Markdown ---------------------------------------------------------------------------------------------


def test_markdown_headings_lists_bold_and_links():
    out = render("## Scope\n\n- **Logo** and [the guide](https://example.test/guide)\n")
    assert (
        "<h2>Scope</h2>" in out
        and "<li><strong>Logo</strong> and " in out
        and 'href="https://example.test/guide"' in out
    )


def test_table_columns_keep_their_alignment():
    out = render("| Item | Price | Note |\n| :--- | ---: | :---: |\n| Logo | $4,800 | ok |\n")
    assert (
        '<th style="text-align:left">Item</th>' in out
        and '<th style="text-align:right">Price</th>' in out
        and '<td style="text-align:right">$4,800</td>' in out
        and '<td style="text-align:center">ok</td>' in out
    )


def test_external_links_carry_noopener():
    assert 'rel="noopener noreferrer nofollow"' in render("[site](https://example.test)")


def test_indented_text_in_a_component_is_text_not_code():
    out = render("<Callout>\n    Four spaces in, still a paragraph.\n</Callout>")
    assert "<p>Four spaces in, still a paragraph.</p>" in out and "<pre>" not in out


def test_a_fenced_code_block_shows_as_code():
    out = render("```python\nprint('<b>')\n```\n")
    assert '<pre><code class="language-python">print(&#x27;&lt;b&gt;&#x27;)\n</code></pre>' in out


# --- what is refused --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "raw",
    [
        "<script>alert(1)</script>",
        '<img src=x onerror="alert(1)">',
        "<div onclick='x()'>hi</div>",
        '<iframe src="https://evil.test"></iframe>',
        "<style>body{display:none}</style>",
    ],
)
def test_raw_html_is_escaped(raw):
    out = render(f"Before {raw} after\n\n{raw}\n")
    assert "<script" not in out and "<img" not in out and "<div" not in out and "<iframe" not in out and (
        "<style" not in out
    ) and html.escape(raw, quote=False).split(" ")[0] in out


@pytest.mark.parametrize(
    "link",
    [
        "[click](javascript:alert(1))",
        "[click](JavaScript:alert(1))",
        "[click](javascript&colon;alert(1))",
        "[click](  javascript:alert(1))",
        "[click](vbscript:msgbox(1))",
        "[click](data:text/html;base64,PHNjcmlwdD4=)",
        "<javascript:alert(1)>",
        "[click][ref]\n\n[ref]: javascript:alert(1)",
    ],
)
def test_script_links_stay_plain_text(link):
    out = render(link).lower()
    assert "<a " not in out and "href" not in out


PIXEL = ("data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9aw"
         "AAAABJRU5ErkJggg==")
# Addresses a doc's image never loads: other sites (a tracker learns when and where the owner reads the doc),
# other schemes, and Roadstar addresses outside its static files.
NOT_SHOWN = [
    "https://tracker.test/pixel.png?doc=1",
    "http://example.test/logo.png",
    "//evil.test/logo.png",
    "javascript:alert(1)",
    "data:image/svg+xml;base64,PHN2Zz4=",
    "data:text/html;base64,PHNjcmlwdD4=",
    "logo.png",
    "/admin/logout/",
    "/static/../admin/",
    "/static/x/../../admin/",
    "file:///etc/passwd",
]


@pytest.mark.parametrize("src", NOT_SHOWN)
def test_images_are_only_the_docs_own_or_roadstars(src):
    out = render(f"![logo]({src})")
    assert "<img" not in out and "logo" in out


@pytest.mark.parametrize("src", [PIXEL, "/static/roadstar/favicon.svg"])
def test_markdown_image_embedded_or_roadstars_own_is_shown(src):
    assert f'<img src="{src}" alt="logo" loading="lazy">' in render(f"![logo]({src})")


def test_a_link_to_an_embedded_picture_stays_plain_text():
    out = render(f"[open it]({PIXEL})")
    assert "<a " not in out and "open it" in out


def test_unknown_components_show_as_text():
    out = render("<Tabs><Tab>one</Tab></Tabs>")
    assert "&lt;Tabs&gt;&lt;Tab&gt;one&lt;/Tab&gt;&lt;/Tabs&gt;" in out


def test_event_handler_attributes_on_a_component_are_dropped():
    out = render('<Callout tone="warning" onClick={alert(1)} style="x">Careful</Callout>')
    assert "onclick" not in out.lower() and "alert" not in out and "style" not in out and "Careful" in out


def test_attribute_code_is_never_run_only_read_as_a_literal():
    with pytest.raises(ValueError):
        mdx.parse_literal("fetch('/x').then(r => r)")


def test_a_tag_inside_inline_code_is_text():
    out = render("Write `<Callout>` to make one.")
    assert "<code>&lt;Callout&gt;</code>" in out and "<aside" not in out


def test_a_tag_inside_a_code_fence_is_text():
    out = render("```mdx\n<Callout tone=\"danger\">x</Callout>\n```\n")
    assert "<aside" not in out and "&lt;Callout" in out


def test_a_closing_tag_with_nothing_open_is_text():
    assert "&lt;/Columns&gt;" in render("Done.</Columns>")


# --- Callout ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tone", "css"),
    [("warning", "warning"), ("caution", "warning"), ("danger", "danger"), ("tip", "success"), ("info", "info"),
     ("nonsense", "info")],
)
def test_callout_takes_a_tone(tone, css):
    out = render(f'<Callout tone="{tone}">Check the **dates**.</Callout>')
    assert f'<aside class="callout callout--{css}" role="note">' in out and "<strong>dates</strong>" in out


def test_callout_tone_is_never_written_into_the_page_as_given():
    out = render('<Callout tone="x&quot; onmouseover=&quot;alert(1)">Hi</Callout>')
    assert 'class="callout callout--info"' in out and "onmouseover" not in out


def test_callout_title_is_escaped():
    out = render('<Callout title="<b>Due</b> Friday">x</Callout>')
    assert '<p class="callout__title">&lt;b&gt;Due&lt;/b&gt; Friday</p>' in out


# --- Figure -----------------------------------------------------------------------------------------------


def test_figure_shows_its_image_and_caption():
    out = render(f'<Figure src="{PIXEL}" alt="The sign" caption="Reception, option B" />')
    assert (
        f'<img src="{PIXEL}" alt="The sign" loading="lazy">' in out
        and "<figcaption>Reception, option B</figcaption>" in out
    )


def test_figure_takes_one_of_roadstars_static_files():
    assert '<img src="/static/sign.png"' in render('<Figure src="/static/sign.png" caption="x" />')


def test_figure_caption_may_be_its_children():
    out = render(f'<Figure src="{PIXEL}">The **new** sign</Figure>')
    assert "<figcaption><p>The <strong>new</strong> sign</p></figcaption>" in out


@pytest.mark.parametrize("src", [*NOT_SHOWN, " java\tscript:alert(1)"])
def test_figure_refuses_addresses_that_are_not_its_own_or_roadstars(src):
    out = render(f'<Figure src="{src}" caption="Logo" />')
    assert (
        "<img" not in out
        and "a doc shows only a picture embedded in the doc (data:image/…) or one of Roadstar&#x27;s own" in out
        and "<figcaption>Logo</figcaption>" in out
    )


def test_figure_caption_is_escaped():
    out = render('<Figure src="/a.png" caption="<script>x</script>" />')
    assert "<script>" not in out and "&lt;script&gt;" in out


# --- Columns ----------------------------------------------------------------------------------------------


def test_columns_hold_their_columns():
    out = render(
        "<Columns>\n<Column>\n## Before\nOld logo\n</Column>\n<Column>\n## After\nNew logo\n</Column>\n</Columns>"
    )
    assert re.search(
        r'<div class="columns"><div class="column"><h2>Before</h2>\s*<p>Old logo</p>\s*</div>\s*'
        r'<div class="column"><h2>After</h2>\s*<p>New logo</p>\s*</div>\s*</div>',
        out,
    )


def test_columns_written_on_one_line():
    out = render("<Columns><Column>Left</Column><Column>Right</Column></Columns>")
    assert out.count('<div class="column">') == 2 and "<p>Left</p>" in out and "<p>Right</p>" in out


def test_a_column_left_open_closes_with_its_columns():
    out = render("<Columns><Column>Left</Columns>\n\nAfter")
    assert '<div class="columns"><div class="column"><p>Left</p>' in out and out.rstrip().endswith("<p>After</p>")


# --- MetricGrid -------------------------------------------------------------------------------------------


def test_metric_grid_from_an_attribute_list():
    out = render(
        "<MetricGrid items={[{label: 'Overdue', value: '$6,200', trend: '+12%'}, "
        '{"label": "Paid", "value": 4, "trend": "-2"}]} />'
    )
    assert (
        '<dt class="metric__label">Overdue</dt><dd class="metric__value">$6,200</dd>'
        '<dd class="metric__trend metric__trend--up">+12%</dd>' in out
        and '<dd class="metric__value">4</dd><dd class="metric__trend metric__trend--down">-2</dd>' in out
    )


def test_metric_grid_from_metric_children():
    out = render('<MetricGrid>\n<Metric label="Invoices" value="12" trend="0" />\n</MetricGrid>')
    assert '<dt class="metric__label">Invoices</dt><dd class="metric__value">12</dd>' in out and "trend--flat" in out


def test_metric_grid_from_lines():
    out = render("<MetricGrid>\n- **Hours**: 126 (+8)\n- Clients: 9\n</MetricGrid>")
    assert (
        '<dt class="metric__label">Hours</dt><dd class="metric__value">126</dd>' in out
        and '<dt class="metric__label">Clients</dt><dd class="metric__value">9</dd>' in out
    )


def test_metric_values_are_escaped():
    out = render('<MetricGrid items={[{"label": "<b>x</b>", "value": "<img src=x>"}]} />')
    assert "<b>" not in out and "<img" not in out and "&lt;img src=x&gt;" in out


def test_an_empty_metric_grid_says_so():
    assert "A MetricGrid has no figures to show." in render("<MetricGrid></MetricGrid>")


# --- Chart ------------------------------------------------------------------------------------------------

SPEC = {
    "$schema": "https://vega.github.io/schema/vega-lite/v6.json",
    "mark": "bar",
    "data": {"values": [
        {"client": "Juniper Dental", "hours": 42.5},
        {"client": "</script><script>alert('x')</script>", "hours": 3},
        {"client": "Ampersand & Sons “quoted”", "hours": 0.125},
        {"client": "Ünïcödé ☃", "hours": -1e-3},
    ]},
    "encoding": {"x": {"field": "client", "type": "nominal"}, "y": {"field": "hours", "type": "quantitative"}},
}


def chart(spec_text: str, attrs: str = "", caption: str = "") -> str:
    return f"<Chart{attrs}>\n```vega-lite\n{spec_text}\n```\n{caption}</Chart>\n"


def test_chart_data_reaches_the_page_intact():
    rendered = mdx.render(chart(json.dumps(SPEC, indent=2)), id_prefix="doc-chart")
    assert rendered.charts == ["doc-chart-1"] and chart_specs(str(rendered.html)) == {"doc-chart-1-spec": SPEC}


def test_chart_json_is_passed_as_a_json_script_never_as_html():
    out = render(chart(json.dumps(SPEC)))
    script = re.search(r'<script id="chart-1-spec" type="application/json">(.*?)</script>', out, re.S).group(1)
    assert "</script>" not in script and "<script>" not in script and "\\u003C/script\\u003E" in script


def test_chart_element_points_at_its_spec():
    out = render(chart(json.dumps(SPEC), ' title="Hours by client"', "Week of Nov 2."))
    assert (
        '<div class="chart__view" id="chart-1" data-chart="chart-1-spec" role="img" aria-label="Hours by client">'
        in out
        and '<p class="chart__title">Hours by client</p><p>Week of Nov 2.</p>' in out
    )


def test_two_charts_get_two_ids():
    out = mdx.render(chart(json.dumps(SPEC)) + "\n" + chart(json.dumps(SPEC | {"mark": "line"})))
    assert out.charts == ["chart-1", "chart-2"] and chart_specs(str(out.html))["chart-2-spec"]["mark"] == "line"


def test_chart_drops_usermeta_where_vega_embed_would_take_options():
    spec = SPEC | {"usermeta": {"embedOptions": {"loader": {"baseURL": "https://evil.test/"}, "actions": True}}}
    assert "usermeta" not in chart_specs(render(chart(json.dumps(spec))))["chart-1-spec"]


@pytest.mark.parametrize(
    "spec",
    [
        {"mark": "bar", "data": {"url": "https://evil.test/data.csv"}},
        {"layer": [{"mark": "line", "data": {"url": "data/x.json"}}]},
        {"mark": "bar", "data": {"values": []},
         "transform": [{"lookup": "a", "from": {"data": {"url": "x.csv"}, "key": "a"}}]},
        # Vega's own form, a list of data sets, which vega-embed draws as Vega when $schema says so.
        {"$schema": "https://vega.github.io/schema/vega/v6.json",
         "data": [{"name": "t", "url": "https://evil.test/t.json"}]},
        {"mark": "bar", "data": [{"values": []}, {"url": "https://evil.test/t.json"}]},
        {"data": [{"name": "t", "url": {"signal": "'https://evil.test/' + 'x'"}}], "marks": []},
        {"mark": "bar", "data": {"values": []},
         "transform": [{"lookup": "a", "from": {"data": [{"url": "x.csv"}], "key": "a"}}]},
        {"vconcat": [{"facet": {"row": {"field": "a"}}, "spec": {"layer": [{"data": {"url": "deep.json"}}]}}]},
        {"marks": [{"type": "group", "data": [{"name": "inner", "url": "https://evil.test/inner.json"}]}]},
    ],
)
def test_chart_that_fetches_its_data_is_not_drawn(spec):
    rendered = mdx.render(chart(json.dumps(spec)))
    assert rendered.charts == [] and "its data must be inline" in str(rendered.html) and "<script" not in str(
        rendered.html
    )


def test_chart_rows_may_carry_a_url_field_as_data():
    spec = {"mark": "bar", "data": {"values": [{"url": "https://juniper.test", "visits": 3}]},
            "encoding": {"x": {"field": "url", "type": "nominal"}, "y": {"field": "visits", "type": "quantitative"}}}
    assert mdx.render(chart(json.dumps(spec))).charts == ["chart-1"]


def test_chart_with_broken_json_says_so_and_the_doc_goes_on():
    rendered = mdx.render(chart('{"mark": "bar",, }') + "\nAfter the chart.")
    assert (
        rendered.charts == []
        and "its vega-lite JSON has an error" in str(rendered.html)
        and "<p>After the chart.</p>" in str(rendered.html)
    )


def test_chart_without_a_block_says_so():
    assert "it holds no ```vega-lite block" in render("<Chart>Revenue went up.</Chart>")


def test_chart_json_that_is_not_an_object_is_not_drawn():
    assert "is not an object" in render(chart("[1, 2, 3]"))


def test_chart_reads_a_json_fence_too():
    assert mdx.render('<Chart>\n```json\n{"mark": "bar", "data": {"values": []}}\n```\n</Chart>').charts == ["chart-1"]


# --- roadstar links ---------------------------------------------------------------------------------------


def test_roadstar_link_goes_to_the_records_page():
    links = Known(("contact", "c1"))
    out = render("Write to [Dana](roadstar:contact/c1).", links=links)
    assert '<a href="/contacts/c1/" class="ref ref--contact">Dana</a>' in out


def test_roadstar_links_of_the_whole_doc_are_resolved_at_once():
    links = Known()
    render("[a](roadstar:contact/1)\n\n<Callout>[b](roadstar:doc/2)</Callout>\n\n[c](roadstar:agent/3)", links=links)
    assert links.prepared == [{("contact", "1"), ("doc", "2"), ("agent", "3")}]


@pytest.mark.parametrize(
    "href", ["roadstar:spaceship/1", "roadstar:contact/unknown-id", "roadstar:email/7c41e2d0:19a2", "roadstar:contact"]
)
def test_roadstar_link_without_a_page_is_plain_text(href):
    out = render(f"See [the thing]({href}) now.", links=Known(("contact", "c1")))
    assert "<p>See the thing now.</p>" in out


def test_roadstar_link_without_a_resolver_is_plain_text():
    assert "<p>See Dana.</p>" in render("See [Dana](roadstar:contact/c1).")


def test_workspace_links_go_to_the_workspaces_own_records(org, other_org):
    contact = ContactFactory(organization=org)
    company = CompanyFactory(organization=org)
    doc = DocFactory(organization=org)
    agent = AgentFactory(organization=org, name="Bookkeeper")
    project = ProjectFactory(organization=org)
    theirs = ContactFactory(organization=other_org, name="Not yours")
    out = render(
        f"[c](roadstar:contact/{contact.id}) [co](roadstar:company/{company.id}) [d](roadstar:doc/{doc.id}) "
        f"[a](roadstar:agent/{agent.id}) [p](roadstar:project/{project.id}) [x](roadstar:contact/{theirs.id})",
        links=WorkspaceLinks(org),
    )
    assert (
        f'href="/contacts/{contact.id}/"' in out
        and f'href="/companies/{company.id}/"' in out
        and f'href="/docs/{doc.id}/"' in out
        and f'href="/agents/#agent-{agent.id}"' in out
        and f'href="/docs/?project={project.id}"' in out
        and str(theirs.id) not in out
        and " x</p>" in out
    )


def test_workspace_links_cost_one_query_a_kind(org, django_assert_num_queries):
    contacts = [ContactFactory(organization=org) for _ in range(5)]
    text = " ".join(f"[c{i}](roadstar:contact/{c.id})" for i, c in enumerate(contacts)) + " [e](roadstar:email/x:1)"
    with django_assert_num_queries(1):
        out = render(text, links=WorkspaceLinks(org))
    assert out.count('class="ref ref--contact"') == 5


# --- the parts of a literal -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ('{"a": [1, 2.5, null, true]}', {"a": [1, 2.5, None, True]}),
        ("{a: 'x', b: \"y\", c: [1, 2,], }", {"a": "x", "b": "y", "c": [1, 2]}),
        ("[{label: 'It\\'s', value: -3e2}]", [{"label": "It's", "value": -300.0}]),
        ("`plain`", "plain"),
    ],
)
def test_literals_are_read_without_running_anything(text, value):
    assert mdx.parse_literal(text) == value


@pytest.mark.parametrize("text", ["alert(1)", "`${document.cookie}`", "{a: b}", "[1, 2", "new Date()"])
def test_anything_but_a_literal_is_refused(text):
    with pytest.raises(ValueError):
        mdx.parse_literal(text)


def test_a_component_attribute_that_is_code_is_reported_and_the_rest_renders():
    rendered = mdx.render("<MetricGrid items={fetchFigures()} />\n\nAfter.")
    assert "MetricGrid&#x27;s items couldn&#x27;t be read" in str(rendered.html) and "<p>After.</p>" in str(
        rendered.html
    )


def test_deep_nesting_stops_at_a_limit_and_still_renders():
    text = "<Callout>" * 50 + "deep" + "</Callout>" * 50
    out = render(text)
    assert out.count("<aside") == mdx.MAX_DEPTH and "deep" in out


def test_empty_text_renders_nothing():
    assert render("") == "" and mdx.render(None).charts == []


# --- what a doc may cost ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        " ".join("`" * (i % 7 + 1) for i in range(30_000)),  # backtick runs that rarely close
        "<Callout a={" * 8_000,  # tags that never end
        '<Columns x="' * 8_000,
        "<MetricGrid>\n- a: x" + " " * 60_000 + "(\n</MetricGrid>",  # a line the metric pattern can't match
        "<Callout>" * 20_000,
    ],
    ids=["backticks", "open-braces", "open-quotes", "metric-line", "many-tags"],
)
def test_no_text_makes_the_page_slow(text):
    import time

    started = time.perf_counter()
    mdx.render(text[:100_000])
    assert time.perf_counter() - started < 5


def test_nan_in_a_chart_is_refused():
    assert "its vega-lite JSON has an error" in render(chart('{"mark": "bar", "data": {"values": [{"a": NaN}]}}'))
