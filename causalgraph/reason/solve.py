"""A topic's typed facts solved by clingo with the rule groups in rules/; the answers read from the optimal answer set.

As in clingo's own multi-shot examples, a topic is grounded once (`TopicProgram`): every switchable or
relaxable rule group holds while its external `active(G)` is assumed, and every question while its external
`q_active(Q)` is, so that switching groups off, relaxing an unsatisfiable topic, the branch-and-bound fallback
and solving a question on its own are all solves of that one grounding under other assumptions."""

from __future__ import annotations

import dataclasses
import enum
import logging
import time
from collections import defaultdict
from collections.abc import Callable, Iterable
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache, cached_property
from pathlib import Path

import clingo
import clingo.ast
import networkx as nx
from clorm import FactBase, control_add_facts

from ..config import RULES_DIR
from ..evidence.timeline import Timeline
from ..readers.base import ReaderJudgements
from .groups import CONSTANTS, GATED, MAX_CONSTANT, PART_FILES, READER_GROUPS, RELAXABLE, RULE_GROUPS, checked_groups
from .facts import Cause, Excluded, Forced, Gain, Guess, NoneGain, PairGain, Select, Why, read_atoms, topic_facts

OPT_STRATEGY = "usc"  # core-guided optimisation: 100x faster than branch-and-bound here
FALLBACK_STRATEGY = "bb"  # under a time limit: answer sets early, improving step by step

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SolverParams:
    """Constants of the rule groups, in log-odds x 100, and rules added for experiments. `bias` None means the
    scorer's own (`EdgeScorer.bias`, chosen by grouped CV in `train`). `none_prior` None keeps the None prior
    at its own priority level, above all edge evidence; a number W makes it a cost of W beside the edge
    evidence. `doc_order` and `mediated` are the costs of the documents' timeline edges (rules/temporal.lp,
    rules/directness.lp); None keeps the rule files' values, which `python -m lab.solver.timeline` chose by
    grouped CV. `constants` sets, by name, the other constants of the groups (groups.GROUPS: those no field
    sets). `extra_rules` are added to the shipped program: a `Path` is a rule file, a `str` program text."""

    bias: int | None = None
    none_prior: int | None = None
    doc_order: int | None = None
    mediated: int | None = None
    constants: tuple[tuple[str, int], ...] = ()
    extra_rules: tuple[Path | str, ...] = ()

    def __post_init__(self):
        by_name = [c.name for c in CONSTANTS if c.param is None]
        for name, _ in self.constants:
            if name not in by_name:
                raise ValueError(f"constants: {name!r} is no rule group's constant set by name "
                                 f"(those are: {', '.join(by_name) or 'none'})")
        params = {c.param for c in CONSTANTS}
        values = [(f.name, getattr(self, f.name)) for f in dataclasses.fields(self) if f.name in params]
        for name, value in values + list(self.constants):
            if value is not None and not (isinstance(value, int) and -MAX_CONSTANT <= value <= MAX_CONSTANT):
                raise ValueError(f"{name.replace('_', '-')} must be an integer within +-{MAX_CONSTANT:,}, got "
                                 f"{value!r}")
        for rules in self.extra_rules:
            if not isinstance(rules, (Path, str)):
                raise TypeError(f"extra-rules must be rule files (Path) or program text (str), got {rules!r}")
            if isinstance(rules, Path) and not rules.is_file():
                raise ValueError(f"extra-rules: no rule file at {rules}")

    def clingo_args(self) -> list[str]:
        """clingo's `-c name=value` for each constant of the groups' table that these parameters set."""
        given = dict(self.constants)
        args = []
        for c in CONSTANTS:
            value = given.get(c.name) if c.param is None else getattr(self, c.param)
            if value is not None:
                args += ["-c", f"{c.name}={value if c.value is None else c.value}"]
        return args


class Status(enum.Enum):
    """How a search ended."""

    OPTIMAL = "optimal"  # the search proved its last answer set optimal
    SATISFIABLE = "satisfiable"  # time ran out after an answer set; the best one found is kept
    UNSATISFIABLE = "unsatisfiable"
    UNKNOWN = "unknown"  # time ran out before any answer set


