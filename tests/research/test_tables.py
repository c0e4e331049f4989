"""Research tables through use_tool: a table planned, checked with its cost, built from a local web on the scripted
model; every limit and error of spec/tools/tables.md; workers that die mid-run; the cap; another workspace."""

from __future__ import annotations

import pytest
from django.db.models import Sum
from django.urls import reverse

from agents.models import Usage
from agents.runtime.model import ScriptedModel, set_model
from checks.models import Ask, CheckDecision
from core.actors import Actor
from core.context import ToolContext
from research import services, table_run
from research.models import Dataset, DatasetRow, DatasetRun, DatasetSource
from tests.factories import AgentFactory, ProjectFactory
from tests.research.table_fakes import BAKERIES, VAGUE, cells_answer, plan_answer, row_of, rows_answer
from tools.pipeline import use_tool


class WorkerDied(BaseException):
    """What a killed worker looks like from inside: nothing after it runs, not even `except Exception`."""


@pytest.fixture
def model():
    scripted = ScriptedModel()
    set_model(scripted)
    yield scripted
    set_model(None)


@pytest.fixture
def tables_on(org):
    services.research_settings_set(org=org, tables=True)
    return org


@pytest.fixture
def queued(monkeypatch):
    """The worker's queue, kept here: each task queued is (func, run id)."""
    tasks: list[tuple[str, str]] = []
    monkeypatch.setattr("django_q.tasks.async_task", lambda func, *args, **kw: tasks.append((func, *args)))
    return tasks


def work_off(run_id) -> None:
    """Run the run's work in this process, as the worker's tasks would, until nothing is left to claim."""
    for _ in range(50):
        if table_run.run_work(run_id) != "more":
            return
    raise AssertionError("the run never finished")


def use(ctx, tool, **inp):
    return use_tool(ctx, tool, inp)


def build(ctx, model, *, max_rows=25, question="Every bakery in Harbor: when it was founded and if it delivers"):
    model.add(plan_answer)
    result = use(ctx, "tables.build", question=question, maxRows=max_rows)
    assert "error" not in result, result
    return result


def researched(model, rows):
    model.add(rows_answer, *[cells_answer] * rows)


# --- a table built end to end ----------------------------------------------------------------------------------


