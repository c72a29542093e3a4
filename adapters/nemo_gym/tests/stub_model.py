"""A scripted stand-in for the policy model: a real HTTP server on 127.0.0.1 answering OpenAI's
Responses API (POST /v1/responses), which is what NeMo Gym agents call their model server with.

`policy(input_items) -> ("tool", action) | ("message", text)` picks each answer from the conversation
so far (the Responses input list the agent sent); every request is recorded.
"""
from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable, List, Tuple

Policy = Callable[[list], Tuple[str, str]]


def _write_json(handler: BaseHTTPRequestHandler, code: int, body: dict) -> None:
    data = json.dumps(body).encode()
    handler.send_response(code)
    for key, value in (("Content-Type", "application/json"), ("Content-Length", str(len(data)))):
        handler.send_header(key, value)
    handler.end_headers()
    handler.wfile.write(data)


class StubResponsesModel:
    def __init__(self, policy: Policy, port: int = 0):
        self.policy = policy
        self.requests: List[dict] = []
        stub = self

        class Handler(BaseHTTPRequestHandler):
            log_message = staticmethod(lambda *args: None)  # quiet

            def _send(self, code, body):
                _write_json(self, code, body)

            def do_GET(self):
                self._send(200, {"status": "ok"})

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                if not self.path.rstrip("/").endswith("/v1/responses"):
                    return self._send(404, {"error": {"message": f"no route {self.path}"}})
                stub.requests.append(body)
                n = len(stub.requests)
                kind, text = stub.policy(body.get("input", []))
                if kind == "tool":
                    item = {"type": "function_call", "id": f"fc_{n}", "call_id": f"call_{n}", "name": "step",
                            "arguments": json.dumps({"action": text}), "status": "completed"}
                else:
                    item = {"type": "message", "id": f"msg_{n}", "role": "assistant", "status": "completed",
                            "content": [{"type": "output_text", "text": text, "annotations": []}]}
                self._send(200, {
                    "id": f"resp_{n}", "object": "response", "created_at": time.time(), "model": body.get("model", "stub"),
                    "output": [item], "parallel_tool_calls": False, "tool_choice": "auto", "tools": body.get("tools", []),
                    "status": "completed",
                })  # fmt: skip

        self._server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def close(self):
        self._server.shutdown()
        self._server.server_close()