@dataclass(frozen=True)
class SolveResult:
    """One search: its status, the typed atoms and cost (per priority level, highest first) of the best answer
    set (None and () without one), and for an unsatisfiable search the relaxable groups of clingo's unsat core."""

    status: Status
    atoms: FactBase | None = None
    cost: tuple[int, ...] = ()
    core: tuple[str, ...] = ()

    @property
    def optimal(self) -> bool:
        return self.status is Status.OPTIMAL

    @property
    def unsatisfiable(self) -> bool:
        return self.status is Status.UNSATISFIABLE


@dataclass(frozen=True)
class Confidence:
    """How far a question's answer wins: the cost of the best answer set that answers the question otherwise,
    less the optimum's, per priority level (highest first); `alternative` is that answer set's answer to the
    question, None where the rules allow no other answer (`margin` is then ()). `optimal`: both searches
    finished (else, under a time limit, the margin is only what was found)."""

    margin: tuple[int, ...]
    alternative: frozenset[str] | None
    optimal: bool = True

    @property
    def prior(self) -> bool:
        """Whether the other answer costs more above level 1 (it breaks the None prior), or none is allowed."""
        return self.alternative is None or any(m > 0 for m in self.margin[:-1])

    @property
    def evidence_margin(self) -> int | None:
        """The margin at level 1, where the edge and reader evidence weigh (log-odds x 100); None without an
        alternative."""
        return self.margin[-1] if self.margin else None

    def key(self) -> float:
        """A number that orders answers by confidence: the level-1 margin, infinite where a higher level or
        the rules decide."""
        return float("inf") if self.prior else float(self.evidence_margin or 0)

    def record(self) -> dict:
        """JSON-ready: the level-1 margin, whether a prior decides, and the next best answer."""
        return {"margin": self.evidence_margin, "prior": self.prior,
                "next_best": None if self.alternative is None else ",".join(sorted(self.alternative)),
                "proven": self.optimal}


@dataclass(frozen=True)
class Solution:
    """What the optimal answer set of one topic says, as typed atoms (see reason/facts.py). `excluded` holds the
    atoms of the questions solved together; a question answered on its own (in `alone`, with the groups dropped
    for it) has its own in `alone_excluded`, so that no explanation mixes solves under different rule groups."""

    topic_id: int
    answers: dict[str, frozenset[str]]
    causes: tuple[Cause, ...]
    excluded: tuple[Excluded, ...]
    forced: tuple[Forced, ...]
    optimal: bool
    cost: tuple[int, ...]
    dropped: tuple[str, ...] = field(default=())
    alone: dict[str,
                tuple[str, ...]] = field(default_factory=dict)  # questions answered on their own: their dropped groups
    alone_excluded: dict[str, tuple[Excluded, ...]] = field(default_factory=dict)
    why: tuple[Why, ...] = ()  # the rule files' explain parts, where asked for: what decided each option
    guesses: frozenset[str] = frozenset()  # the questions whose answer is a forced guess
    gains: dict[tuple[str, str], int] = field(default_factory=dict)  # (question, label) -> gain(Q,L,G)
    pair_gains: dict[tuple[str, str], int] = field(default_factory=dict)  # (question, label) -> pair_gain(Q,L,G)
    none_gains: dict[tuple[str, str], int] = field(default_factory=dict)  # (question, None's label) -> none_gain(Q,L,G)
    confidence: dict[str, Confidence] = field(default_factory=dict)  # where asked for (solve_topic's `explain`)
    weighed: bool = True  # the optimize group held: the edge evidence weighed against the precision bias

    def dropped_for(self, qid: str) -> tuple[str, ...]:
        """The rule groups dropped where question `qid` was solved."""
        return self.alone.get(qid, self.dropped)

    def chosen(self, cause: int, target: int) -> bool:
        return Cause(cause, target) in self.causes

    @cached_property
    def _atoms_by_key(self) -> dict[tuple, list]:
        """The excluded atoms by (cause, target) and the forced ones by (question, label), read once."""
        index: defaultdict[tuple, list] = defaultdict(list)
        for a in self.excluded:
            index[(a.cause, a.target)].append(a)
        for f in self.forced:
            index[(f.qid, f.label)].append(f)
        return index

    def pair_atoms(self, cause: int, target: int, qid: str | None = None) -> list[Excluded]:
        """The rule atoms that exclude the pair (cause, target) where question `qid` was solved (None: where
        the questions solved together were)."""
        if qid in self.alone:
            return [a for a in self.alone_excluded.get(qid, ()) if (a.cause, a.target) == (cause, target)]
        return list(self._atoms_by_key.get((cause, target), ()))

    def label_atoms(self, qid: str, label: str) -> list[Forced]:
        """The rule atoms that forced this label into the answer of question `qid`."""
        return list(self._atoms_by_key.get((qid, label), ()))

    @cached_property
    def _why_by_label(self) -> dict[tuple[str, str], list[Why]]:
        index: defaultdict[tuple[str, str], list[Why]] = defaultdict(list)
        for w in self.why:
            index[(w.qid, w.label)].append(w)
        return index

    def why_atoms(self, qid: str, label: str) -> list[Why]:
        """The why(Q,L,K,Q2) atoms of label `label` of question `qid`: what decided it."""
        return list(self._why_by_label.get((qid, label), ()))


