"""A recording HTTP proxy on loopback: forwards every request to one upstream server unchanged and keeps
what each client sent (method, path, headers, form bodies of token requests), so a test can check how
a client authenticated (OAuth2 token request, bearer header, access-delegation header)."""

from __future__ import annotations

import http.client
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, urlsplit

HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade", "proxy-connection", "host"}


@dataclass(frozen=True)
class Request:
    method: str
    path: str
    headers: dict[str, str]
    form: dict[str, str]


@dataclass
class RecordingProxy:
    url: str
    server: ThreadingHTTPServer
    requests: list[Request] = field(default_factory=list)

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def by_client(self, marker: str) -> list[Request]:
        """Requests whose X-Client-Version names the client (PyIceberg, Apache Iceberg)."""
        return [r for r in self.requests if marker in r.headers.get("x-client-version", "")]


def start_recording_proxy(upstream: str) -> RecordingProxy:
    target = urlsplit(upstream)
    recorded: list[Request] = []

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _forward(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP}
            is_form = "form-urlencoded" in (self.headers.get("Content-Type") or "")
            form = dict(parse_qsl(body.decode(errors="replace"))) if is_form else {}
            recorded.append(Request(self.command, self.path, {k.lower(): v for k, v in headers.items()}, form))
            upstream_conn = http.client.HTTPConnection(target.hostname, target.port, timeout=60)
            try:
                upstream_conn.request(self.command, self.path, body=body or None, headers=headers)
                response = upstream_conn.getresponse()
                payload = response.read()
                self.send_response(response.status, response.reason)
                for key, value in response.getheaders():
                    if key.lower() not in HOP_BY_HOP and key.lower() != "content-length":
                        self.send_header(key, value)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
            finally:
                upstream_conn.close()

        do_GET = do_POST = do_HEAD = do_DELETE = do_PUT = _forward

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base class's name
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return RecordingProxy(f"http://127.0.0.1:{server.server_address[1]}", server, recorded)
