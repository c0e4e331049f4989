"""The help group: help.search and help.read over Roadstar's own docs, and the tool pages written from the registry."""

import pytest

from tests.spec import spec_page, spec_tools
from tools import registry
from tools.help import generate
from tools.help.library import library, split_address
from tools.help.search import search

# --- the declarations, against the spec ---------------------------------------------------------------------------


def test_the_help_tools_are_the_specs_word_for_word():
    for name in ("help.search", "help.read"):
        tool, spec = registry.TOOLS[name], spec_tools()[name]
        assert (tool.description, tool.owners_yes, tool.your_work) == (spec["does"], "No", None)


def test_the_help_limits_are_the_specs():
    search_input = registry.TOOLS["help.search"].input_schema()["properties"]
    read_input = registry.TOOLS["help.read"].input_schema()["properties"]
    assert (search_input["query"]["minLength"], search_input["query"]["maxLength"]) == (1, 200)
    assert (search_input["limit"]["minimum"], search_input["limit"]["maximum"]) == (1, 20)
    assert (read_input["page"]["minLength"], read_input["page"]["maxLength"]) == (1, 300)
    page = spec_page("tools/help.md")
    assert "| `query` | text | yes | 1–200 characters |" in page and "| `limit` | whole number | no | 1–20 |" in page


@pytest.mark.parametrize(("field", "value"), [("query", ""), ("query", "x" * 201), ("limit", 0), ("limit", 21)])
def test_search_past_a_limit_is_bad_input_naming_the_field(use, field, value):
    inp = {"query": "mail", field: value}
    result = use("help.search", **inp)
    assert result["error"] == "bad_input" and result["message"].startswith(f"{field}:")


@pytest.mark.parametrize("value", ["", "/" + "x" * 300])
def test_read_past_a_limit_is_bad_input_naming_the_field(use, value):
    result = use("help.read", page=value)
    assert result["error"] == "bad_input" and result["message"].startswith("page:")


def test_a_query_of_only_punctuation_is_bad_input(use):
    result = use("help.search", query="?!")
    assert result["error"] == "bad_input" and result["message"].startswith("query:")


# --- search ---------------------------------------------------------------------------------------------------


def test_search_finds_a_tools_own_part_first_by_its_name(use):
    result = use("help.search", query="mail.send")
    assert result["results"][0]["page"] == "/tools/mail/#send"
    assert result["results"][0]["opens"].startswith("`mail.send` · Send an email")


def test_search_puts_the_part_with_the_most_of_the_words_first():
    docs = library()
    result = search(docs, "not_done_yet refused reason", 20)
    top = result["results"][0]["page"]
    address, part = split_address(top)
    text = docs.get(address).part(part).text if part else docs.get(address).text
    assert all(word in text for word in ("not_done_yet", "refused", "reason"))


def test_search_ranks_by_how_many_words_each_result_has():
    docs = library()
    words = ["invoice", "overdue", "chase"]
    result = search(docs, " ".join(words), 20)

    def count(address_with_part):
        address, part = split_address(address_with_part)
        page = docs.get(address)
        text = (page.part(part).text if part else page.text).lower()
        return sum(1 for w in words if w in text)

    counts = [count(r["page"]) for r in result["results"]]
    assert counts == sorted(counts, reverse=True) and counts[0] == 3


def test_search_counts_every_match_and_returns_at_most_the_limit(use):
    result = use("help.search", query="owner", limit=3)
    assert len(result["results"]) == 3 and result["total"] > 3


def test_search_with_no_match_is_empty_not_an_error(use):
    assert use("help.search", query="zyxwvut") == {"total": 0, "results": []}


def test_search_gives_each_result_its_address_title_and_opening_lines(use):
    first = use("help.search", query="two-minute hold")["results"][0]
    assert set(first) == {"page", "title", "opens"} and first["opens"] and len(first["opens"]) <= 241