def test_a_25_row_table_asked_with_its_cost_yes_on_home_built_though_a_worker_dies_mid_run(
        org, agent, client, tables_on, local_web, model, queued, django_capture_on_commit_callbacks):
    """The issue's run: the check asks with the plan and its cost, the owner says yes on Home, the build runs on
    the same plan; a worker dies mid-run and another finishes: no row researched twice, none lost, spend under the
    cap, every cell's quote found in the page it cites."""
    words = [{"role": "owner", "text": "Build me a table of every bakery in Harbor: when each was founded and "
                                       "whether it delivers."}]
    ctx = ToolContext(org=org, actor=Actor.for_agent(agent), conversation_id="thread-9", conversation=lambda: words)
    question = "Every bakery in Harbor: when it was founded and if it delivers"
    model.add(plan_answer)
    held = use(ctx, "tables.build", question=question)
    assert set(held) == {"not_done_yet"} and not Dataset.objects.exists()
    client.force_login(org.owner)
    page = client.get(reverse("home")).content.decode()
    assert "Build a research table" in page and "It costs money: building this table of up to 25 rows" in page
    ask = Ask.objects.get(organization=org)
    assert client.post(reverse("ask_answer", args=[ask.id]), {"yes": "1", "answer": ""}).status_code == 302

    with django_capture_on_commit_callbacks(execute=True):
        result = use(ctx, "tables.build", question=question)
    assert [t[0] for t in queued if t[0].startswith("research.")] == ["research.tasks.table_work"]
    run = result["run"]
    assert (run["kind"], run["status"], run["rowsTotal"]) == ("build", "queued", 25)
    assert 0 < run["estimateUsd"] < run["capUsd"] and len(model.requests) == 1  # planned once
    assert result["plan"]["columns"][0] == {**result["plan"]["columns"][0], "name": "name", "identifies": True}

    # A worker finds the rows, researches ten, and is killed in the middle of the eleventh row's model call.
    def killed(request):
        raise WorkerDied()

    model.add(rows_answer, *[cells_answer] * 10, killed)
    with pytest.raises(WorkerDied):
        table_run.run_work(run["id"])
    assert DatasetRow.objects.filter(dataset_id=result["id"], researched=1).count() == 10
    _lapse_leases()
    model.add(*[cells_answer] * 15)
    work_off(run["id"])

    read = use(ctx, "tables.read", datasetId=result["id"])
    rows = read["rows"]
    assert len(rows) == 25 and {r["values"]["name"] for r in rows} == {b["name"] for b in BAKERIES}
    assert DatasetRow.objects.filter(dataset_id=result["id"], researched=1).count() == 25
    asked = [row_of(r) for r in model.requests if r["json_schema"]["name"] == "table_cells"]
    assert len(asked) == 26 and len(set(asked)) == 25  # the killed call's row once more, every other row once
    texts = {str(s.id): s.text for s in DatasetSource.objects.filter(dataset_id=result["id"])}
    for row in rows:
        bakery = next(b for b in BAKERIES if b["name"] == row["values"]["name"])
        delivers = row["sources"]["delivers"]
        assert (row["values"]["delivers"], delivers["status"]) == (bakery["delivers"], "filled")
        quote = delivers["quote"]
        assert texts[quote["page"]][quote["start"]:quote["end"]] in ("we deliver across Harbor", "we don't deliver")
        assert delivers["url"].endswith(f"/bakery/{bakery['slug']}")
        founded = row["sources"]["founded"]
        if bakery["name"] == VAGUE:
            assert founded["status"] == "needs_review" and row["values"]["founded"] == bakery["founded"]
        else:
            assert (founded["status"], row["values"]["founded"]) == ("filled", bakery["founded"])
            quote = founded["quote"]
            assert texts[quote["page"]][quote["start"]:quote["end"]] == f"founded in {bakery['founded']}"
    done = read["dataset"]["run"]
    assert (done["status"], done["rowsDone"], done["rowsTotal"]) == ("done", 25, 25)
    assert done["message"] == "25 rows researched. 1 value needs your review."
    stored = DatasetRun.objects.get(id=run["id"])
    assert stored.spent_micros <= stored.cap_micros and stored.reserved_micros == 0
    # Every model call is the agent's spend, on the agents chart: planning, finding, and one a row researched.
    usage = Usage.objects.filter(organization=org, purpose="table")
    assert usage.count() == 27 and {u.agent_id for u in usage} == {agent.id}
    assert read["dataset"]["spentUsd"] >= float(usage.aggregate(total=Sum("cost"))["total"])
    listed = use(ctx, "tables.list")
    assert [(t["id"], t["row"], t["columns"]) for t in listed] == [(result["id"], "a bakery in Harbor", 3)]


def test_a_build_lands_in_the_project_named_else_the_one_the_agent_files_into(ctx, tables_on, local_web, model,
                                                                            queued):
    project = ProjectFactory(organization=ctx.org, name="Harbor market study")
    named = build(ctx, model, max_rows=3)
    assert [p["name"] for p in named["projects"]] == ["Client desk's docs"]
    model.add(plan_answer)
    result = use(ctx, "tables.build", question="Harbor bakeries that deliver", maxRows=3, projectId=str(project.id))
    assert result["projects"] == [{"id": str(project.id), "name": "Harbor market study"}]
    listed = use(ctx, "tables.list", projectId=str(project.id))
    assert [t["id"] for t in listed] == [result["id"]]


# --- the check, with the cost note -------------------------------------------------------------------------------


