"""An LLM as a reader: any OpenAI-compatible chat-completions endpoint (llama.cpp, vLLM, Ollama, `transformers
serve`, a hosted API) judges each option of each question from the target, the options and the retrieved
passages, and replies with a verdict and a confidence per option in JSON.

The response format is found once per run by asking the first question with a JSON schema, then a JSON object,
then a plain request, judging the reply (a server may answer 200 and ignore the format). Replies are checked
against the schema; a malformed one is asked again, then recorded as no verdict (never a made-up one). Requests
run concurrently (bounded) on daemon threads, each with a deadline for the whole exchange (capped by what is left
of the reader's overall bound), a cap on the reply's size and retries with backoff; every wait has an owner
(Waits) that the overall bound, the first failure or a signal stops at once, so no request outlives the run.
Every reply that passes the schema is cached on disk keyed by the endpoint, the model, the prompt and the format
(a rejected one is not: a rerun asks again). The endpoint is someone else's server: nothing it sends is trusted,
and what of it is echoed loses its control characters; the API key goes only over https or to loopback."""

from __future__ import annotations

import http.client
import ipaddress
import json
import logging
import os
import queue
import re
import socket
import threading
import time
import unicodedata
import urllib.parse
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable

from tqdm import tqdm

from ..data import LABELS, Question, Topic, is_none_option
from .base import Judgement, ReaderJudgements, cached_json
from .passages import PassageIndex

log = logging.getLogger(__name__)

SYSTEM = ("You judge causes of news events. A direct cause is an event that itself brought the target event "
          "about, not a background condition, a later event or an unrelated one.")


# The reply schema, sent as the request's response_format where the server supports structured output.
VERDICT = {"type": "object", "properties": {"verdict": {"type": "boolean"},
                                            "confidence": {"type": "integer", "minimum": 50, "maximum": 100}},
           "required": ["verdict", "confidence"]}
REPLY_SCHEMA = {"type": "object", "properties": {label: VERDICT for label in LABELS}, "required": list(LABELS)}
RESPONSE_FORMATS = {
    "json_schema": {"type": "json_schema", "json_schema": {"name": "verdicts", "schema": REPLY_SCHEMA}},  # OpenAI, vLLM
    "json_object": {"type": "json_object", "schema": REPLY_SCHEMA},  # llama.cpp's llama-cpp-python server
    "none": None,  # the prompt alone asks for JSON
}
PROBE_ORDER = ("json_schema", "json_object", "none")  # the formats tried, in this order, where none is given


MAX_REPLY_BYTES = 1 << 20  # a reply of 200 tokens takes a few kB
# A terminal's escape sequences: CSI (colours, cursor moves, clearing) and OSC (titles, links).
ESCAPE_SEQUENCE = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?")


_KEY_WARNED: set[str] = set()  # the endpoints warned about


def redacted(url: str) -> str:
    """`url` with its user and password, if any, as ***: an error or log line never shows them."""
    return re.sub(r"^([^:/?#]*://)[^/?#]*@", r"\1***@", url)


def is_loopback(host: str) -> bool:
    """Whether `host` names this machine: localhost, 127.0.0.0/8 or ::1 (an IPv4-mapped one too)."""
    if host.lower() == "localhost":
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    mapped = getattr(address, "ipv4_mapped", None)
    return address.is_loopback or (mapped is not None and mapped.is_loopback)


