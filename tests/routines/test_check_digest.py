"""A routine's check: the digest of its read-only tool's result, or None when the tool failed.

A tool answers with any JSON value (a list for some reads, text for others); only an error object is a failure.
"""

from types import SimpleNamespace

from routines import engine, services


def _routine():
    agent = SimpleNamespace(id="agent-1", name="Bookkeeper")
    return SimpleNamespace(id=1, organization=None, agent=agent, check_tool="tables.list", check_input={})


def test_a_list_result_naming_error_has_a_digest(monkeypatch):
    result = ["error", "warning"]  # a read's items may hold the word
    monkeypatch.setattr(engine, "use_tool", lambda ctx, name, raw_input: result)
    assert engine._check_digest(_routine()) == services.check_result_hash(result)


def test_a_text_result_mentioning_an_error_has_a_digest(monkeypatch):
    result = "no error in the ledger today"
    monkeypatch.setattr(engine, "use_tool", lambda ctx, name, raw_input: result)
    assert engine._check_digest(_routine()) == services.check_result_hash(result)


def test_an_error_has_no_digest(monkeypatch):
    monkeypatch.setattr(engine, "use_tool",
                        lambda ctx, name, raw_input: {"error": "unavailable", "message": "The app is down."})
    assert engine._check_digest(_routine()) is None


def test_a_null_result_has_a_digest(monkeypatch):
    monkeypatch.setattr(engine, "use_tool", lambda ctx, name, raw_input: None)
    assert engine._check_digest(_routine()) == services.check_result_hash(None)