def test_search_lists_a_part_rather_than_its_page_when_the_part_has_the_words(use):
    pages = [r["page"] for r in use("help.search", query="mail.send", limit=20)["results"]]
    assert "/tools/mail/#send" in pages and "/tools/mail/" not in pages


# --- read -----------------------------------------------------------------------------------------------------


def test_read_returns_a_whole_page_as_markdown(use):
    result = use("help.read", page="/tools/mail/")
    assert result["page"] == "/tools/mail/" and result["title"] == "Mail"
    assert result["text"].startswith("# Mail\n") and "## send" in result["text"]


def test_read_of_a_part_returns_only_that_part(use):
    result = use("help.read", page="/tools/mail/#send")
    assert result["page"] == "/tools/mail/#send" and result["text"].startswith("## send\n")
    assert "mail.send" in result["text"] and "## draft" not in result["text"] and "## read" not in result["text"]


@pytest.mark.parametrize("written", ["/tools/mail", "tools/mail/", "/help/tools/mail.md", "/tools/mail.md",
                                     "https://roadstar.example/help/tools/mail/"])
def test_read_takes_a_page_as_links_and_urls_write_it(use, written):
    assert use("help.read", page=written)["page"] == "/tools/mail/"


def test_read_of_the_start_page(use):
    assert use("help.read", page="/")["page"] == "/"


def test_read_of_an_unknown_page_is_not_found_naming_it(use):
    result = use("help.read", page="/tools/telepathy/")
    assert result["error"] == "not_found" and "/tools/telepathy/" in result["message"]


def test_read_of_an_unknown_part_is_not_found_naming_it_and_the_parts_there_are(use):
    result = use("help.read", page="/tools/mail/#teleport")
    assert result["error"] == "not_found" and "#teleport" in result["message"] and "#send" in result["message"]


def test_every_part_search_returns_can_be_read(use):
    for r in use("help.search", query="owner yes check", limit=20)["results"]:
        assert "error" not in use("help.read", page=r["page"]), r["page"]


# --- the tool pages, written from the registry ----------------------------------------------------------------


def test_every_tool_has_a_part_on_its_groups_generated_page():
    docs = library()
    for tool in registry.TOOLS.values():
        page = docs.get(f"/tools/{tool.group}/")
        assert page is not None and page.generated, tool.group
        part = page.part(tool.name.partition(".")[2])
        assert part is not None, tool.name
        assert f"`{tool.name}` · {tool.description}" in part.text
        assert generate.yes_note(tool) in part.text


def test_a_tool_part_lists_every_input_with_its_limits():
    part = library().get("/tools/help/").part("search")
    assert "| `query` | text | yes | 1–200 characters |" in part.text
    assert "| `limit` | whole number | no | 1–20 |" in part.text


def test_a_group_page_carries_its_how_to_word_for_word():
    for name, group in registry.GROUPS.items():
        text = library().get(f"/tools/{name}/").text
        assert "\n".join(f"> {line}" if line else ">" for line in group.how_to.splitlines()) in text


def test_a_changed_declaration_changes_its_page(monkeypatch):
    from dataclasses import replace

    tool = registry.TOOLS["help.read"]
    reworded = replace(tool, description="Read a page, reworded")
    monkeypatch.setattr(registry, "TOOLS", registry.TOOLS.with_entry(reworded))
    assert "`help.read` · Read a page, reworded" in library().get("/tools/help/").part("read").text


def test_the_yes_notes_are_the_specs_for_every_built_tool():
    """The spec's words, except that a tool which declares no note for the check doesn't say it may carry one."""
    for name, spec in spec_tools().items():
        if name in registry.TOOLS:
            theirs = spec["yes_note"].removesuffix(" No input. Returns:")
            if registry.TOOLS[name].check_note is None:
                theirs = theirs.removesuffix(" " + generate.NOTE_TOO)
            assert generate.yes_note(registry.TOOLS[name]) == theirs, name


