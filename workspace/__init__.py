"""The workspace
=============

- **Layer**: `workspace` is one of the owner's apps, above `integrations` (it fetches Drive files and attachments
  through `integrations.files.services`) and below `tools`. What needs the pipeline (tools from code) is in
  `tools/groups/workspace.py`; `files.save` and mail's `{ workspace }` attach read the file through
  `workspace.services` from their tool declarations (mail's reader is handed into `attachments_gather`).
- **Folders** (`workspace/folders.py`): `WORKSPACE_ROOT/<org id>/agents/<agent id>/` is an agent's folder (the
  sandbox's `/work`, inbox at `/work/inbox`), `WORKSPACE_ROOT/<org id>/shared/` the shared folder (`/work/shared`).
  The host-side tools (read, write, edit, open, save, attach) open paths one folder at a time with `O_NOFOLLOW` from
  the folder's descriptor: `..`, absolute paths elsewhere and links out are `bad_input` naming the path, even
  against a link a run swaps in meanwhile. Writes go to a new file renamed over the old.
- **A run** (`workspace/sandbox.py`): `setpriv` (as root: a host user per workspace, from `WORKSPACE_UID_BASE`,
  because root's processes are exempt from RLIMIT_NPROC) → `prlimit` (RLIMIT_DATA, FSIZE, NPROC, no core) → `bwrap
  --unshare-all --unshare-user --disable-userns --cap-drop ALL --clearenv --new-session --die-with-parent` with
  `/usr` read-only, a few read-only bits of `/etc` (no passwd/shadow of the host: a passwd of its own), a
  size-limited private `/tmp`, the venv (`WORKSPACE_VENV`, Debian's python3 with `requirements-workspace.txt`) at
  `/opt/roadstar/venv`, the `roadstar` client modules (`workspace/clients/`), the run's socket, and the two folders.
  The command runs under a small measuring shim (`RunUsage`'s cpuMs and peakBytes are the command's own, not
  bwrap's, which would carry the server's memory); tookMs is the wall clock; bytesWritten the bytes of the files the
  run made or changed in its folders. The supervisor loop (one thread: `selectors` over the output pipe, the socket
  and its clients) stops the run at `WORKSPACE_WALL_SECONDS` (120) or past `WORKSPACE_TOOL_CALLS` (300) by SIGKILL
  to bwrap's process group; its PID namespace dies with it, so nothing the run started outlives it. Output keeps
  both ends, cut to 20,000 characters.
- **The run's limits as a whole** (issue 31, `workspace/limits.py`): a cgroup per run (v2 where delegated, v1's
  memory and pids where writable) joined by a small wrapper before bwrap, else a watcher in the supervisor loop and
  fewer processes; the folder cap during the run by RLIMIT_FSIZE at the room left (set by the shim) and a look at
  the folders twice a second; a folder over its cap still runs with no room, so `rm` works. As root the wrapper also
  binds the run's folders into its private folder in a mount namespace of its own, so the project may be under a
  folder the run user can't pass through. Run users are `workspace.RunUser` rows (unique uids). Paths are checked at
  the edge (`folders.check_path`); the owner's page lists any name by a key and deletes it.
- **No sandbox, no run**: `WorkspaceConfig.ready()` probes once (bwrap as the run user); where it fails it logs one
  plain error and every run answers `unsupported` with the reason. There is no unsandboxed fallback.
- **Setup**: `scripts/ensure-bubblewrap` (bubblewrap, python3-venv, nodejs from Debian, as root) and the sandbox
  venv, made by `make run` / `make test` / `make bench` once (stamp `var/workspace-venv/.installed`). As root the
  run user needs no way through the folders above them (the wrapper binds them as root).
- **The owner's view**: `/workspace/` (`pages/workspace_views.py`, "Workspace" in the nav) lists the files in each
  agent's folder and in shared, with downloads; paths are checked as the tools check them, another workspace's agent
  or a path outside is a 404. Changes made from code land on Home under Your work like any tool call's.
- **Tools from code**: the run's `roadstar` module (`workspace/clients/python`, `workspace/clients/node`: ESM named
  exports for every spec group, and CommonJS) sends one JSON line per call with the run's token over the socket at
  `/run/roadstar/tools.sock`; `tools/groups/workspace.CallsFromCode` answers each with `use_tool` in the agent's
  context (`pipeline.apart_from_caller`, so a nested call never takes workspace.bash's own ToolCall record). `calls`
  in bash's result counts each tool's calls and lists what the check held back.
- **Read one way of two**: "a call the check holds back returns {not_done_yet} or {refused} and the code carries on"
  and "a refused call raises ToolError": a check's hold (`not_done_yet`, `refused`) is returned; an error answer
  (`{error, message}`: bad input, not found, an app's failure) raises `ToolError` with its kind.
- **Not capped (no cgroups on this machine)**: memory is limited per process (RLIMIT_DATA), not across a run's
  processes; a run's disk use is limited per file (RLIMIT_FSIZE) and checked against `WORKSPACE_FOLDER_BYTES` before
  each run, not during it. The process limit (RLIMIT_NPROC) counts all of one workspace's runs together when
  Roadstar is root (their shared run user), and all of Roadstar's own processes when it is not root.
"""
