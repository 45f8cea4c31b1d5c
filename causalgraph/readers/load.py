"""The readers of a run from plain arguments: other systems' score files, the cross-encoder and an LLM endpoint."""

from __future__ import annotations

import logging
import os
import socket
import warnings
from collections.abc import Iterable
from pathlib import Path
from urllib.parse import urlparse

from ..data import DataError, Topic
from .base import ReaderJudgements, check_reader_names
from .crossencoder import CrossEncoderReader
from .llm import EndpointError, LLMReader
from .scores import load_reader_files, spec_name

log = logging.getLogger(__name__)

def hub_unreachable(timeout: float = 5.0) -> str | None:
    """Why the Hugging Face hub cannot be reached (offline mode, or no connection to its host within `timeout`
    seconds, asked once), or None when it can."""
    from huggingface_hub import constants

    if constants.HF_HUB_OFFLINE:
        return "HF_HUB_OFFLINE is set"
    url = urlparse(constants.ENDPOINT)
    host, port = url.hostname or "", url.port or (443 if url.scheme == "https" else 80)
    try:
        socket.create_connection((host, port), timeout=timeout).close()
    except OSError as err:
        return f"{host} cannot be reached: {err.strerror or err}"
    return None


def hub_model(name: str) -> str:
    """A hub name as the reader loads it: the name itself where the hub answers, else its folder in the local
    Hugging Face cache; OSError at once, in one line, when it is in neither (rather than the hub client's
    retries, about a minute)."""
    why = hub_unreachable()
    if why is None:
        return name
    from huggingface_hub import snapshot_download

    try:
        return snapshot_download(name, local_files_only=True)
    except Exception:  # the hub client's error for a name it has not cached
        raise OSError(f"{name}: not a model folder, not in the local Hugging Face cache, and the hub is out of reach "
                      f"({why}); give a folder written by `causalgraph train --reader crossencoder --out "
                      "FOLDER`") from None


def crossencoder_reader(model: str, weight: int = 100, cache_dir: Path | None = None) -> CrossEncoderReader:
    """The cross-encoder reader of a model folder (or hub name); OSError naming it when it cannot be loaded."""
    local = Path(model).expanduser()
    if (local.exists() or str(model).startswith((".", "/", "~"))) and not (local / "config.json").is_file():
        raise OSError(f"{model}: no model folder there (expected one written by "
                      "`causalgraph train --reader crossencoder --out FOLDER`)")
    path = local if local.exists() else hub_model(model)
    try:
        with warnings.catch_warnings():  # torch's notes on a pickle's protocol: the error below says it
            warnings.simplefilter("ignore", UserWarning)
            return CrossEncoderReader(path, weight=weight, cache_dir=cache_dir)
    except DataError:  # its settings file, named
        raise
    except Exception as err:  # whatever transformers and torch raise for files that are no model (a pickle, say)
        problem = (str(err).strip().splitlines() or [""])[0].split(". ")[0]
        raise OSError(f"{model}: cannot load the model "
                      f"({type(err).__name__}{': ' if problem else ''}{problem})") from None


def load_readers(topics: list[Topic], *, scores: Iterable[str | os.PathLike] = (),
                 crossencoder: str | None = None, llm_url: str | None = None, llm_model: str = "default",
                 llm_key_env: str = "OPENAI_API_KEY", llm_concurrency: int = 4, llm_response_format: str | None = None,
                 llm_send_key_over_http: bool = False, llm_timeout: float = 300.0, llm_bound_by: str = "--llm-timeout",
                 weight: int = 100, cache_dir: Path | None = None, progress: bool = True,
                 keep_going: bool = False) -> tuple[ReaderJudgements, ...]:
    """The judgements of a run's readers: the `scores` files (their ids matched with the questions of
    `topics`), the `crossencoder` model and the LLM at `llm_url` (both run over `topics`, their judgements
    cached under `cache_dir` unless it is None), each scaled by `weight` percent in the fusion; the LLM within
    `llm_timeout` seconds in all (an EndpointError naming `llm_bound_by`, the option that set it, past that). An
    LLM that gives no verdict at all is an EndpointError (with `keep_going`, a warning and no reader)."""
    readers = []
    scores = list(scores)
    # a score file may bear a name that the other readers take: fusion would count them as one
    check_reader_names(sorted({spec_name(s) for s in scores}) + ["crossencoder"] * bool(crossencoder)
                       + [LLMReader.name_of(llm_model)] * bool(llm_url))
    if scores:
        questions = {q.qid: q for topic in topics for q in topic.questions}
        readers += load_reader_files(scores, questions, weight)
    if crossencoder:
        readers.append(crossencoder_reader(crossencoder, weight, cache_dir).judge(topics, progress=progress))
    if llm_url:
        llm = LLMReader(llm_url, llm_model, llm_key_env, cache_dir, llm_concurrency, weight=weight,
                        response_format=llm_response_format, send_key_over_http=llm_send_key_over_http,
                        total_timeout=llm_timeout, bound_by=llm_bound_by)
        judged = llm.judge(topics, progress=progress)
        if judged.judgements:
            readers.append(judged)
        else:
            line = (f"reader {judged.reader}: verdicts on 0 of {sum(len(t.questions) for t in topics)} questions "
                    "(malformed replies, not cached: a rerun asks again)")
            if not keep_going:
                raise EndpointError(f"{line}; --keep-going answers without it")
            log.warning("%s; answered without it", line)
    return tuple(readers)