def program_files(readers: bool = False) -> list[Path]:
    """The shipped rule files: every group's, loaded whatever is switched off (a switched-off group is an
    assumption), those of the groups loaded only where `readers` are given, and those of a program part alone
    (groups.PART_FILES)."""
    return [RULES_DIR / f"{name}.lp" for name in RULE_GROUPS + (READER_GROUPS if readers else ()) + PART_FILES]


@cache
def rule_parts(path: Path) -> dict[str, str]:
    """A rule file's program text by program part: its base part and each `#program NAME.` part, without the
    #program statements (read once a process; text, not clingo's AST objects, which are not shared between
    programs). A part is added to a program only where it is grounded: clingo would otherwise take its statements
    into the first grounding's checks (a projection, `real(Q,L,_,_)`, of an atom that no base rule derives is
    reported undefined)."""
    parts: defaultdict[str, list[str]] = defaultdict(list)
    part = "base"

    def add(statement: clingo.ast.AST) -> None:
        nonlocal part
        if statement.ast_type == clingo.ast.ASTType.Program:
            part = statement.name
        else:
            parts[part].append(str(statement))

    clingo.ast.parse_files([str(path)], add, logger=clingo_message)
    return {name: "\n".join(statements) for name, statements in parts.items()}


def clingo_message(code: clingo.MessageCode, message: str) -> None:
    """clingo's warnings and infos, logged at debug level (tests turn undefined atoms into failures)."""
    log.debug("clingo %s: %s", code.name, message.strip())


def total_cost(costs: list[tuple[int, ...]]) -> tuple[int, ...]:
    """The summed cost of answer sets solved apart, level by level. They come from one grounding and so have
    the same priority levels; vectors of different lengths have no sum, and are an error."""
    if len({len(c) for c in costs}) > 1:
        raise ValueError(f"cost vectors over different priority levels cannot be summed: {costs}")
    return tuple(map(sum, zip(*costs)))


