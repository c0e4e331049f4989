"""Roadstar's own templates: every file loads and can really be added; a broken file names itself and its field."""

from pathlib import Path

import pytest

from agent_templates import catalogue, services
from agent_templates.catalogue import (
    CatalogueError,
    load_dir,
    load_file,
    roadstar_templates,
)
from agents.models import Agent
from routines.models import Routine, Skill
from tests.factories import AgentFactory, OrganizationFactory

GOOD = """\
slug: tiny
name: Tiny desk
kind: agent
version: 1
says: Answers the tiny clients.
questions:
  - blank: business
    asks: What is the business called?
    kind: text
agents:
  - name: Tiny desk
    job: Answers clients of {{business}}.
    owns: Client mail.
    good: Same-day answers.
    works: As mail arrives.
    asks_first: Prices.
"""


def _write(folder: Path, text: str, name="tiny.yaml") -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def test_the_catalogue_has_at_least_15_templates_of_every_kind():
    templates = roadstar_templates()
    assert len(templates) >= 15
    assert {t.kind for t in templates.values()} == {"agent", "team", "department", "skill"}
    for wanted in ("client-desk", "bookkeeper", "dental-receptionist", "bakery-order-desk", "proposal-writer",
                   "chase-a-late-invoice", "weekly-pipeline-review"):
        assert f"roadstar/{wanted}" in templates


def test_every_file_loads_and_its_slug_is_its_name():
    for path in sorted(catalogue.CATALOGUE_DIR.glob("*.yaml")):
        assert load_file(path).slug == path.stem


def test_a_good_file_loads(tmp_path):
    _write(tmp_path, GOOD)
    assert list(load_dir(tmp_path)) == ["roadstar/tiny"]


@pytest.mark.parametrize(("change", "names"), [
    (lambda t: t.replace("says: Answers the tiny clients.\n", ""), "says"),
    (lambda t: t.replace("kind: agent\n", "kind: robot\n"), "kind"),
    (lambda t: t.replace("owns: Client mail.", "owns: " + "x" * 600), "agents.0"),
    (lambda t: t.replace("{{business}}", "{{company}}"), "company"),
    (lambda t: t.replace("    asks_first: Prices.\n", "    asks_first: Prices.\n    model: gpt-9\n"),
     "agents.0.model"),
    (lambda t: t + "    routines:\n      - name: Daily\n        when:\n          at: every day\n",
     "agents.0.routines.0.when.at"),
    (lambda t: t + "    routines:\n      - name: Daily\n        when:\n          keys: ['kind:form.sent']\n",
     "agents.0.routines.0.when.keys"),
    (lambda t: t + "    routines:\n      - name: Daily\n        when: {at: '0 9 * * *'}\n        skill: Nope\n",
     "Nope"),
    (lambda t: t.replace("version: 1", "version: 1\nsurprise: true"), "surprise"),
    (lambda t: t.replace("    asks: What is the business called?\n", ""), "questions.0.asks"),
    (lambda t: "name: [unclosed", "not YAML"),
])
def test_a_broken_file_fails_naming_the_file_and_the_field(tmp_path, change, names):
    path = _write(tmp_path, change(GOOD))
    with pytest.raises(CatalogueError) as raised:
        load_file(path)
    assert str(raised.value).startswith("tiny.yaml: ")
    assert names in str(raised.value)


def test_a_file_whose_slug_is_not_its_name_is_refused(tmp_path):
    path = _write(tmp_path, GOOD, name="other.yaml")
    with pytest.raises(CatalogueError, match=r"other.yaml: slug"):
        load_file(path)


def _typical_answer(question):
    if question.kind == "choice":
        return question.choices[0]
    if question.kind == "web":
        return "https://book.fernhill.test/first-call"
    if question.kind == "agent":
        return "Roadstar"
    return "Juniper Dental of Fernhill Springs"  # a long-ish real answer


@pytest.mark.parametrize("template_id", sorted(roadstar_templates()))
def test_every_template_can_really_be_added(db, template_id):
    """Each file, answered as an owner would, makes its agents, skills and routines through the real services."""
    org = OrganizationFactory(owner_name="Sam Rivera")
    roadstar = AgentFactory(organization=org, name="Roadstar", is_roadstar=True)
    helper = AgentFactory(organization=org, name="Helper")
    body = roadstar_templates()[template_id]
    from core.actors import Actor

    card, _ = services.template_propose_add(org=org, actor=Actor.for_agent(helper), template_id=template_id,
                                            answers={}, under=None, to=None, why="fits")
    services.template_add(org=org, user=org.owner, card_id=card.id,
                          answers={q.blank: _typical_answer(q) for q in body.questions},
                          place="Helper" if body.kind == "skill" else "Roadstar")
    if body.kind == "skill":
        assert Skill.objects.get(agent=helper).name == body.skill.name
        return
    made = Agent.objects.filter(organization=org).exclude(id__in=[roadstar.id, helper.id])
    assert sorted(made.values_list("name", flat=True)) == sorted(a.name for a in body.agents)
    assert Skill.objects.filter(organization=org).count() == sum(len(a.skills) for a in body.agents)
    assert Routine.objects.filter(organization=org).count() == sum(len(a.routines) for a in body.agents)
    for agent in made:
        assert "{{" not in agent.job + agent.owns + agent.good + agent.works + agent.asks_first
    for skill in Skill.objects.filter(organization=org):
        assert "{{" not in skill.steps + skill.about
    for routine in Routine.objects.filter(organization=org):
        assert "{{" not in routine.note + routine.ask
        assert routine.next_fire_at is not None or routine.ask or routine.keys
