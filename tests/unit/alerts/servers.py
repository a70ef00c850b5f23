"""Real receivers on loopback for alert tests: an HTTP webhook endpoint and an SMTP server."""

from __future__ import annotations

import json
import threading
from email import message_from_bytes
from email.message import Message
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class WebhookReceiver:
    """Records the JSON bodies POSTed to it; answers `status` (200 unless told otherwise)."""

    def __init__(self, status: int = 200) -> None:
        self.received: list[dict[str, Any]] = []
        self.paths: list[str] = []
        self.status = status
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                receiver.paths.append(self.path)
                receiver.received.append(json.loads(body))
                self.send_response(receiver.status)
                self.end_headers()
                self.wfile.write(b"ok")

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> WebhookReceiver:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()


class SmtpReceiver:
    """aiosmtpd's SMTP server on a free loopback port, keeping every message it accepts."""

    def __init__(self) -> None:
        import socket

        from aiosmtpd.controller import Controller

        self.messages: list[tuple[list[str], Message]] = []
        receiver = self

        class Handler:
            async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802
                receiver.messages.append((list(envelope.rcpt_tos), message_from_bytes(envelope.content)))
                return "250 OK"

        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            self.port = sock.getsockname()[1]
        self.controller = Controller(Handler(), hostname="127.0.0.1", port=self.port)

    def __enter__(self) -> SmtpReceiver:
        self.controller.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.controller.stop()

    def bodies(self) -> list[str]:
        out = []
        for _, message in self.messages:
            for part in message.walk():
                if part.get_content_type() == "text/html":
                    out.append(part.get_payload(decode=True).decode())
        return out