def test_tools_json_is_the_registry():
    listed = generate.tools_json()
    assert [t["name"] for t in listed] == list(registry.TOOLS)
    for entry in listed:
        tool = registry.TOOLS[entry["name"]]
        assert (entry["group"], entry["does"], entry["owners_yes"], entry["input_schema"]) == (
            tool.group, tool.description, tool.owners_yes, tool.input_schema())


def test_tools_json_has_the_specs_shape_and_agrees_with_it_on_built_tools():
    spec = spec_tools()
    for entry in generate.tools_json():
        theirs = spec[entry["name"]]
        assert set(theirs) <= set(entry)
        assert (entry["group"], entry["does"], entry["owners_yes"], entry["your_work"]) == (
            theirs["group"], theirs["does"], theirs["owners_yes"], theirs["your_work"])
        top = {i["name"] for i in entry["inputs"] if "." not in i["name"]}
        assert {i["name"] for i in theirs["inputs"] if "." not in i["name"]} <= top


# --- the hand-written pages stay true to the code -------------------------------------------------------------


def _page_text(address):
    return library().get(address).text


def test_every_link_between_pages_reaches_a_page_and_part():
    import re

    docs = library()
    for page in docs:
        for target in re.findall(r"\]\((/[^)\s]*)\)", page.text):
            if target in ("/llms.txt", "/tools.json"):
                continue
            address, part = split_address(target)
            linked = docs.get(address)
            assert linked is not None, f"{page.address} links {target}"
            assert not part or linked.part(part) is not None, f"{page.address} links {target}"


def test_every_tool_of_a_built_group_a_hand_written_page_names_is_registered():
    import re

    for page in library():
        if page.generated:
            continue
        for group, action in re.findall(r"`([a-z]+)\.([a-z_]+)`", page.text):
            # (`when.ask` is an input, not a tool: only names of groups are held to the registry)
            if group in registry.GROUPS:
                assert f"{group}.{action}" in registry.TOOLS, f"{page.address} names {group}.{action}"


def test_the_limits_page_says_the_limits_the_code_enforces():
    from agents import agent_tools
    from agents import services as agent_services
    from agents.runtime import scheduler, turn
    from core import limits
    from tools.catalog import MAX_BROWSE_GROUPS, MAX_FIND_TOOLS

    text = _page_text("/reference/limits/")
    rows = {
        "Steps in one chat turn": turn.CHAT_STEPS,
        "Steps on one piece of work in a thread": turn.THREAD_STEPS,
        "Groups one `browse_tools` shows": MAX_BROWSE_GROUPS,
        "Tools one `find_tools` loads": MAX_FIND_TOOLS,
        "Open threads per agent": agent_services.MAX_OPEN_THREADS,
        "Threads running at once, per agent": scheduler.MAX_RUNNING_PER_AGENT,
        "Threads running at once, across the workspace": scheduler.MAX_RUNNING_PER_OWNER,
        "Hand-offs deep": agent_tools.MAX_DEPTH,
        "Agents one owner keeps, besides Roadstar": agent_services.MAX_AGENTS,
        "A packet's task": f"{limits.PACKET_TASK:,} characters",
        "A packet's notes": f"{limits.PACKET_NOTES:,} characters",
        "A packet's links": limits.PACKET_LINKS,
        "A job description, its four parts together": f"{limits.JOB_DESCRIPTION:,} characters",
        "What `read_thread` shows from the top": f"{limits.READ_THREAD_BYTES:,} bytes",
        "One note": f"{limits.NOTE:,} characters",
        "All of an agent's notes": f"{limits.NOTES_TOTAL:,} characters",
        "The About": f"{limits.ABOUT:,} characters",
        "A skill's steps": f"{limits.SKILL_STEPS:,} characters",
        "A routine's note": f"{limits.ROUTINE_NOTE:,} characters",
        "What the owner writes in one chat message": f"{limits.MESSAGE:,} characters",
        "One tool result": f"{limits.TOOL_RESULT:,} characters",
    }
    for label, value in rows.items():
        assert f"| {label} | {value} |" in text, label