class Waits:
    """The owner of a reader's waits on its endpoint: an overall deadline, started by the first request, and a
    stop that the deadline, the first failure or a signal sets, which ends every exchange in flight (its socket
    shut) and every backoff at once."""

    def __init__(self) -> None:
        self.deadline: float | None = None
        self.stopped = threading.Event()
        self._lock = threading.Lock()
        self._ends: set[Callable[[], None]] = set()

    def left(self, seconds: float) -> float:
        """Seconds left of an overall bound of `seconds` (started by the first call); 0 once stopped."""
        with self._lock:
            if self.deadline is None:
                self.deadline = time.monotonic() + seconds
            deadline = self.deadline
        return 0.0 if self.stopped.is_set() else max(0.0, deadline - time.monotonic())

    def sleep(self, seconds: float, bound: float) -> None:
        """Wait `seconds`, less where the bound or a stop comes first."""
        self.stopped.wait(min(seconds, self.left(bound)))

    @contextmanager
    def owning(self, end: Callable[[], None]):
        """Within it, a stop calls `end` (which ends an exchange)."""
        with self._lock:
            self._ends.add(end)
        try:
            yield
        finally:
            with self._lock:
                self._ends.discard(end)

    def stop(self) -> None:
        """Stop every wait: those in flight end now, those to come at once."""
        self.stopped.set()
        with self._lock:
            ends = list(self._ends)
        for end in ends:
            end()


class EndpointError(RuntimeError):
    """The endpoint cannot be reached, keeps failing or sends what no chat-completions endpoint sends; the
    message names the URL."""


class StatusError(EndpointError):
    """The endpoint answered with an HTTP error status."""


def printable(text: str, limit: int = 300) -> str:
    """Text from elsewhere as one echoed line: terminal escape sequences, control and format characters (bidi
    overrides too) dropped, whitespace squeezed to single spaces, cut at `limit` characters."""
    text = ESCAPE_SEQUENCE.sub("", text)
    kept = "".join(" " if c.isspace() else c for c in text if c.isspace() or unicodedata.category(c)[0] != "C")
    return re.sub(r" {2,}", " ", kept).strip()[:limit]


def prompt(question: Question, passages: list[tuple[str, str]]) -> str:
    """The user message for one question: evidence passages, the target, the options, the reply format."""
    lines = ["Evidence from the news documents:"]
    lines += [f"- {title}: {text}" if title else f"- {text}" for title, text in passages] or ["- (none)"]
    lines += ["", f"Target event: {question.target}", "Candidate causes:"]
    lines += [f"{label}. {text}" for label, text in zip(LABELS, question.options)]
    lines += ["", "For every option, is it a direct cause of the target event? Reply with JSON only, one entry per "
              'option, e.g. {"A": {"verdict": true, "confidence": 80}, "B": {"verdict": false, "confidence": 60}, '
              '...}. '
              "confidence is how sure you are that the verdict is right, in percent (50 to 100: below 50, the other "
              "verdict is yours)."]
    return "\n".join(lines)


def parse_reply(text: str) -> dict[str, Judgement] | None:
    """The judgements in a reply, or None when it does not hold a JSON object with a boolean verdict and an
    integer confidence in percent (50-100) for each of A-D: a confidence below 50 contradicts its verdict."""
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end < start:
        return None
    try:
        reply = json.loads(text[start : end + 1])
    except (ValueError, RecursionError):  # not JSON, nested too deeply, or an integer too long to read
        return None
    out = {}
    for label in LABELS:
        entry = reply.get(label) if isinstance(reply, dict) else None
        if not isinstance(entry, dict) or not isinstance(entry.get("verdict"), bool):
            return None
        confidence = entry.get("confidence")
        if isinstance(confidence, float) and confidence.is_integer():  # 80.0: the schema's integer 80, as JSON has it
            confidence = int(confidence)
        if isinstance(confidence, bool) or not isinstance(confidence, int) or not 50 <= confidence <= 100:
            return None
        p = confidence / 100 if entry["verdict"] else 1 - confidence / 100  # P(the option is a direct cause)
        out[label] = Judgement(probability=float(p), verdict=entry["verdict"])
    return out


