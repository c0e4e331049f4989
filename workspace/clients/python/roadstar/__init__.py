"""Roadstar's tools from code in the workspace: `from roadstar import mail`, then `mail.send(to=[...], ...)`.

Each call goes over this run's socket to Roadstar, which runs it through the same pipeline and the same check as
the agent's own calls. A call the check holds back returns {"not_done_yet": ...} or {"refused": ...} and the code
carries on; a call that fails (bad input, not found, an app that failed) raises ToolError with its kind.
"""

import json
import os
import socket
import typing

__all__ = ["ToolError", "call"]


class ToolError(Exception):
    def __init__(self, kind, message):
        super().__init__(f"{kind}: {message}")
        self.kind = kind
        self.message = message


# The run's socket and the reader of its answers, opened at the first call and kept for the rest of the run.
_open: tuple[socket.socket, typing.BinaryIO] | None = None


def _socket() -> tuple[socket.socket, typing.BinaryIO]:
    global _open
    if _open is None:
        path = os.environ.get("ROADSTAR_SOCKET")
        if not path:
            raise ToolError("unsupported", "tools can only be called from code run by workspace.bash")
        connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        connection.connect(path)
        _open = (connection, connection.makefile("rb"))
    return _open


def call(name, input=None):
    """Call a tool by its full name: call("mail.search", {"query": "invoice"})."""
    connection, reader = _socket()
    request = {"token": os.environ.get("ROADSTAR_TOKEN", ""), "tool": name, "input": input or {}}
    connection.sendall(json.dumps(request).encode() + b"\n")
    line = reader.readline()
    if not line:
        raise ToolError("unavailable", "Roadstar stopped answering: the run was stopped")
    answer = json.loads(line)
    if "error" in answer:
        raise ToolError(answer["error"], answer.get("message", ""))
    result = answer.get("result")
    if isinstance(result, dict) and "error" in result and "message" in result:
        raise ToolError(result["error"], result["message"])
    return result


class _Group:
    def __init__(self, name):
        self._name = name

    def __getattr__(self, action):
        if action.startswith("_"):
            raise AttributeError(action)

        def tool(**input):
            return call(f"{self._name}.{action}", input)

        tool.__name__ = action
        return tool

    def __repr__(self):
        return f"<roadstar tools: {self._name}>"


def __getattr__(name):
    # `from roadstar import mail` asks the module for `mail`: every group is there, as Roadstar knows them.
    if name.startswith("__"):
        raise AttributeError(name)
    return _Group(name)
