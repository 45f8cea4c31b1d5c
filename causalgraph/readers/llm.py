"""An LLM as a reader: any OpenAI-compatible chat-completions endpoint (llama.cpp, vLLM, Ollama, `transformers
serve`, a hosted API) judges each option of each question from the target, the options and the retrieved
passages, and replies with a verdict and a confidence per option in JSON.

The response format is found once per run by asking the first question with a JSON schema, then a JSON object,
then a plain request, judging the reply (a server may answer 200 and ignore the format). Replies are checked
against the schema; a malformed one is asked again, then recorded as no verdict (never a made-up one). Requests
run concurrently (bounded), each with a deadline for the whole exchange, a cap on the reply's size and retries
with backoff; every reply judged, a rejected one too, is cached on disk keyed by the endpoint, the model, the
prompt and the format. The endpoint is someone else's server: nothing it sends is trusted, and what of it is echoed
loses its control characters."""

from __future__ import annotations

import http.client
import json
import logging
import os
import re
import socket
import threading
import time
import unicodedata
import urllib.parse
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path

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
              'option, e.g. {"A": {"verdict": true, "confidence": 80}, "B": {"verdict": false, "confidence": 60}, ...}. '
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
    http://127.0.0.1:8080/v1). The API key, if any, is read from the environment variable `key_env`."""

    url: str
    model: str
    key_env: str = "OPENAI_API_KEY"
    cache_dir: Path | None = None
    concurrency: int = 4
    timeout: float = 120.0
    retries: int = 3  # per request, for network errors and malformed replies alike
    passages: int = 6
    max_tokens: int = 200
    weight: int = 100
    response_format: str | None = None  # a key of RESPONSE_FORMATS; None: found by judge() (PROBE_ORDER)
    max_reply_bytes: int = MAX_REPLY_BYTES  # a longer reply is an error
    replies: dict[str, str] = field(default_factory=dict, repr=False)  # this reader's replies, by request

    def __post_init__(self):
        try:
            parts = urllib.parse.urlsplit(self.url)
            parts.port  # noqa: B018 (a port that is not a number raises here)
        except ValueError as err:
            raise EndpointError(f"{printable(self.url)}: not a URL ({err})") from None
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise EndpointError(f"{printable(self.url)}: the LLM endpoint must be an http:// or https:// URL")

    @property
    def name(self) -> str:
        return self.name_of(self.model)

    @staticmethod
    def name_of(model: str) -> str:
        """The reader's name when it asks for `model`."""
        return f"llm:{model}"

    def _exchange(self, payload: bytes) -> tuple[int, bytes]:
        """The status and body of one POST to the chat-completions path. TimeoutError when the whole exchange
        (connecting, sending, the headers and the body) takes over `timeout` seconds, however slowly the
        server trickles; EndpointError for a reply over `max_reply_bytes`."""
        parts = urllib.parse.urlsplit(self.url)
        assert parts.hostname  # __post_init__ refuses a URL without one
        kind = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
        port = parts.port or (443 if parts.scheme == "https" else 80)  # an IPv6 host needs its port given
        connection = kind(parts.hostname, port, timeout=self.timeout)
        expired = threading.Event()

        def expire():  # ends a read that the server keeps alive byte by byte
            expired.set()
            if connection.sock is not None:
                try:
                    connection.sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

        headers = {"Content-Type": "application/json", "User-Agent": "causalgraph"}
        if os.environ.get(self.key_env):
            headers["Authorization"] = f"Bearer {os.environ[self.key_env]}"
        path = f"{parts.path.rstrip('/')}/chat/completions" + (f"?{parts.query}" if parts.query else "")
        timer = threading.Timer(self.timeout, expire)
        timer.daemon = True
        timer.start()
        try:
            connection.connect()
            if expired.is_set():
                raise TimeoutError
            connection.request("POST", path, payload, headers)
            response = connection.getresponse()
            if (response.length or 0) > self.max_reply_bytes:
                raise EndpointError(f"{printable(self.url)}: a reply of {response.length:,} bytes, over the "
                                    f"{self.max_reply_bytes:,} read")
            body = bytearray()
            while chunk := response.read1(65536):
                body += chunk
                if len(body) > self.max_reply_bytes:
                    raise EndpointError(f"{printable(self.url)}: a reply over {self.max_reply_bytes:,} bytes")
                if expired.is_set():
                    raise TimeoutError
            if response.length:  # the server hung up before the Content-Length it promised
                raise http.client.IncompleteRead(bytes(body), response.length)
            return response.status, bytes(body)
        except (OSError, http.client.HTTPException):
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
        raise EndpointError(f"{printable(self.url)}: not an OpenAI-compatible chat-completions reply "
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
                    raise StatusError(f"{printable(self.url)}: {problem}")
            if attempt < self.retries:
                time.sleep(min(2**attempt, 30))
        raise error(f"the LLM endpoint {printable(self.url)} failed {self.retries + 1} times ({problem})")

    def _cached_reply(self, body: dict, retry_status: bool = True) -> str:
        """The reply to `body`, from this reader's replies or the cache where it was asked before (every reply
        judged is kept, a rejected one too), keyed by the endpoint and the request (the model's name, the
        prompt and the format among it): two servers that serve a model of one name are asked apart."""
        key = {"endpoint": self.url, **body}
        text = json.dumps(key, sort_keys=True)
        if text not in self.replies:
            self.replies[text] = cached_json(
                self.cache_dir, "llm", key, lambda: {"model": self.model, "reply": self._post(body, retry_status)},
                keep=lambda entry: isinstance(entry, dict) and isinstance(entry.get("reply"), str))["reply"]
        return self.replies[text]

    def _body(self, question: Question, passages: list[tuple[str, str]], response_format: str, attempt: int) -> dict:
        """The request for one question: greedy on the first attempt, sampled on the others."""
        body = {"model": self.model, "max_tokens": self.max_tokens,
                "messages": [{"role": "system", "content": SYSTEM}, {"role": "user", "content": prompt(question, passages)}],
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
                if parse_reply(self._cached_reply(self._body(question, passages, response_format, 0), retry_status=False)):
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
        log.warning("question %s: %d malformed replies from %s; no verdict recorded", question.qid, self.retries + 1, self.name)
        return {}

    def judge(self, topics: list[Topic], progress: bool = True) -> ReaderJudgements:
        """Judge every question of the topics, `concurrency` requests at a time, in the response format given,
        else in the one that the first question finds (probe)."""
        work = [(q, index.for_question(q, self.passages)) for t in topics for index in [PassageIndex(t)] for q in t.questions]
        if self.response_format is None and work:
            found = self.probe(*work[0])
            log.info("%s: response format %s", self.name, found)
            return replace(self, response_format=found).judge(topics, progress)
        judgements: dict[tuple[str, str], Judgement] = {}
        with ThreadPoolExecutor(max_workers=self.concurrency) as pool, \
                tqdm(total=len(work), desc=self.name, unit="question", disable=not progress) as bar:
            futures = [pool.submit(self.judge_question, *w) for w in work]
            try:
                for (question, _), future in zip(work, futures):
                    judgements.update({(question.qid, label): j for label, j in future.result().items()})
                    bar.update()
            except BaseException:  # the first failure ends the run: the requests not yet sent are not sent
                for future in futures:
                    future.cancel()
                raise
        return ReaderJudgements(self.name, judgements, self.weight)
