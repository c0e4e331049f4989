"""CLAUDE.md / AGENTS.md for an agent on the owner's Mac, and what an outside app reads first."""

import pytest

from agents.runtime.instructions import CHAT_RULES
from mcp_server.instructions import identity, mac_instructions, outside_instructions
from routines.services import skill_add


@pytest.fixture
def mac_desk(desk, writer):
    desk.runs_on = "mac"
    desk.notes = ["Sam signs off as Sam"]
    desk.save()
    skill_add(org=desk.organization, agent=desk, name="Onboard a client", about="A new client signs",
              steps="1. Welcome them", why="")
    return desk


def test_claude_md_says_who_it_is_and_its_job(mac_desk):
    text = mac_instructions(mac_desk, filename="CLAUDE.md")
    assert text.startswith("# Client desk\n\nYou are Client desk, one of Sam Rivera's AI agents at Fernhill Studio.")
    assert "Your job: Answers new and current clients" in text


def test_claude_md_names_the_other_agents(mac_desk):
    assert "- Proposal writer: Prices and writes proposals" in mac_instructions(mac_desk)


def test_claude_md_holds_its_notes(mac_desk):
    assert "- Sam signs off as Sam" in mac_instructions(mac_desk)


def test_claude_md_holds_its_skills_by_id(mac_desk):
    assert "Onboard a client (id onboard-a-client)" in mac_instructions(mac_desk)


def test_claude_md_is_for_claude_code_and_agents_md_for_codex(mac_desk):
    assert "You run in Claude Code" in mac_instructions(mac_desk, filename="CLAUDE.md")
    assert "You run in Codex" in mac_instructions(mac_desk, filename="AGENTS.md")


def test_a_mac_agent_has_no_threads_and_answers_whoever_asked(mac_desk):
    text = mac_instructions(mac_desk)
    assert "You have no threads" in text and "goes back to whoever sent each message" in text


def test_the_instructions_carry_no_chat_or_thread_rules(mac_desk):
    text = mac_instructions(mac_desk)
    assert CHAT_RULES.splitlines()[0] not in text and "You are in a thread" not in text


def test_an_outside_app_reads_that_only_the_owners_words_give_permission(desk):
    assert "only Sam's own words give permission" in outside_instructions(desk)


def test_other_files_are_refused(desk):
    with pytest.raises(ValueError):
        mac_instructions(desk, filename="README.md")


def test_the_identity_is_the_same_words_a_chat_opens_with(desk):
    assert identity(desk).startswith("You are Client desk, one of Sam Rivera's AI agents at Fernhill Studio.")