class TopicProgram:
    """A topic's facts and the rule files (those of readers where `readers` is True), grounded once: their base
    parts at the start; each other program part (explain, confidence) is added and grounded only after the
    topic's solves, where asked for."""

    def __init__(self, facts: FactBase, params: SolverParams = SolverParams(), readers: bool = False):
        self.control = clingo.Control([*params.clingo_args(), "--opt-mode=opt", f"--opt-strategy={OPT_STRATEGY}"],
                                      logger=clingo_message)
        # the facts go first: added through the backend after the rules, they make clingo call the rules'
        # shown predicates undefined
        control_add_facts(self.control, facts)
        self.files = program_files(readers)
        self.add_part("base")
        for rules in params.extra_rules:
            if isinstance(rules, Path):
                self.control.load(str(rules))
            else:
                self.control.add("base", [], rules)
        self.control.ground([("base", [])])
        atoms = self.control.symbolic_atoms
        self.groups = {g: clingo.Function("active", [clingo.Function(g)]) for g in GATED}
        self.questions = {a.symbol.arguments[0].string: a.symbol for a in atoms.by_signature("q_active", 1)}
        self.literals: dict[int, str] = {}
        for g, s in self.groups.items():
            atom = atoms[s]
            assert atom is not None, f"the rule files declare no #external {s}"
            self.literals[atom.literal] = g
        # the assumptions as literals: clingo would look each symbol up again at every solve
        self.group_literals = {g: lit for lit, g in self.literals.items()}
        self.question_literals = sorted((a.symbol.arguments[0].string, a.literal)
                                        for a in atoms.by_signature("q_active", 1))
        self.events: dict[str, set[int]] = defaultdict(set)  # each question's target and options
        for signature in (("target", 2), ("option", 3)):
            for a in atoms.by_signature(*signature):
                self.events[a.symbol.arguments[0].string].add(a.symbol.arguments[-1].number)
        for symbol in [*self.groups.values(), *self.questions.values()]:
            self.control.assign_external(symbol, None)  # free, so that the assumptions decide (externals start false)
        self.selects = {(a.symbol.arguments[0].string, a.symbol.arguments[1].string): a.symbol
                        for a in atoms.by_signature("select", 2)}
        self.parts: set[str] = set()

    def add_part(self, name: str) -> None:
        """Add the program part `name` of every rule file to the program."""
        self.control.add(name, [], "\n".join(rule_parts(path).get(name, "") for path in self.files))

    def ground_part(self, name: str) -> None:
        """Add and ground the program part `name` of the rule files (once), after the topic's solves: the explain
        part of every group and explain.lp, or confidence.lp."""
        if name not in self.parts:
            self.add_part(name)
            self.control.ground([(name, [])])
            self.parts.add(name)

    def explain(self, answers: dict[str, frozenset[str]], groups: Iterable[str],
                questions: Iterable[str]) -> SolveResult:
        """The answer set with exactly `answers` selected for `questions`, solved under `groups` with the
        explanation atoms of the explain parts (rules/explain.lp and each group's; the answers assumed, there is
        nothing to choose)."""
        self.ground_part("explain")
        questions = list(questions)
        chosen = [(symbol, label in answers[q]) for (q, label), symbol in sorted(self.selects.items())
                  if q in questions]
        return self.solve(groups, questions, assumed=chosen)

    def alternative(self, qid: str, answer: frozenset[str], groups: Iterable[str], questions: Iterable[str],
                    deadline: float | None = None) -> SolveResult:
        """The best answer set under the same assumptions as `solve` whose answer to `qid` is not `answer`
        (rules/confidence.lp)."""
        self.ground_part("confidence")
        switched = [clingo.Function("alternative", [clingo.String(qid)])]
        switched += [clingo.Function("was", [clingo.String(qid), clingo.String(label)]) for label in sorted(answer)]
        for symbol in switched:
            self.control.assign_external(symbol, True)
        # only the question's select atoms are read back: typing every shown atom of every such solve would
        # take longer than the solves
        selects = lambda symbols: FactBase(Select(s.arguments[0].string, s.arguments[1].string) for s in symbols
                                           if s.match("select", 2) and s.arguments[0].string == qid)
        try:
            return self.solve(groups, questions, deadline, read=selects)
        finally:
            for symbol in switched:
                self.control.assign_external(symbol, False)

    def solve(self, groups: Iterable[str], questions: Iterable[str] | None = None,
              deadline: float | None = None, assumed: Iterable[tuple[clingo.Symbol, bool]] = (),
              read: Callable[[list[clingo.Symbol]], FactBase] = read_atoms) -> SolveResult:
        """Solve with active(G) assumed exactly for `groups` and q_active(Q) for `questions` (None: all), and
        the atoms of `assumed` as given, until the `deadline` (a time.monotonic() value; None: no limit); `read`
        makes the result's atoms of the best answer set's shown symbols. Core-guided search finds no answer set
        before it proves the optimum; it gets half the time left, and when it runs out, branch-and-bound,
        which improves answer sets step by step, gets the rest (and runs on past the deadline until its first
        answer set if it has none by then)."""
        groups = set(groups)
        questions = set(self.questions) if questions is None else set(questions)
        assumptions: list = [lit if g in groups else -lit for g, lit in self.group_literals.items()]
        assumptions += [lit if q in questions else -lit for q, lit in self.question_literals] + list(assumed)
        halfway = None if deadline is None else (time.monotonic() + deadline) / 2
        found = self._search(assumptions, halfway, wait_for_model=False, read=read)
        if found.status is Status.UNKNOWN:
            with self._strategy(FALLBACK_STRATEGY):
                found = self._search(assumptions, deadline, wait_for_model=True, read=read)
        return found

    @contextmanager
    def _strategy(self, strategy: str):
        # clingo's stubs type each configuration entry as str | Configuration | None; `solver` is a Configuration
        self.control.configuration.solver.opt_strategy = strategy  # type: ignore[union-attr]
        try:
            yield
        finally:
            self.control.configuration.solver.opt_strategy = OPT_STRATEGY  # type: ignore[union-attr]

    def _search(self, assumptions, until: float | None, wait_for_model: bool, read=read_atoms) -> SolveResult:
        """One optimising search under `assumptions`, stopped at the time.monotonic() value `until` (None: run to
        the end); with `wait_for_model`, it runs past that time until its first answer set."""
        best: dict = {}

        def on_model(model: clingo.Model) -> None:
            best["symbols"] = model.symbols(shown=True)
            best["cost"] = tuple(model.cost)

        with self.control.solve(assumptions=assumptions, on_model=on_model, async_=True) as handle:
            finished = handle.wait(max(until - time.monotonic(), 0.0)) if until is not None else handle.wait()
            while wait_for_model and not finished and "symbols" not in best:
                finished = handle.wait(0.01)
            if not finished:
                handle.cancel()
            result = handle.get()
            core = handle.core() if result.unsatisfiable else []
        if result.unsatisfiable and not finished:  # it ended as it was cancelled: clingo gives no core then
            return SolveResult(Status.UNKNOWN)
        if result.unsatisfiable:
            return SolveResult(Status.UNSATISFIABLE, core=tuple(sorted({self.literals[lit] for lit in core
                                                                         if lit in self.literals})))
        if "symbols" not in best:
            return SolveResult(Status.UNKNOWN)
        # a program without weak constraints stops at its first answer set, optimal as any other
        status = Status.OPTIMAL if finished and (result.exhausted or not best["cost"]) else Status.SATISFIABLE
        return SolveResult(status, read(best["symbols"]), best["cost"])


