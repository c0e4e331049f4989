"""An OpenAI-compatible chat endpoint the test starts on 127.0.0.1: it answers /v1/chat/completions for one key and
the model names it has, 401 for another key, 404 for a model it hasn't; it keeps every request it was sent."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class FakeModelServer:
    def __init__(self, *, key: str = "sk-fernhill", models: tuple[str, ...] = ("gpt-4.1", "gpt-4.1-mini"),
                 answer: str = "OK"):
        self.key, self.models, self.answer = key, set(models), answer
        self.requests: list[dict] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # quiet
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
                server.requests.append({"path": self.path, "auth": self.headers.get("Authorization"), "body": body})
                if self.path != "/v1/chat/completions":
                    return self._send(404, {"error": {"message": "no such route"}})
                if self.headers.get("Authorization") != f"Bearer {server.key}":
                    return self._send(401, {"error": {"message": "Incorrect API key provided",
                                                      "code": "invalid_api_key"}})
                if body.get("model") not in server.models:
                    return self._send(404, {"error": {"message": f"The model {body.get('model')} does not exist"}})
                return self._send(200, {
                    "id": "chatcmpl-fake", "object": "chat.completion", "created": 1767312000, "model": body["model"],
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": server.answer}}],
                    "usage": {"prompt_tokens": 12, "completion_tokens": 1, "total_tokens": 13},
                })

            def _send(self, status: int, payload: dict):
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> FakeModelServer:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