@dataclass
class LLMReader:
    """Judges every question of some topics through a chat-completions endpoint at `url` (the base URL, such as
    http://127.0.0.1:8080/v1). The API key, if any, is read from the environment variable `key_env` and sent
    only over https or to a loopback address (this machine), unless `send_key_over_http`: elsewhere plain http
    would show it to the network."""

    url: str
    model: str
    key_env: str = "OPENAI_API_KEY"
    cache_dir: Path | None = None
    concurrency: int = 4
    timeout: float = 120.0  # per request, capped by what is left of total_timeout
    retries: int = 3  # per request, for network errors and malformed replies alike
    passages: int = 6
    max_tokens: int = 200
    weight: int = 100
    response_format: str | None = None  # a key of RESPONSE_FORMATS; None: found by judge() (PROBE_ORDER)
    max_reply_bytes: int = MAX_REPLY_BYTES  # a longer reply is an error
    send_key_over_http: bool = False  # send the API key to a plain http endpoint that is not loopback too
    total_timeout: float = 300.0  # all requests and retries of a judge() call (of judge_question calls, from the first)
    bound_by: str = "--llm-timeout"  # the option that set total_timeout, as its error names it
    replies: dict[str, str] = field(default_factory=dict, repr=False)  # this reader's replies, by request
    waits: Waits = field(default_factory=Waits, repr=False, compare=False)

    def __post_init__(self):
        try:
            parts = urllib.parse.urlsplit(self.url)
            parts.port  # noqa: B018 (a port that is not a number raises here)
        except ValueError as err:
            raise EndpointError(f"{self.shown}: not a URL ({err})") from None
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise EndpointError(f"{self.shown}: the LLM endpoint must be an http:// or https:// URL")
        if os.environ.get(self.key_env) and not self.sends_key() and self.shown not in _KEY_WARNED:
            _KEY_WARNED.add(self.shown)
            log.warning("%s: the API key in $%s is not sent over plain http to a host that is not this machine; "
                        "--llm-send-key-over-http sends it", self.shown, self.key_env)

    @property
    def shown(self) -> str:
        """The URL as error and log lines show it: without a user or password, control characters dropped."""
        return printable(redacted(self.url))

    def sends_key(self) -> bool:
        """Whether the API key may go to this endpoint: https, loopback, or `send_key_over_http`."""
        parts = urllib.parse.urlsplit(self.url)
        return parts.scheme == "https" or is_loopback(parts.hostname or "") or self.send_key_over_http

    def headers(self) -> dict[str, str]:
        """The headers of each request, the API key among them where it is set and may go there (sends_key)."""
        headers = {"Content-Type": "application/json", "User-Agent": "causalgraph"}
        if os.environ.get(self.key_env) and self.sends_key():
            headers["Authorization"] = f"Bearer {os.environ[self.key_env]}"
        return headers

    @property
    def name(self) -> str:
        return self.name_of(self.model)

    @staticmethod
    def name_of(model: str) -> str:
        """The reader's name when it asks for `model`."""
        return f"llm:{model}"

    def overdue(self) -> EndpointError:
        """The error of a reader past its overall bound (or stopped)."""
        return EndpointError(f"{self.shown}: no whole answer in {self.total_timeout:g} s ({self.bound_by})")

    def _exchange(self, payload: bytes) -> tuple[int, bytes]:
        """The status and body of one POST to the chat-completions path. TimeoutError when the whole exchange
        (connecting, sending, the headers and the body) takes over `timeout` seconds, however slowly the
        server trickles; EndpointError for a reply over `max_reply_bytes`, and (overdue) where the overall bound
        ends it or the waits are stopped."""
        left = self.waits.left(self.total_timeout)
        if left <= 0:
            raise self.overdue()
        timeout = min(self.timeout, left)
        parts = urllib.parse.urlsplit(self.url)
        assert parts.hostname  # __post_init__ refuses a URL without one
        kind = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
        port = parts.port or (443 if parts.scheme == "https" else 80)  # an IPv6 host needs its port given
        connection = kind(parts.hostname, port, timeout=timeout)
        expired = threading.Event()

        def expire():  # ends a read that the server keeps alive byte by byte, or one that the waits' stop ends
            expired.set()
            if connection.sock is not None:
                try:
                    connection.sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

        path = f"{parts.path.rstrip('/')}/chat/completions" + (f"?{parts.query}" if parts.query else "")
        timer = threading.Timer(timeout, expire)
        timer.daemon = True
        timer.start()
        try:
            with self.waits.owning(expire):
                connection.connect()
                if expired.is_set():
                    raise TimeoutError
                connection.request("POST", path, payload, self.headers())
                response = connection.getresponse()
                if (response.length or 0) > self.max_reply_bytes:
                    raise EndpointError(f"{self.shown}: a reply of {response.length:,} bytes, over the "
                                        f"{self.max_reply_bytes:,} read")
                body = bytearray()
                while chunk := response.read1(65536):
                    body += chunk
                    if len(body) > self.max_reply_bytes:
                        raise EndpointError(f"{self.shown}: a reply over {self.max_reply_bytes:,} bytes")
                    if expired.is_set():
                        raise TimeoutError
                if response.length:  # the server hung up before the Content-Length it promised
                    raise http.client.IncompleteRead(bytes(body), response.length)
                return response.status, bytes(body)
        except (OSError, http.client.HTTPException):
            if self.waits.stopped.is_set() or (expired.is_set() and timeout < self.timeout):
                raise self.overdue() from None  # stopped, or the overall bound came before the request's
            if expired.is_set():
                raise TimeoutError(f"no whole reply in {self.timeout:g} s") from None
            raise
        finally:
            timer.cancel()
            connection.close()

    def _content(self, body: bytes) -> str:
        """The message content of a chat-completions reply; EndpointError for anything else."""
        try:
            content = json.loads(body.decode("utf-8"))["choices"][0]["message"]["content"]
            if content is None or isinstance(content, str):
                return content or ""
        except (ValueError, RecursionError, KeyError, IndexError, TypeError):  # not UTF-8 JSON, or nested too deeply
            pass
        raise EndpointError(f"{self.shown}: not an OpenAI-compatible chat-completions reply "
                            f"({printable(body[:80].decode('utf-8', 'replace'), 80)!r})")

    def _post(self, body: dict, retry_status: bool = True) -> str:
        """The reply text of one chat-completions request, retried with backoff on network and server errors
        (a refused or dropped connection, a deadline passed, and unless `retry_status` is False HTTP 429 and
        5xx); StatusError for an HTTP error status."""
        payload = json.dumps(body).encode()
        error: type[EndpointError] = EndpointError
        for attempt in range(self.retries + 1):
            try:
                status, reply = self._exchange(payload)
            except (OSError, http.client.HTTPException) as err:  # TimeoutError and ConnectionError included
                problem, error = printable(str(err) or type(err).__name__), EndpointError
            else:
                if 200 <= status < 300:
                    return self._content(reply)
                problem, error = f"HTTP {status}: {printable(reply[:300].decode('utf-8', 'replace'))}", StatusError
                if (status < 500 and status != 429) or not retry_status:
                    raise StatusError(f"{self.shown}: {problem}")
            if attempt < self.retries:
                self.waits.sleep(min(2**attempt, 30), self.total_timeout)
        raise error(f"the LLM endpoint {self.shown} failed {self.retries + 1} times ({problem})")

    def _cached_reply(self, body: dict, retry_status: bool = True) -> str:
        """The reply to `body`, from this reader's replies or the cache where it was asked before (a reply is
        cached only where it passes the schema: a rejected one is asked again by a rerun), keyed by the endpoint
        and the request (the model's name, the prompt and the format among it): two servers that serve a model
        of one name are asked apart."""
        key = {"endpoint": self.url, **body}
        text = json.dumps(key, sort_keys=True)
        if text not in self.replies:
            self.replies[text] = cached_json(
                self.cache_dir, "llm", key, lambda: {"model": self.model, "reply": self._post(body, retry_status)},
                keep=lambda entry: isinstance(entry, dict) and isinstance(entry.get("reply"), str)
                and parse_reply(entry["reply"]) is not None)["reply"]
        return self.replies[text]

    def _body(self, question: Question, passages: list[tuple[str, str]], response_format: str, attempt: int) -> dict:
        """The request for one question: greedy on the first attempt, sampled on the others."""
        body = {"model": self.model, "max_tokens": self.max_tokens,
                "messages": [{"role": "system", "content": SYSTEM},
                             {"role": "user", "content": prompt(question, passages)}],
                "temperature": 0 if attempt == 0 else 0.7, "seed": attempt}
        if RESPONSE_FORMATS[response_format]:
            body["response_format"] = RESPONSE_FORMATS[response_format]
        return body

    def probe(self, question: Question, passages: list[tuple[str, str]]) -> str:
        """The response format the endpoint follows: the first of PROBE_ORDER whose greedy reply to this question
        passes the schema (an HTTP error status, as a server that refuses the format sends, moves on at once;
        StatusError where the plain request gets one too); "none" when no reply passes, with a warning."""
        for response_format in PROBE_ORDER:
            try:
                if parse_reply(self._cached_reply(self._body(question, passages, response_format, 0),
                                                  retry_status=False)):
                    return response_format
            except StatusError as err:  # refused; a plain request refused too is the endpoint's failure
                if response_format == PROBE_ORDER[-1]:
                    raise
                log.info("%s: response format %s refused (%s)", self.name, response_format, err)
        log.warning("%s: no reply passed the schema with any response format (%s); asking plainly",
                    self.name, ", ".join(PROBE_ORDER))
        return "none"

    def judge_question(self, question: Question, passages: list[tuple[str, str]]) -> dict[str, Judgement]:
        """The judgements of one question; empty when every try gave a malformed reply."""
        response_format = self.response_format or PROBE_ORDER[0]
        for attempt in range(self.retries + 1):  # greedy first; a malformed reply is asked again with sampling
            judged = parse_reply(self._cached_reply(self._body(question, passages, response_format, attempt)))
            if judged is not None:
                evidence = tuple(passages)
                return {label: Judgement(j.probability, j.verdict, evidence) for label, j in judged.items()
                        if not is_none_option(question.option(label))}
        log.warning("question %s: %d malformed replies from %s; no verdict recorded", question.qid, self.retries + 1,
                    self.name)
        return {}

    def judge(self, topics: list[Topic], progress: bool = True) -> ReaderJudgements:
        """Judge every question of the topics, `concurrency` requests at a time, in the response format given,
        else in the one that the first question finds (probe), all within `total_timeout` seconds: the first
        failure, the bound passed or a signal (KeyboardInterrupt, in this thread) stops every request at once."""
        return replace(self, waits=Waits())._judge(topics, progress)

    def _judge(self, topics: list[Topic], progress: bool) -> ReaderJudgements:
        work = [(q, index.for_question(q, self.passages)) for t in topics for index in [PassageIndex(t)]
                for q in t.questions]
        judged: dict[int, dict[str, Judgement]] = {}  # by the question's place in `work`
        todo: queue.SimpleQueue = queue.SimpleQueue()
        done: queue.SimpleQueue = queue.SimpleQueue()

        def ask() -> None:  # a worker: the next question, until none is left or the waits are stopped
            while not self.waits.stopped.is_set():
                try:
                    i = todo.get_nowait()
                except queue.Empty:
                    return
                try:
                    done.put((i, self.judge_question(*work[i]), None))
                except Exception as err:
                    done.put((i, {}, err))
                    return

        try:
            if self.response_format is None and work:
                found = self.probe(*work[0])
                log.info("%s: response format %s", self.name, found)
                return replace(self, response_format=found)._judge(topics, progress)
            for i in range(len(work)):
                todo.put(i)
            with tqdm(total=len(work), desc=self.name, unit="question", disable=not progress) as bar:
                for _ in range(min(self.concurrency, len(work))):  # daemons: a run that ends does not wait for them
                    threading.Thread(target=ask, daemon=True).start()
                for _ in work:
                    try:
                        i, answer, error = done.get(timeout=self.waits.left(self.total_timeout) + 1)
                    except queue.Empty:  # a request that its own deadline did not end (a host name being looked up)
                        raise self.overdue() from None
                    if error is not None:
                        raise error
                    judged[i] = answer
                    bar.update()
        except BaseException:  # the first failure, the bound or a signal ends the run: every request stops now
            self.waits.stop()
            raise
        judgements = {(question.qid, label): j for i, (question, _) in enumerate(work)
                      for label, j in judged[i].items()}
        return ReaderJudgements(self.name, judgements, self.weight)
