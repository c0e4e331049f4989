"""The workspace's costs, as ratios against a baseline measured in the same run (`make bench`):

1. One workspace.bash run of `python -c pass` (through use_tool: the sandbox, the limits, the measuring shim, the
   folder snapshots) against the same interpreter run without the sandbox. Target: under 1.5x plus 50 ms.
2. A tool call from code (contacts.find over the run's socket, timed inside the sandbox) against the same call
   through use_tool directly. Target: under 2x.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import tempfile
import time


def run(say, repeat: int = 20, calls: int = 50) -> None:
    from django.conf import settings

    from bench.common import make_workspace
    from contacts import services
    from core.actors import Actor
    from core.context import ToolContext
    from tools.pipeline import use_tool
    from workspace import sandbox

    say("## Workspace (sandbox) overhead\n")
    why = sandbox.availability()
    if why is not None:
        say(f"Skipped: {why}.\n")
        return
    root = tempfile.mkdtemp(prefix="roadstar-bench-workspace-")
    os.chmod(root, 0o711)
    settings.WORKSPACE_ROOT = root
    _, org, agent = make_workspace("workspace-bench")
    org.check_enabled = False
    org.save(update_fields=["check_enabled"])
    actor = Actor.for_agent(agent)
    ctx = ToolContext(org=org, actor=actor, conversation_id="bench")
    python = str(sandbox.venv_path() / "bin" / "python")
    use_tool(ctx, "workspace.bash", {"command": "python -c pass"})  # warm: folders made, caches filled

    bare, boxed = [], []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run([python, "-c", "pass"], check=True)
        bare.append(time.perf_counter() - start)
        start = time.perf_counter()
        out = use_tool(ctx, "workspace.bash", {"command": "python -c pass"})
        boxed.append(time.perf_counter() - start)
        assert out["exitCode"] == 0, out
    b, s = statistics.median(bare), statistics.median(boxed)
    say("| `python -c pass` | bare interpreter | workspace.bash | ratio | target: under 1.5x + 50 ms |")
    say("| --- | ---: | ---: | ---: | ---: |")
    say(f"| median of {repeat} | {b * 1000:.1f} ms | {s * 1000:.1f} ms | {s / b:.2f}x | "
        f"{'met' if s < 1.5 * b + 0.05 else 'not met'} ({(1.5 * b + 0.05) * 1000:.1f} ms) |\n")

    services.contact_create(org=org, actor=actor, name="Dana Whitfield", emails=["dana@juniperdental.test"])
    direct = []
    for _ in range(calls):
        start = time.perf_counter()
        use_tool(ctx, "contacts.find", {"email": "dana@juniperdental.test"})
        direct.append(time.perf_counter() - start)
    script = (
        "import statistics, time\nfrom roadstar import contacts\ntimes = []\n"
        f"for _ in range({calls}):\n    start = time.perf_counter()\n"
        "    contacts.find(email='dana@juniperdental.test')\n    times.append(time.perf_counter() - start)\n"
        "print(statistics.median(times))\n"
    )
    use_tool(ctx, "workspace.write", {"path": "calls.py", "content": script})
    out = use_tool(ctx, "workspace.bash", {"command": "python calls.py"})
    from_code = float(out["output"].split()[-1])
    d = statistics.median(direct)
    say("| contacts.find | through use_tool | from code in the workspace | ratio (target < 2x) |")
    say("| --- | ---: | ---: | ---: |")
    say(f"| median of {calls} calls | {d * 1000:.2f} ms | {from_code * 1000:.2f} ms | {from_code / d:.2f}x |\n")