def test_build_is_checked_with_its_plan_estimate_and_cap_and_runs_once_on_the_owners_yes(
        org, tables_on, local_web, model, queued, agent):
    words = [{"role": "owner", "text": "Build me a table of every bakery in Harbor, when each was founded."}]
    ctx = ToolContext(org=org, actor=Actor.for_agent(agent), conversation_id="thread-9", conversation=lambda: words)
    model.add(plan_answer)
    question = "Every bakery in Harbor: when it was founded"
    held = use(ctx, "tables.build", question=question)
    assert set(held) == {"not_done_yet"}
    assert not Dataset.objects.exists() and len(model.requests) == 1  # planned, not built
    [decision] = CheckDecision.objects.filter(tool="tables.build")
    ask = Ask.objects.get(decision=decision)
    assert decision.note.startswith("It costs money: building this table of up to 25 rows is estimated at $")
    assert "stops at a cap of $" in decision.note and "One row per a bakery in Harbor" in decision.note
    from checks.services import ask_answer

    ask_answer(org=org, ask_id=ask.id, yes=True, text="Yes, build it.")
    result = use(ctx, "tables.build", question=question)
    assert result["run"]["status"] == "queued" and len(model.requests) == 1  # the same plan, not planned again
    assert list(CheckDecision.objects.filter(tool="tables.build").order_by("created_at")
                .values_list("outcome", flat=True)) == ["ask", "go"]
    # The yes covered that one build: the same again asks again (and is planned afresh).
    model.add(plan_answer)
    assert set(use(ctx, "tables.build", question=question)) == {"not_done_yet"}
    assert Dataset.objects.count() == 1


def test_research_rows_is_checked_with_its_cost(org, tables_on, local_web, model, queued, agent, ctx):
    result = build(ctx, model, max_rows=2)
    researched(model, 2)
    work_off(result["run"]["id"])
    org.check_enabled = True
    org.save(update_fields=["check_enabled"])
    words = [{"role": "owner", "text": "Research Apple Crumb again."}]
    checked = ToolContext(org=org, actor=Actor.for_agent(agent), conversation_id="thread-3",
                          conversation=lambda: words)
    held = use(checked, "tables.research_rows", datasetId=result["id"], rowKeys=["apple-crumb"])
    assert set(held) == {"not_done_yet"}
    decision = CheckDecision.objects.get(tool="tables.research_rows")
    assert decision.note.startswith("It costs money: researching 1 row of 'Harbor bakeries' again is estimated at $")


# --- limits and errors ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("tool", "inp", "field"), [
    ("tables.build", {"question": ""}, "question"),
    ("tables.build", {"question": "x" * 2001}, "question"),
    ("tables.build", {"question": "   "}, "question"),
    ("tables.build", {"question": "Bakeries", "maxRows": 0}, "maxRows"),
    ("tables.build", {"question": "Bakeries", "maxRows": 251}, "maxRows"),
    ("tables.build", {"question": "Bakeries", "projectId": "nope"}, "projectId"),
    ("tables.research_rows", {"rowKeys": []}, "rowKeys"),
    ("tables.research_rows", {"rowKeys": ["k"] * 251}, "rowKeys"),
    ("tables.add_row", {"identity": {}}, "identity"),
    ("tables.read", {"datasetId": "not-an-id"}, "datasetId"),
    ("tables.accept_cell", {"key": "", "column": "founded"}, "key"),
])
def test_past_a_limit_is_bad_input_naming_the_field(ctx, tables_on, tool, inp, field):
    if tool != "tables.build" and "datasetId" not in inp:
        inp = {"datasetId": "8d2e6b14-3a7c-4f09-b5d1-6e0a9c3f7b22", **inp}
    result = use(ctx, tool, **inp)
    assert result["error"] == "bad_input" and result["message"].startswith(f"{field}"), result


@pytest.fixture
def table(ctx, tables_on, local_web, model, queued):
    """A table of three bakeries, researched."""
    result = build(ctx, model, max_rows=3)
    researched(model, 3)
    work_off(result["run"]["id"])
    return result


def test_a_row_key_or_column_the_table_lacks_is_bad_input_naming_it(ctx, table):
    result = use(ctx, "tables.research_rows", datasetId=table["id"], rowKeys=["apple-crumb", "no-such-bakery"])
    assert result["error"] == "bad_input" and result["message"].startswith("rowKeys[1]:")
    result = use(ctx, "tables.accept_cell", datasetId=table["id"], key="no-such-bakery", column="founded")
    assert result["error"] == "bad_input" and result["message"].startswith("key:")
    result = use(ctx, "tables.accept_cell", datasetId=table["id"], key="apple-crumb", column="colour")
    assert result["error"] == "bad_input" and result["message"].startswith("column:")
    result = use(ctx, "tables.accept_cell", datasetId=table["id"], key="apple-crumb", column="founded")
    assert result["error"] == "bad_input" and "isn't waiting for review (it is filled)" in result["message"]
    result = use(ctx, "tables.add_row", datasetId=table["id"], identity={"city": "Harbor"})
    assert result["error"] == "bad_input" and result["message"].startswith("identity.city:")
    result = use(ctx, "tables.add_row", datasetId=table["id"], identity={"name": "Apple Crumb"})
    assert result["error"] == "bad_input" and "has this row already" in result["message"]