@dataclass(frozen=True)
class Part:
    """Some questions of a topic solved together: the result, the groups dropped to get it, and whether it is
    a question answered on its own because it cannot be answered under the rules even so."""

    questions: tuple[str, ...]
    result: SolveResult
    dropped: tuple[str, ...] = ()
    alone: bool = False
    active: tuple[str, ...] = ()  # the groups it was solved under


class Unanswerable(RuntimeError):
    """No answer set even with every relaxable rule group dropped: the core rules (a non-empty answer, an event
    never its own cause, None exactly when no real option) cannot hold for some question."""


def relax(program: TopicProgram, active: list[str], questions: list[str], deadline: float | None, where: str,
          found: SolveResult | None = None, alone: bool = False) -> Part:
    """Solve `questions` under the `active` groups until the `deadline` (unless `found` is that result
    already); while unsatisfiable, drop the first group of clingo's unsat core whose dropping alone restores
    an answer set (else the core's first), with a warning."""
    dropped: list[str] = []
    if found is None:
        found = program.solve(active, questions, deadline)
    while found.unsatisfiable:
        core = [g for g in RELAXABLE if g in found.core]
        if not core:
            raise Unanswerable(f"{where}: unsatisfiable even without the relaxable rule groups")
        trials = {}  # each trial is the solve with that group dropped: the next `found`
        for group in core:
            trials[group] = program.solve([g for g in active if g != group], questions, deadline)
            if not trials[group].unsatisfiable:
                break
        drop = group if not trials[group].unsatisfiable else core[0]
        log.warning("%s: program unsatisfiable; dropping rule group %r (unsat core: %s)", where, drop, ", ".join(core))
        dropped.append(drop)
        active = [g for g in active if g != drop]
        found = trials[drop]
    return Part(tuple(questions), found, tuple(dropped), alone, tuple(active))


