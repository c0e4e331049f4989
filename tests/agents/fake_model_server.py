"""An OpenAI-compatible server on loopback for tests that run real workers: the real client talks to it.

It plays a simple, deterministic staff: a chat given the owner's words starts a thread titled with them; a
thread works for `delay` seconds and answers "Done: <task>"; anything else is answered in a line.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def _completion(message: dict) -> bytes:
    return json.dumps({
        "id": "chatcmpl-test", "object": "chat.completion", "created": int(time.time()), "model": "test-model",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", **message}}],
        "usage": {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110},
    }).encode()


class FakeModelServer:
    def __init__(self, delay: float = 0.5):
        self.delay = delay
        self.calls = 0
        self.lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with server.lock:
                    server.calls += 1
                reply = server.answer(body)
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def answer(self, body: dict) -> bytes:
        tools = {t["function"]["name"] for t in body.get("tools", [])}
        last = body["messages"][-1]
        if "start_thread" in tools:
            if last["role"] == "tool":
                return _completion({"content": "Started threads."})
            # Every owner message since the chat's last reply gets a thread of its own. A thread's answer is shown to
            # the chat as a user message too ("[#12] [Answer from ...] Done: ..."), quietly, so it lands after the
            # chat's last reply when it arrives during or after a turn (under load, before the last owner message
            # is handled): it is news for the chat, not a job.
            asked = []
            for message in reversed(body["messages"]):
                if message["role"] == "assistant":
                    break
                if message["role"] == "user" and not message["content"].split("] ", 1)[-1].startswith("[Answer"):
                    asked.append(message["content"].split(": ", 1)[-1])
            calls = [
                {"id": f"call_{time.monotonic_ns()}_{i}", "type": "function",
                 "function": {"name": "start_thread", "arguments": json.dumps({"title": words[:80], "task": words})}}
                for i, words in enumerate(asked)
            ]
            return _completion({"content": None, "tool_calls": calls})
        if "use_tool" in tools:
            time.sleep(self.delay)
            task = last["content"].split("] ", 1)[-1].split("\n")[0]
            return _completion({"content": f"Done: {task}"})
        return _completion({"content": "Noted."})

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