def test_add_row_then_research_it_then_accept_a_value_keeping_what_was(ctx, table, model, queued):
    assert use(ctx, "tables.add_row", datasetId=table["id"], identity={"name": VAGUE}) == {"key": "honey-knot"}
    row = DatasetRow.objects.get(dataset_id=table["id"], key="honey-knot")
    assert row.values == {"name": VAGUE} and row.sources["name"] == {"status": "edited", "from": "Client desk"}
    run = use(ctx, "tables.research_rows", datasetId=table["id"], rowKeys=["honey-knot"])["run"]
    assert (run["kind"], run["rowsTotal"]) == ("rerun", 1)
    # While it is researched, its values can't be accepted (the research would write over them).
    assert use(ctx, "tables.accept_cell", datasetId=table["id"], key="honey-knot", column="founded")["error"] == \
        "bad_input"
    model.add(cells_answer)
    work_off(run["id"])
    row.refresh_from_db()
    waiting = row.sources["founded"]
    assert waiting["status"] == "needs_review"
    assert use(ctx, "tables.accept_cell", datasetId=table["id"], key="honey-knot", column="founded") == {"done": True}
    row.refresh_from_db()
    accepted = row.sources["founded"]
    assert accepted["status"] == "filled" and accepted["from"] == "Client desk"
    assert accepted["was"] == {"value": row.values["founded"], "source": waiting}
    assert accepted["quote"] == waiting["quote"]


def test_the_group_is_absent_and_refused_where_the_workspace_has_it_off(ctx, local_web, model):
    from tools.catalog import browse_description

    result = use(ctx, "tables.build", question="Bakeries")
    assert result["error"] == "unsupported" and "off in this workspace" in result["message"]
    assert "- tables: research tables (6; off here: the owner turns it on, on the Newsfeed page)" in (
        browse_description(org=ctx.org).splitlines())
    assert not model.requests


def test_without_a_web_search_provider_a_build_is_unsupported_before_any_spend(ctx, tables_on, model):
    result = use(ctx, "tables.build", question="Bakeries")
    assert result["error"] == "unsupported" and "SEARXNG_URL" in result["message"]
    assert not model.requests


def test_another_workspaces_table_is_not_found_and_never_asked_about(ctx, table, other_org, model):
    services.research_settings_set(org=other_org, tables=True)
    stranger = ToolContext(org=other_org, actor=Actor.for_agent(AgentFactory(organization=other_org, name="Spy")),
                           conversation_id="thread-x")
    for tool, inp in [("tables.read", {}), ("tables.add_row", {"identity": {"name": "Spy Bakery"}}),
                      ("tables.research_rows", {"rowKeys": ["apple-crumb"]}),
                      ("tables.accept_cell", {"key": "apple-crumb", "column": "founded"})]:
        result = use(stranger, tool, datasetId=table["id"], **inp)
        assert result["error"] == "not_found", (tool, result)
    assert use(stranger, "tables.list") == []
    assert not Ask.objects.filter(organization=other_org).exists()
    assert DatasetRow.objects.filter(dataset_id=table["id"]).count() == 3


# --- workers that die, the limits, the cap ---------------------------------------------------------------------------


def _lapse_leases():
    """As if the leases' time had passed: a dead worker's claims are free to take over."""
    import datetime

    from django.utils import timezone

    DatasetRow.objects.filter(state="researching").update(claimed_until=timezone.now() - datetime.timedelta(seconds=1))


