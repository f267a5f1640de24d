"""An OpenAI-compatible chat endpoint on 127.0.0.1 that streams tokens at a known rate.

A test double of the user's serving stack (vLLM, SGLang, TensorRT-LLM...), not of the load
generator: `chipcost measure` drives the real AIPerf against it. Each answer is server-sent
events as vLLM streams them: one `chat.completion.chunk` per token, `rate` tokens a second
from the request's start, then a last chunk with `usage` (when the request asks for it with
`stream_options.include_usage`) and `data: [DONE]`; a request with `"stream": false` is
answered with one JSON chat completion. `GET /v1/models` lists the served model (`model`); a
request for another model is answered 404 as vLLM answers it. Every answer names `model`, or
`answers_as` when given (a proxy listing one model and routing to another). Misbehaviours on cue
(`mode`): `no-usage` (never a usage chunk), `malformed` (chunks that are not JSON), `stall`
(accept and say nothing until the server stops), `stall-answers` (list the model, then say
nothing to a completion request), `inflated-usage` (stream as asked, then claim ten times the
tokens in `usage`), `no-stream` (answer a streamed request with one JSON chat completion, as a
server without streaming does), `redirect` (answer a completion request with a 307 to
`redirect_to`, another server), `trickle-headers` and `trickle-models` (GET answered a byte
every 0.3 s: its headers, or blanks before the model list). `models` replaces the model list's
ids when given. Each request's Authorization header is kept (`authorizations`). The server
answers at most MAX_REQUESTS requests (410 after), so a runaway client ends by itself.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MAX_REQUESTS = 200
# The prompt tokens the double reports: it has no tokenizer, so a fixed count (usage must
# carry one; the measurement's output tokens are what it is checked on).
PROMPT_TOKENS = 100


@dataclass
class Double:
    """What the server was started with and what it saw."""

    rate: float
    model: str = "test-model"
    mode: str = "normal"
    redirect_to: str = ""
    models: list | None = None  # the model list's ids, when not [model]
    answers_as: str | None = None  # the model every answer names, when not `model`
    requests: list[dict] = field(default_factory=list)
    authorizations: list[str | None] = field(default_factory=list)
    stop: threading.Event = field(default_factory=threading.Event)
    port: int = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


def _handler(double: Double) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: object) -> None:  # quiet
            pass

        def _json(self, status: int, body: dict) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            if double.mode == "stall":
                double.stop.wait(60)
                self.close_connection = True
                return
            if double.mode.startswith("trickle"):
                self._trickle()
                return
            double.authorizations.append(self.headers.get("Authorization"))
            if self.path.rstrip("/") == "/v1/models":
                ids = [double.model] if double.models is None else double.models
                listed = [{"id": name, "object": "model", "owned_by": "vllm"} for name in ids]
                self._json(200, {"object": "list", "data": listed})
            else:
                self._json(404, {"detail": "Not Found"})

        def _trickle(self) -> None:
            """A byte every 0.3 s, for up to 20 s: of the headers (`trickle-headers`), or of
            the model list's body, blanks before its JSON (`trickle-models`)."""
            self.close_connection = True
            if double.mode == "trickle-headers":
                self.wfile.write(b"HTTP/1.1 200 OK\r\nX-Slow: ")
            else:
                self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n")
            self.wfile.flush()
            for _ in range(66):
                if double.stop.wait(0.3):
                    return
                self.wfile.write(b"a" if double.mode == "trickle-headers" else b" ")
                self.wfile.flush()

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
            double.requests.append({k: v for k, v in body.items() if k != "messages"})
            double.authorizations.append(self.headers.get("Authorization"))
            if len(double.requests) > MAX_REQUESTS:
                self._json(410, {"error": "too many requests for a test"})
                return
            if double.mode in ("stall", "stall-answers"):
                double.stop.wait(60)
                self.close_connection = True
                return
            if double.mode == "redirect":
                self.send_response(307)
                self.send_header("Location", f"{double.redirect_to}{self.path}")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            if body.get("model") != double.model:
                message = f"The model `{body.get('model')}` does not exist."
                error = {"message": message, "type": "NotFoundError", "param": None, "code": 404}
                self._json(404, {"object": "error", **error})
                return
            self._stream(body)

        def _send(self, line: str) -> None:
            data = f"data: {line}\n\n".encode()
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            self.wfile.flush()

        def _stream(self, body: dict) -> None:
            tokens = int(body.get("max_completion_tokens") or body.get("max_tokens") or 16)
            if double.mode == "no-stream" or body.get("stream") is False:
                self._whole(tokens)
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            chunk = {
                "id": "chatcmpl-1",
                "object": "chat.completion.chunk",
                "created": int(time.time()),
                "model": double.answers_as or double.model,
            }
            start = time.monotonic()
            for n in range(tokens):
                wait = start + (n + 1) / double.rate - time.monotonic()
                if wait > 0 and double.stop.wait(wait):
                    return
                if double.mode == "malformed":
                    self._send('{"id": "chatcmpl-1", "choices": [{"delta": {"content": " w')
                    continue
                delta = {"index": 0, "delta": {"content": f" w{n % 50}"}, "finish_reason": None}
                self._send(json.dumps({**chunk, "choices": [delta]}))
            wants_usage = (body.get("stream_options") or {}).get("include_usage")
            if wants_usage and double.mode != "no-usage":
                claimed = tokens * (10 if double.mode == "inflated-usage" else 1)
                usage = {
                    "prompt_tokens": PROMPT_TOKENS,
                    "completion_tokens": claimed,
                    "total_tokens": PROMPT_TOKENS + claimed,
                }
                done = {"index": 0, "delta": {}, "finish_reason": "length"}
                self._send(json.dumps({**chunk, "choices": [done], "usage": usage}))
            self._send("[DONE]")
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()

        def _whole(self, tokens: int) -> None:
            """One chat.completion at the rate's pace, as a server that does not stream."""
            if double.stop.wait(tokens / double.rate):
                return
            text = "".join(f" w{n % 50}" for n in range(tokens))
            usage = {"prompt_tokens": PROMPT_TOKENS, "completion_tokens": tokens,
                     "total_tokens": PROMPT_TOKENS + tokens}  # fmt: skip
            message = {"role": "assistant", "content": text}
            choice = {"index": 0, "message": message, "finish_reason": "length"}
            self._json(200, {"id": "chatcmpl-1", "object": "chat.completion",
                             "created": int(time.time()),
                             "model": double.answers_as or double.model,
                             "choices": [choice], "usage": usage})  # fmt: skip

    return Handler


@contextmanager
def serving(
    rate: float,
    *,
    model: str = "test-model",
    mode: str = "normal",
    redirect_to: str = "",
    models: list | None = None,
    answers_as: str | None = None,
) -> Iterator[Double]:
    """The double on a free port of 127.0.0.1 for the block; every stall ends with it."""
    double = Double(
        rate=rate, model=model, mode=mode, redirect_to=redirect_to, models=models,
        answers_as=answers_as,
    )  # fmt: skip
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(double))
    server.daemon_threads = True
    double.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield double
    finally:
        double.stop.set()
        server.shutdown()
        server.server_close()
