"""A scripted misbehaving HTTP server on 127.0.0.1 for the LLM reader's tests: each request gets the next act of
a script (the last one repeats). It answers at most `max_requests` requests and lives at most `lifetime`
seconds, so a test that goes wrong cannot hang on it."""

from __future__ import annotations

import json
import random
import socket
import threading
import time

GOOD = {"A": {"verdict": True, "confidence": 90}, "B": {"verdict": True, "confidence": 60},
        "C": {"verdict": False, "confidence": 80}, "D": {"verdict": False, "confidence": 70}}


def envelope(content: str) -> bytes:
    """A chat-completions reply body whose message content is `content`."""
    return json.dumps({"choices": [{"message": {"content": content}}]}).encode()


def response(body: bytes, status: str = "200 OK", length: int | None = None) -> bytes:
    length = len(body) if length is None else length
    return f"HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {length}\r\n\r\n".encode() + body


# Each act writes one reply (or none) to a connection.
def good(conn):
    conn.sendall(response(envelope(json.dumps(GOOD))))


def drop(conn):  # promises 1,000 bytes, sends 10, hangs up
    conn.sendall(response(b'{"choices"', length=1000))


def trickle(conn):  # one byte every 0.1 s, for up to 10 s
    for byte in response(envelope(json.dumps(GOOD))):
        conn.sendall(bytes([byte]))
        time.sleep(0.1)


def hang(conn):  # says nothing until the client hangs up (30 s at most)
    conn.settimeout(30)
    try:
        conn.recv(1)
    except OSError:
        pass


def huge(conn):  # 20 MB without a Content-Length, as long as the client reads
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n")
    for _ in range(20 * 16):
        conn.sendall(b"[" * 65536)


def huge_declared(conn):  # 20 MB announced
    conn.sendall(response(b"{", length=20_000_000))


def nested(conn):  # a body nested deeper than the JSON parser goes
    conn.sendall(response(b"[" * 100_000 + b"]" * 100_000))


def nested_content(conn):  # a well-formed reply whose message content is nested too deeply
    conn.sendall(response(envelope("{" * 50_000 + "}" * 50_000)))


def garbage(conn):  # bytes that are no text at all
    conn.sendall(response(bytes(random.Random(7).randrange(256) for _ in range(4096))))


def escapes(conn):  # an error whose text would drive the terminal
    conn.sendall(response(b"\x1b[2J\x1b[31mHACKED\x1b[0m\x07\r\nline two \xe2\x80\xae", status="400 Bad Request"))


def status(code: int):
    def act(conn):
        conn.sendall(response(b"", status=f"{code} Error"))

    return act


class HostileServer:
    """Serve `script` (a list of acts) on 127.0.0.1; `calls` holds each request's JSON body."""

    def __init__(self, script, max_requests: int = 20, lifetime: float = 30.0):
        self.script, self.max_requests, self.calls = list(script), max_requests, []
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.sock.settimeout(0.2)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}/v1"
        self.deadline = time.monotonic() + lifetime
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        while len(self.calls) < self.max_requests and time.monotonic() < self.deadline:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            threading.Thread(target=self._handle, args=(conn,), daemon=True).start()
        self.sock.close()

    def _handle(self, conn):
        with conn:
            conn.settimeout(10)
            try:
                data = b""
                while b"\r\n\r\n" not in data:
                    data += conn.recv(65536) or b"\r\n\r\n"
                head, _, body = data.partition(b"\r\n\r\n")
                length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n")
                               if line.lower().startswith(b"content-length:")), 0)
                while len(body) < length:
                    body += conn.recv(65536) or b" " * length
                self.calls.append(json.loads(body))
                self.script[min(len(self.calls), len(self.script)) - 1](conn)
            except (OSError, ValueError):  # the client hung up: what the acts that trickle or flood wait for
                pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.deadline = 0
        self.thread.join(timeout=5)
