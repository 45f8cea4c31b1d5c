"""An LLM as a reader: any OpenAI-compatible chat-completions endpoint (llama.cpp, vLLM, Ollama, `transformers
serve`, a hosted API) judges each option of each question from the target, the options and the retrieved
passages, and replies with a verdict and a confidence per option in JSON.

Replies are checked against that schema; a malformed reply is asked again, then recorded as no verdict (never
a made-up one). Requests run concurrently (bounded), with timeouts and retries with backoff, and each reply is
cached on disk keyed by the model and the prompt."""

from __future__ import annotations

import json
import logging
import os
import re
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
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
                                            "confidence": {"type": "integer", "minimum": 0, "maximum": 100}},
           "required": ["verdict", "confidence"]}
REPLY_SCHEMA = {"type": "object", "properties": {label: VERDICT for label in LABELS}, "required": list(LABELS)}
RESPONSE_FORMATS = {
    "json_schema": {"type": "json_schema", "json_schema": {"name": "verdicts", "schema": REPLY_SCHEMA}},  # OpenAI, vLLM
    "json_object": {"type": "json_object", "schema": REPLY_SCHEMA},  # llama.cpp's llama-cpp-python server
    "none": None,  # the prompt alone asks for JSON
}


class EndpointError(RuntimeError):
    """The endpoint cannot be reached or keeps failing; the message names the URL."""


def prompt(question: Question, passages: list[tuple[str, str]]) -> str:
    """The user message for one question: evidence passages, the target, the options, the reply format."""
    lines = ["Evidence from the news documents:"]
    lines += [f"- {title}: {text}" if title else f"- {text}" for title, text in passages] or ["- (none)"]
    lines += ["", f"Target event: {question.target}", "Candidate causes:"]
    lines += [f"{label}. {text}" for label, text in zip(LABELS, question.options)]
    lines += ["", "For every option, is it a direct cause of the target event? Reply with JSON only, one entry per "
              'option, e.g. {"A": {"verdict": true, "confidence": 80}, "B": {"verdict": false, "confidence": 60}, ...}. '
              "confidence is how sure you are that the verdict is right, in percent (0 to 100)."]
    return "\n".join(lines)


def parse_reply(text: str) -> dict[str, Judgement] | None:
    """The judgements in a reply, or None when it does not hold a JSON object with a boolean verdict and an
    integer confidence in percent (0-100) for each of A-D."""
    match = re.search(r"\{.*\}", text, flags=re.S)
    if not match:
        return None
    try:
        reply = json.loads(match.group(0))
    except json.JSONDecodeError:
        return None
    out = {}
    for label in LABELS:
        entry = reply.get(label) if isinstance(reply, dict) else None
        if not isinstance(entry, dict) or not isinstance(entry.get("verdict"), bool):
            return None
        confidence = entry.get("confidence")
        if isinstance(confidence, bool) or not isinstance(confidence, int) or not 0 <= confidence <= 100:
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
    response_format: str = "json_schema"  # a key of RESPONSE_FORMATS

    @property
    def name(self) -> str:
        return f"llm:{self.model}"

    def _post(self, body: dict) -> str:
        """The reply text of one chat-completions request, retried with backoff on network and server errors."""
        headers = {"Content-Type": "application/json"}
        if os.environ.get(self.key_env):
            headers["Authorization"] = f"Bearer {os.environ[self.key_env]}"
        request = urllib.request.Request(f"{self.url.rstrip('/')}/chat/completions", json.dumps(body).encode(), headers)
        for attempt in range(self.retries + 1):
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as response:
                    return json.loads(response.read())["choices"][0]["message"]["content"] or ""
            except urllib.error.HTTPError as err:
                problem = f"HTTP {err.code}: {err.read()[:300].decode('utf-8', 'replace')}"
                if err.code < 500 and err.code != 429:
                    raise EndpointError(f"{self.url}: {problem}") from None
            except (urllib.error.URLError, TimeoutError, ConnectionError) as err:
                problem = str(getattr(err, "reason", err))
            except (KeyError, IndexError, TypeError, json.JSONDecodeError):
                raise EndpointError(f"{self.url}: not an OpenAI-compatible chat-completions reply") from None
            if attempt < self.retries:
                time.sleep(min(2**attempt, 30))
        raise EndpointError(f"the LLM endpoint {self.url} failed {self.retries + 1} times ({problem})")

    def _cached_reply(self, body: dict) -> str:
        return cached_json(self.cache_dir, "llm", body, lambda: {"model": self.model, "reply": self._post(body)})["reply"]

    def judge_question(self, question: Question, passages: list[tuple[str, str]]) -> dict[str, Judgement]:
        """The judgements of one question; empty when every try gave a malformed reply."""
        body = {"model": self.model, "max_tokens": self.max_tokens,
                "messages": [{"role": "system", "content": SYSTEM}, {"role": "user", "content": prompt(question, passages)}]}
        if RESPONSE_FORMATS[self.response_format]:
            body["response_format"] = RESPONSE_FORMATS[self.response_format]
        for attempt in range(self.retries + 1):  # greedy first; a malformed reply is asked again with sampling
            judged = parse_reply(self._cached_reply({**body, "temperature": 0 if attempt == 0 else 0.7, "seed": attempt}))
            if judged is not None:
                evidence = tuple(passages)
                return {label: Judgement(j.probability, j.verdict, evidence) for label, j in judged.items()
                        if not is_none_option(question.option(label))}
        log.warning("question %s: %d malformed replies from %s; no verdict recorded", question.qid, self.retries + 1, self.name)
        return {}

    def judge(self, topics: list[Topic], progress: bool = True) -> ReaderJudgements:
        """Judge every question of the topics, `concurrency` requests at a time."""
        work = [(q, index.for_question(q, self.passages)) for t in topics for index in [PassageIndex(t)] for q in t.questions]
        judgements: dict[tuple[str, str], Judgement] = {}
        with ThreadPoolExecutor(max_workers=self.concurrency) as pool, \
                tqdm(total=len(work), desc=self.name, unit="question", disable=not progress) as bar:
            for question, judged in zip((q for q, _ in work), pool.map(lambda w: self.judge_question(*w), work)):
                judgements.update({(question.qid, label): j for label, j in judged.items()})
                bar.update()
        return ReaderJudgements(self.name, judgements, self.weight)