def test_a_worker_killed_after_its_claims_loses_no_row_and_researches_none_twice(ctx, tables_on, local_web, model,
                                                                                queued):
    result = build(ctx, model, max_rows=6)
    model.add(rows_answer)
    run_id = result["run"]["id"]
    table_run.find_rows(DatasetRun.objects.get(id=run_id))
    # Three workers claimed a row each and were killed before researching them.
    claims = [table_run.row_claim(run_id) for _ in range(3)]
    assert all(claims) and table_run.row_claim(run_id) is None  # three at once, the run's limit
    _lapse_leases()
    model.add(*[cells_answer] * 6)
    work_off(run_id)
    rows = DatasetRow.objects.filter(dataset_id=result["id"])
    assert rows.count() == 6 and set(rows.values_list("researched", flat=True)) == {1}
    asked = [row_of(r) for r in model.requests if r["json_schema"] and r["json_schema"]["name"] == "table_cells"]
    assert sorted(asked) == sorted(b["name"] for b in BAKERIES[:6])  # each row asked about once
    run = DatasetRun.objects.get(id=run_id)
    assert (run.status, run.rows_done, run.reserved_micros) == ("done", 6, 0)
    assert run.spent_micros <= run.cap_micros


def test_a_worker_killed_mid_call_has_its_call_counted_and_the_row_researched_once(ctx, tables_on, local_web, model,
                                                                                   queued):
    result = build(ctx, model, max_rows=5)
    run_id = result["run"]["id"]

    def dies(request):
        raise WorkerDied()

    model.add(rows_answer, cells_answer, dies)
    with pytest.raises(WorkerDied):
        table_run.run_work(run_id)
    run = DatasetRun.objects.get(id=run_id)
    held = DatasetRow.objects.get(state="researching")
    assert held.reserved_micros > 0 and run.reserved_micros == held.reserved_micros
    spent_before = run.spent_micros
    _lapse_leases()
    model.add(*[cells_answer] * 4)
    work_off(run_id)
    run.refresh_from_db()
    # The cut-off call may have been paid for: its reservation is spent, and the spend still within the cap.
    assert run.spent_micros >= spent_before + held.reserved_micros
    assert (run.status, run.rows_done, run.reserved_micros) == ("done", 5, 0) and run.spent_micros <= run.cap_micros
    assert set(DatasetRow.objects.filter(dataset_id=result["id"]).values_list("researched", flat=True)) == {1}


def test_a_row_whose_workers_keep_dying_is_given_up_with_its_cells_failed(ctx, tables_on, local_web, model, queued):
    result = build(ctx, model, max_rows=1)
    run_id = result["run"]["id"]
    model.add(rows_answer)
    table_run.find_rows(DatasetRun.objects.get(id=run_id))
    for _ in range(table_run.MAX_ATTEMPTS):
        assert table_run.row_claim(run_id) is not None
        _lapse_leases()
    assert table_run.row_claim(run_id) is None
    assert table_run.run_finish_if_done(run_id)
    row = DatasetRow.objects.get(dataset_id=result["id"])
    assert row.sources["founded"] == {"status": "failed"} and row.researched == 1


