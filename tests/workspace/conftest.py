import pytest

from workspace import sandbox

needs_sandbox = pytest.mark.skipif(sandbox.availability() is not None,
                                   reason=f"this machine can't sandbox: {sandbox.availability()}")


@pytest.fixture
def bash(use):
    """`bash("python x.py")`: workspace.bash through use_tool, as the agent calls it."""

    def run(command, _ctx=None):
        return use("workspace.bash", _ctx=_ctx, command=command)

    return run


@pytest.fixture(autouse=True)
def sandbox_availability_kept():
    """A test that makes the sandbox fail to start (which Roadstar then remembers) leaves the next test a fresh one."""
    kept = sandbox._availability, sandbox._failed_at
    yield
    sandbox._availability, sandbox._failed_at = kept