def rounds(program: TopicProgram, qids: list[str]) -> list[list[str]]:
    """`qids` in rounds of questions that share no event: the questions joined by shared events (directly or
    through others) form groups, and round r holds the r-th question of each group (in the order of `qids`)."""
    parent = {q: q for q in qids}

    def root(q: str) -> str:
        while parent[q] != q:
            parent[q] = q = parent[parent[q]]
        return q

    first: dict[int, str] = {}  # each event's first question
    for q in qids:
        for event in sorted(program.events[q]):
            parent[root(q)] = root(first.setdefault(event, q))
    groups: dict[str, list[str]] = defaultdict(list)
    for q in qids:
        groups[root(q)].append(q)
    return [[g[r] for g in groups.values() if r < len(g)] for r in range(max(map(len, groups.values()), default=0))]


def unsatisfiable_alone(program: TopicProgram, qids: list[str], active: list[str],
                        deadline: float | None) -> tuple[dict[str, SolveResult], bool]:
    """The questions of `qids` that are unsatisfiable on their own, each with that result, and whether every
    question was checked (the `deadline` may come first; the unchecked are taken to be answerable). Questions
    that share no event share no rule of the shipped program, so a round of them (`rounds`) is satisfiable
    exactly when each is alone: each round is one search, halved where it is unsatisfiable until the questions
    that are stand alone. The searches grow with the largest group of questions joined by events and with the
    impossible questions, not with the topic, as one search per question did (each over the whole grounding)."""
    found: dict[str, SolveResult] = {}
    pending = rounds(program, qids)[::-1]
    while pending:
        if deadline is not None and time.monotonic() >= deadline:
            return found, False
        batch = pending.pop()
        result = program.solve(active, batch, deadline)
        if result.unsatisfiable and len(batch) == 1:
            found[batch[0]] = result
        elif result.unsatisfiable:
            half = len(batch) // 2
            pending += [batch[half:], batch[:half]]
    return found, True


def solve_parts(program: TopicProgram, topic_id: int, qids: list[str], active: list[str],
                deadline: float | None) -> list[Part]:
    """The whole topic in one part where it is satisfiable. Otherwise the questions unsatisfiable on their own
    are found (`unsatisfiable_alone`, as long as the `deadline` allows; the rest are taken to be answerable);
    each is named and relaxed on its own, and the rest of the topic is relaxed together. A question that no
    answer satisfies even with the relaxable groups dropped is named and left unanswered (an empty answer)."""
    found = program.solve(active, qids, deadline)
    if not found.unsatisfiable:
        return [Part(tuple(qids), found, active=tuple(active))]
    alone, checked = unsatisfiable_alone(program, qids, active, deadline)
    impossible = [q for q in qids if q in alone]
    if impossible:
        log.warning("topic %s: question(s) %s cannot be answered under the rules even on their own; "
                    "answering each on its own, the rest of the topic together", topic_id, ", ".join(impossible))
    rest = [q for q in qids if q not in alone]
    try:
        parts = [relax(program, active, rest, deadline, f"topic {topic_id}", None if impossible
                       else found)] if rest else []
    except Unanswerable:
        if checked:
            raise
        return solve_parts(program, topic_id, qids, active, None)  # the deadline left one unchecked: check all
    for q in impossible:
        try:
            parts.append(relax(program, active, [q], deadline, f"topic {topic_id}, question {q}", alone[q], alone=True))
        except Unanswerable:
            log.warning("topic %s: question %s has no answer under the rules even without the relaxable rule groups "
                        "(an option other than its target, or None); left unanswered", topic_id, q)
    return parts


def confidences(program: TopicProgram, parts: list[Part], answers: dict[str, frozenset[str]],
                deadline: float | None) -> dict[str, Confidence]:
    """Each question's Confidence: the best answer set of its part that answers it otherwise, against the part's
    optimum (one more search per question, over the same grounding)."""
    found = {}
    for part in parts:
        for qid in part.questions:
            other = program.alternative(qid, answers[qid], part.active, part.questions, deadline)
            if other.atoms is None:
                found[qid] = Confidence((), None, part.result.optimal and other.unsatisfiable)
                continue
            margin = tuple(a - b for a, b in zip(other.cost, part.result.cost))
            alternative = frozenset(s.label for s in other.atoms.query(Select).where(Select.qid == qid).all())
            found[qid] = Confidence(margin, alternative, part.result.optimal and other.optimal)
    return found