def test_the_errors_page_explains_every_error_kind_and_reason():
    from checks import reasons
    from core.errors import ERROR_KINDS

    text = _page_text("/reference/errors/")
    for kind in ERROR_KINDS:
        assert f"| `{kind}` |" in text, kind
    for reason in reasons.PRIORITY:
        assert f"| {reasons.outcome_of(reason)} | {reason} |" in text


def test_the_models_page_has_every_model_and_the_default_agents_get():
    from django.conf import settings

    from agents.models import Agent
    from tools.help.library import DEFAULT_MODEL

    assert Agent._meta.get_field("model").default == DEFAULT_MODEL
    text = _page_text("/reference/models/")
    for model_id, config in settings.ROADSTAR_MODELS.items():
        assert f"| `{model_id}`" in text and f"${config['prices']['output']:g} |" in text


def test_every_hand_written_page_opens_with_a_title_and_a_line_on_what_it_is_for():
    for page in library():
        assert page.title and page.summary and not page.summary.startswith(("#", "|", "-")), page.address


def test_the_docs_have_the_pages_the_product_needs():
    addresses = set(library().pages)
    wanted = {"/", "/tools/", "/tools/catalog/", "/reference/limits/", "/reference/errors/", "/reference/models/",
              "/how-it-works/the-owners-yes/", "/how-it-works/home-and-asks/", "/how-it-works/routines-and-skills/",
              "/how-it-works/connecting-apps/"}
    assert wanted <= addresses
    assert len([a for a in addresses if a.startswith("/use-cases/")]) == 7


def test_every_page_of_the_reading_order_exists():
    from tools.help.library import READING_ORDER

    assert set(READING_ORDER) <= set(library().pages)


def test_every_agent_tool_has_a_part_on_the_agent_tools_page_with_where_it_is_offered():
    from agents.runtime.agent_tools import AGENT_TOOLS
    from tools.help.generate import PLACES

    page = library().get("/tools/agent-tools/")
    assert page is not None and page.generated
    for tool in AGENT_TOOLS.values():
        part = page.part(tool.name)
        assert part is not None, tool.name
        if tool.description:
            assert f"`{tool.name}` · {tool.description}" in part.text
        places = set(tool.places) | ({"mac"} if "outside" in tool.places else set())
        marks = " | ".join("Yes" if place in places else "—" for place in PLACES)
        assert f"| [{tool.name}](#{tool.name}) | {marks} |" in page.text


def test_browse_tools_part_on_the_agent_tools_page_lists_the_groups():
    part = library().get("/tools/agent-tools/").part("browse_tools")
    assert "- contacts: the people the business deals with (" in part.text


@pytest.mark.parametrize(("query", "found"), [
    ("not_done_yet", "/how-it-works/the-owners-yes/"),
    ("when.ask", "/how-it-works/routines-and-skills/"),
    ("hand_off", "/tools/agent-tools/#hand_off"),
])
def test_search_finds_the_spec_examples_of_words_to_search_with(use, query, found):
    pages = [r["page"] for r in use("help.search", query=query, limit=5)["results"]]
    assert any(p.startswith(found) for p in pages), pages


def test_a_dotted_name_a_page_writes_apart_counts_where_both_pieces_are():
    from tools.help.search import query_words

    assert query_words("when.ask") == ["when.ask"]
    result = search(library(), "when.ask", 20)
    assert result["total"] > 0


@pytest.mark.parametrize("page", ["../../roadstar/settings/base", "/../../../etc/passwd", "/tools/../../README.md"])
def test_read_never_reaches_a_file_outside_the_docs(use, page):
    assert use("help.read", page=page)["error"] == "not_found"