def test_the_run_stops_at_its_cap_and_never_spends_past_it(ctx, tables_on, local_web, model, queued):
    result = build(ctx, model, max_rows=10)
    run_id = result["run"]["id"]
    model.add(rows_answer)
    table_run.find_rows(DatasetRun.objects.get(id=run_id))
    run = DatasetRun.objects.get(id=run_id)
    # A cap with room for a few of these (short) pages' rows: then a call the cap can't hold stops the run.
    DatasetRun.objects.filter(id=run_id).update(cap_micros=run.spent_micros + table_run.row_bound_typical(
        run.dataset.model, run.dataset.plan) // 2)
    model.add(*[cells_answer] * 10)
    work_off(run_id)
    run.refresh_from_db()
    assert run.status == "stopped" and run.spent_micros <= run.cap_micros and run.reserved_micros == 0
    assert 0 < run.rows_done < 10
    assert run.message.startswith(f"Stopped at its {table_run.money_words(run.cap_micros)} cap with {run.rows_done} "
                                  "of 10 rows researched")
    assert not DatasetRow.objects.filter(dataset_id=result["id"], state__in=["pending", "researching"]).exists()
    calls = [r for r in model.requests if r["json_schema"] and r["json_schema"]["name"] == "table_cells"]
    assert len(calls) == run.rows_done


def test_rows_are_researched_within_the_workspaces_running_limits(ctx, tables_on, local_web, model, queued):
    runs = []
    for i in range(4):
        result = build(ctx, model, max_rows=5, question=f"Harbor bakeries, list {i}")
        model.add(rows_answer)
        run = DatasetRun.objects.get(id=result["run"]["id"])
        table_run.find_rows(run)
        runs.append(run.id)
    taken = [[table_run.row_claim(run_id) for _ in range(5)] for run_id in runs]
    per_run = [sum(1 for c in claims if c) for claims in taken]
    assert per_run == [3, 3, 2, 0]  # three a run, eight across the workspace
    assert table_run.ROWS_AT_ONCE == 3 and table_run.WORKSPACE_ROWS_AT_ONCE == 8


def test_the_limits_are_the_workspaces_thread_limits():
    from agents.runtime import scheduler

    assert (table_run.ROWS_AT_ONCE, table_run.WORKSPACE_ROWS_AT_ONCE) == (
        scheduler.MAX_RUNNING_PER_AGENT, scheduler.MAX_RUNNING_PER_OWNER)


def test_the_sweep_picks_up_a_run_a_dead_worker_left(ctx, tables_on, local_web, model, queued):
    from research import tasks

    result = build(ctx, model, max_rows=2)
    run_id = result["run"]["id"]
    model.add(rows_answer)
    table_run.find_rows(DatasetRun.objects.get(id=run_id))
    assert table_run.row_claim(run_id) is not None  # and its worker died
    queued.clear()
    assert tasks.tables_sweep() == 1  # the other row waits
    _lapse_leases()
    assert table_run.runs_to_resume() == [DatasetRun.objects.get(id=run_id).id]


def test_without_a_model_a_build_is_unsupported_and_nothing_is_made(ctx, tables_on, local_web, settings):
    settings.MODEL_CONFIGURED = False
    result = use(ctx, "tables.build", question="Every bakery in Harbor")
    assert result["error"] == "unsupported" and "No AI model is connected" in result["message"]
    assert not Dataset.objects.exists()


def test_a_plan_the_model_gets_wrong_is_unavailable_with_words(ctx, tables_on, local_web, model):
    from agents.runtime.model import say

    model.add(say("I'd rather not plan tables."))
    result = use(ctx, "tables.build", question="Every bakery in Harbor")
    assert result["error"] == "unavailable" and "plan for this table couldn't be used" in result["message"]
    assert not Dataset.objects.exists()


def test_a_run_stops_when_the_asking_agent_is_paused_for_its_budget(ctx, tables_on, local_web, model, queued):
    result = build(ctx, model, max_rows=3)
    model.add(rows_answer, cells_answer)
    run_id = result["run"]["id"]
    table_run.find_rows(DatasetRun.objects.get(id=run_id))
    claim = table_run.row_claim(run_id)
    table_run.research_row(DatasetRun.objects.get(id=run_id), claim)
    type(ctx.actor.agent).objects.filter(id=ctx.actor.agent.id).update(paused=True)
    work_off(run_id)
    run = DatasetRun.objects.get(id=run_id)
    assert run.status == "stopped" and run.message.startswith("Stopped: Client desk is paused, past its monthly budget")
    assert (run.rows_done, run.reserved_micros) == (1, 0)
    assert not DatasetRow.objects.filter(dataset_id=result["id"], state__in=["pending", "researching"]).exists()


def test_the_sweep_drops_plans_nobody_said_yes_to_once_old(ctx, tables_on, local_web, model):
    import datetime

    from django.utils import timezone

    from research import tasks
    from research.models import DatasetPlanDraft

    words = [{"role": "owner", "text": "A table of Harbor's bakeries, please."}]
    ctx.org.check_enabled = True
    ctx.org.save(update_fields=["check_enabled"])
    asking = ToolContext(org=ctx.org, actor=ctx.actor, conversation_id="thread-5", conversation=lambda: words)
    model.add(plan_answer)
    assert set(use(asking, "tables.build", question="Bakeries in Harbor")) == {"not_done_yet"}
    tasks.tables_sweep()
    assert DatasetPlanDraft.objects.count() == 1
    DatasetPlanDraft.objects.update(created_at=timezone.now() - services.DRAFT_KEPT - datetime.timedelta(minutes=1))
    tasks.tables_sweep()
    assert not DatasetPlanDraft.objects.exists()