def answers_of(qids: list[str], parts: list[Part]) -> dict[str, frozenset[str]]:
    """Each question's answer: the options its part's answer set selects."""
    answers: dict[str, set[str]] = {qid: set() for qid in qids}
    for p in parts:
        for atom in p.result.atoms or ():
            if isinstance(atom, Select):
                answers[atom.qid].add(atom.label)
    return {q: frozenset(v) for q, v in answers.items()}


def solution_of(topic_id: int, qids: list[str], parts: list[Part],
                confidence: dict[str, Confidence] | None = None) -> Solution:
    """The Solution of a topic solved in `parts` (with each question's `confidence`, where measured)."""
    pick = lambda kind, among=parts: tuple(sorted({a for p in among for a in p.result.atoms if isinstance(a, kind)}))
    alone = [p for p in parts if p.alone]
    return Solution(
        topic_id=topic_id,
        answers=answers_of(qids, parts),
        causes=pick(Cause),
        excluded=pick(Excluded, [p for p in parts if not p.alone]),
        forced=pick(Forced),
        optimal=all(p.result.optimal for p in parts),
        cost=total_cost([p.result.cost for p in parts]),
        dropped=next((p.dropped for p in parts if not p.alone), ()),
        alone={q: p.dropped for p in alone for q in p.questions},
        alone_excluded={q: pick(Excluded, [p]) for p in alone for q in p.questions},
        why=pick(Why),
        guesses=frozenset(g.qid for g in pick(Guess)),
        gains={(g.qid, g.label): g.gain for g in pick(Gain)},
        pair_gains={(g.qid, g.label): g.gain for g in pick(PairGain)},
        none_gains={(g.qid, g.label): g.gain for g in pick(NoneGain)},
        weighed=all("optimize" in p.active for p in parts),
        confidence=confidence or {},
    )


def solve_topic(
    graph: nx.DiGraph,
    scores: dict[tuple[int, int], float],
    after: set[tuple[int, int]] | frozenset[tuple[int, int]] = frozenset(),
    without: set[str] | frozenset[str] = frozenset(),
    params: SolverParams = SolverParams(),
    time_limit: float | None = None,
    readers: tuple[ReaderJudgements, ...] = (),
    timeline: Timeline | None = None,
    explain: bool = False,
) -> Solution:
    """Solve a whole topic at once, fusing the judgements of `readers` (rules/readers.lp) and the order and
    causal edges of the documents' `timeline` where given; the groups of `without` are switched off. When the
    program is unsatisfiable, a question that is unsatisfiable on its own is named and answered on its own;
    then, while the rest is unsatisfiable, the rule groups of clingo's unsat core (one assumption per relaxable
    group) are dropped, with a warning, and named in the solution. The topic is grounded once for all of it.
    With a time limit, the best answer set found so far is used (`optimal` is then False). With `explain`, the
    solution holds what decided each option (the rule files' explain parts) and each question's Confidence (one
    more search per question), both from program parts grounded after the answers are found."""
    without = checked_groups(without)
    deadline = None if time_limit is None else time.monotonic() + time_limit
    program = TopicProgram(topic_facts(graph, scores, after, readers, timeline), params, readers=bool(readers))
    qids = list(graph.graph["questions"])
    topic_id = graph.graph["topic_id"]
    parts = solve_parts(program, topic_id, qids, [g for g in GATED if g not in without], deadline)
    measured = None
    if explain:
        answers = answers_of(qids, parts)
        measured = confidences(program, parts, answers, deadline)
        parts = [dataclasses.replace(p, result=dataclasses.replace(
            p.result, atoms=program.explain(answers, p.active, p.questions).atoms)) for p in parts]
    solution = solution_of(topic_id, qids, parts, measured)
    if not solution.optimal:
        log.warning("topic %s: solver time limit reached; using the best answer set found", topic_id)
    return solution


def solve_analysis(analysis, scores: dict[tuple[int, int], float], without: frozenset[str] = frozenset(),
                   params: SolverParams = SolverParams(), time_limit: float | None = None,
                   readers: tuple[ReaderJudgements, ...] = (), explain: bool = False) -> Solution:
    """Solve an analysed topic (see analysis.TopicAnalysis: its graph, dated `after` pairs and timeline)."""
    return solve_topic(analysis.graph, scores, analysis.after, without, params, time_limit, readers, analysis.timeline,
                       explain)
