"""The rule groups of the answer set program, one row each: its name, its switches, its constants and its words
for the explanations. A group is its rule file `rules/<name>.lp` (the rules, and under `#program explain.` the
reason atoms derived under the same conditions) and its row here; everything else is read off the table. Plain
names and words, so that the commands read their options without loading the solver (docs/rules.md, "Adding a
rule group")."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Constant:
    """A `#const` of a group's rule file, set through `SolverParams` (reason/solve.py): by its field `param`
    where that is not None (to the field's value, or to `value` where given), else by name in its `constants`."""

    name: str
    param: str | None = None
    value: int | None = None


@dataclass(frozen=True)
class Words:
    """How the explanations say one kind K of reason, a why(Q,L,K,Q2) atom (reason/explain.py fills the fields).
    `why`: the sentence of an option's `why`, or cases of it, the first whose case holds ("" always holds):
    "gain > 0", "gain < 0" (the option's gain), "chosen" (the option is), "weighed" (the optimize group held),
    "one other" (the atoms of the kind name one question), "one chosen" (one real option is chosen). Its fields:
    {gain} (the option's gain, unsigned), {clears} and {falls_short} (the gain in words), {pair_clears} and
    {pair_falls_short} (the pair's summed gain), {other} (Q2; for a cost, every Q2 named), {own} (Q2's own reason
    for the pair), {chosen} (the labels chosen), {real} (the real labels chosen), {none_label}, {none_gain},
    {beaten} (the labels whose gain is positive), {cause_date} and {target_date} (what the event texts date).
    `short`: a few words for one-line reasons, with {other} and {gain}. `cost`: a kind of rank 4, what cost a
    rejected option that its own gain would choose; its words follow one head and join the other costs. `own`:
    how Q2's reason reads where consistency carries its pair to another question (else Q2's gain in words)."""

    kind: str
    why: str | dict[str, str]
    short: str
    cost: bool = False
    own: str = ""


@dataclass(frozen=True)
class Group:
    """A rule group: `rules/<name>.lp` and how the rest of the program treats it. `switchable`: `--without` may
    switch it off (behind the external active(name)); `relaxable`: an unsatisfiable topic may drop it (its hard
    rules hold under active(name)), tried in the order of this number (least trusted first); `prior`: it encodes
    how the benchmark was built, and `--priors none` switches it off; `readers`: loaded only where readers are
    given; `constants`: its `#const`s that SolverParams sets; `words`: its kinds of reason; `atoms`: what its
    excluded/3 and forced/3 atoms mean, by predicate."""

    name: str
    switchable: bool = False
    relaxable: int = 0
    prior: bool = False
    readers: bool = False
    constants: tuple[Constant, ...] = ()
    words: tuple[Words, ...] = ()
    atoms: tuple[tuple[str, str], ...] = ()


# The groups in the order their files load (and their externals are assumed).
GROUPS = (
    Group("core", words=(
        Words("self", "not chosen: it is the target event itself", "the target itself"),
        Words("guess", "chosen as a forced guess: no option clears the precision bias (this one falls short by "
                       "{gain}), and an answer must not be empty", "forced guess"),
    ), atoms=(("excluded", "an event cannot cause itself"),)),
    Group("none", switchable=True, constants=(Constant("none_weight", "none_prior"),
                                               Constant("none_level", "none_prior", 1)), words=(
        Words("none_prior", "chosen: the question offers None, and the None prior (every labelled question that "
                            "offers None answers it) outweighs the evidence of {beaten}", "the None prior"),
        Words("none_left", {"weighed": "chosen: every real option that clears the precision bias is ruled out by "
                                       "another rule (its own reason says which), so none of them is a cause",
                            "": "chosen: every real option that the readers favour is ruled out by another rule "
                                "(its own reason says which), so none of them is a cause"},
              "the others are ruled out"),
        Words("none_empty", "chosen: no real option clears the precision bias, so none of them is a cause",
              "nothing clears the bias"),
        Words("none_unweighed", "chosen: with the optimize group off (--without optimize) nothing weighs the edge "
                                "evidence, and the None prior favours None", "optimize off: the None prior"),
        Words("against_none", "chosen: its evidence falls short of the precision bias by {gain}, but the readers "
                              "weigh against None ({none_label}) by more, {none_gain}",
              "the readers weigh against None"),
        Words("real_chosen", {"one chosen": "not chosen: {real} is chosen", "": "not chosen: {real} are chosen"},
              "a real option is chosen"),
        Words("none_off", "not chosen: the none rule group is switched off", "none group off"),
        Words("none_answer", {"gain > 0": "not chosen: the question answers None (the None prior), though {clears}",
                              "gain < 0": "not chosen: {falls_short}, and the question answers None",
                              "": "not chosen: the question answers None (the None prior)"},
              "the question answers None"),
    ), atoms=(("forced", "no real option was chosen, so None is the answer"),)),
    Group("consistency", switchable=True, relaxable=2, words=(
        Words("carried", "chosen: consistency carries the same pair from {other}, where {own}", "carried from {other}"),
        Words("pair", "chosen: summed over the questions that offer the same pair, {pair_clears}",
              "the pair clears the bias"),
        Words("carried_guess", "chosen: consistency carries the same pair from {other}, where it is a forced guess",
              "carried from {other}'s guess"),
        Words("none_in", {"one other": "{other} offers the same pair and answers None (the None prior), and "
                                       "consistency would select it there too",
                          "": "{other} offer the same pair and answer None (the None prior), and consistency would "
                              "select it there too"}, "{other} answers None", cost=True),
        Words("mutual", "{other} chose the target as a cause of this event, and two events cannot cause each other "
                        "(consistency)", "reverse pair in {other}", cost=True),
        Words("pair_short", "summed over the questions that offer the same pair, {pair_falls_short}",
              "the pair falls short", cost=True),
        Words("shared", {"weighed": "consistency would select it in {other} too, where its evidence also falls short "
                                    "of the bias",
                         "": "consistency would select it in {other} too, where the readers do not favour it"},
              "would be taken in {other} too", cost=True),
        Words("serves", "{chosen}, chosen here, is chosen in {other} too, so one guess answers them all",
              "the guess chosen also answers {other}", cost=True),
    ), atoms=(("excluded", "the pair is offered in a question that answers None, so consistency rejects it in all"),)),
    Group("priors", switchable=True, relaxable=3, prior=True, words=(
        Words("prior", "chosen: the question offers its text twice, and a repeated option is a cause (construction "
                       "prior)", "offered twice (prior)",
              own="the question offers its text twice (construction prior)"),
        Words("cap", 'cut by "at most three labels": three others are chosen', "at most three labels", cost=True),
        Words("cap_in", 'consistency would select it in {other} too, which already holds three labels ("at most '
                        'three")', "{other} holds three labels", cost=True),
    ), atoms=(("forced", "the option's text is offered twice in this question"),)),
    # temporal changed no answer on the labelled topics (their dates order 1 candidate pair), so it stays on,
    # unswitchable, until the documents give it more edges
    Group("temporal", relaxable=1, constants=(Constant("doc_order", "doc_order"),), words=(
        Words("temporal", "not chosen: its own text is dated {cause_date}, after the target's ({target_date}; "
                          "temporal rule)", "dated after the target"),
        Words("doc_after", "the documents place it after the target, which costs doc_order", "documents place it after",
              cost=True),
    ), atoms=(("excluded", "dated after the target"),)),
    Group("directness", constants=(Constant("mediated", "mediated"),), words=(
        Words("shortcut", "the documents say it caused another chosen cause of the target, a shortcut that costs "
                          "mediated", "a shortcut", cost=True),
    )),
    Group("optimize", switchable=True, constants=(Constant("bias", "bias"),), words=(
        Words("evidence", "chosen: {clears}", "clears the bias by {gain}"),
        Words("short", "not chosen: {falls_short}", "short of the bias by {gain}"),
        Words("unweighed", {"chosen": "chosen: with the optimize group off (--without optimize) nothing weighs the "
                                      "edge evidence, and the solver picked this answer among those the other rules "
                                      "allow",
                            "": "not chosen: with the optimize group off (--without optimize) nothing weighs the edge "
                                "evidence, and the solver picked another answer among those the other rules allow"},
              "optimize off: the solver's pick"),
    )),
    Group("readers", readers=True),
)

RULE_GROUPS = tuple(g.name for g in GROUPS if not g.readers)  # loaded whatever is switched off
READER_GROUPS = tuple(g.name for g in GROUPS if g.readers)
# Groups that --without may switch off: each changes answers in the grouped-CV ablation.
SWITCHABLE = tuple(g.name for g in GROUPS if g.switchable)
# Groups whose hard rules hold under the assumption active(G). An unsatisfiable topic drops groups of clingo's
# unsat core, the first in this order (least trusted first) whose dropping alone restores an answer set.
RELAXABLE = tuple(g.name for g in sorted((g for g in GROUPS if g.relaxable), key=lambda g: g.relaxable))
# Every group behind an external active(G), chosen by assumptions: the switchable and the relaxable ones.
GATED = tuple(g.name for g in GROUPS if g.switchable or g.relaxable)
CONSTANTS = tuple(c for g in GROUPS for c in g.constants)
WORDS = {w.kind: w for g in GROUPS for w in g.words}  # each kind of reason's words
ATOM_TEXT = {(predicate, g.name): text for g in GROUPS for predicate, text in g.atoms}  # what each rule atom says
# Files that hold only a program part of their own, which, like the groups' explain parts, is added to the
# program and grounded only after the topic is solved and only where asked for, so that it cannot change an
# answer: what all groups' explanation atoms share (each group's own are in its file's explain part), and the
# alternative answer that a question's confidence is measured against.
PART_FILES = ("explain", "confidence")
# --priors: the benchmark's construction priors kept ("aer"), or a topic not built the benchmark's way ("none":
# the groups marked `prior` off, and the None prior weighs nothing, so None is chosen only when no real option
# clears the precision bias). Each setting is (the rule groups it switches off, the None prior's cost; None:
# its own level).
PRIORS: dict[str, tuple[frozenset[str], int | None]] = {
    "aer": (frozenset(), None), "none": (frozenset(g.name for g in GROUPS if g.prior), 0)}
# clingo's weights are 32-bit integers; each constant stays far inside them, so that weights and their sums
# over a topic's options cannot overflow.
MAX_CONSTANT = 1_000_000


def checked_groups(groups: Iterable[str]) -> frozenset[str]:
    """Rule groups to switch off (`without`, --without) as a set: ValueError naming the first that is not a
    switchable group (the one check of them: run.checks, the CLI and the solver call it)."""
    if isinstance(groups, (str, bytes)) or not isinstance(groups, Iterable):
        raise TypeError(f"without must be an iterable of rule group names, got {type(groups).__name__} {groups!r}")
    found = frozenset(groups)
    if unknown := found - set(SWITCHABLE):
        raise ValueError(f"unknown rule group {min(unknown)!r}; choose from {', '.join(SWITCHABLE)}")
    return found
