"""The directed statements (evidence/statements.py): a connective read with its direction, within a sentence and
across two, a negated one, and nothing where a sentence does not tell both events."""

import numpy as np
import pytest

from causalgraph.evidence.statements import REL_MIN, StatementReader

COLLAPSE, STAY, TRAFFIC, REPAIRS, STORM = range(5)
EVENTS = ["The bridge collapsed.", "A stay snapped.", "Traffic stopped on the motorway.", "Repair work began.",
          "A storm hit the city."]


def read(sentences: list[str], told: dict[int, list[int]], e: int, t: int, docs: list[int] | None = None) -> dict:
    """The statements about (E, T) in `sentences`, where `told[event]` lists the sentences that tell the event."""
    relevance = np.zeros((len(EVENTS), len(sentences)))
    for event, where in told.items():
        relevance[event, where] = 0.9
    reader = StatementReader(sentences, docs or [0] * len(sentences), EVENTS, relevance)
    return {feature: strength for feature, (strength, _) in reader.read(e, t).items()}


def test_a_cause_after_because_is_stated_as_the_cause():
    sentences = ["The bridge collapsed because a stay snapped near the top of the tower."]
    assert set(read(sentences, {COLLAPSE: [0], STAY: [0]}, STAY, COLLAPSE)) == {"stated_cause"}


def test_the_effect_of_the_target_is_stated_as_a_consequence():
    sentences = ["Traffic stopped on the motorway because the bridge collapsed."]
    assert set(read(sentences, {COLLAPSE: [0], TRAFFIC: [0]}, TRAFFIC, COLLAPSE)) == {"stated_consequence"}
    assert set(read(sentences, {COLLAPSE: [0], TRAFFIC: [0]}, COLLAPSE, TRAFFIC)) == {"stated_cause"}


@pytest.mark.parametrize("sentence", ["Repair work began after the bridge collapsed.",
                                      "After the bridge collapsed, repair work began."])
def test_after_orders_the_events_the_right_way_round(sentence):
    """"Work began after the crash" makes the work later than the crash, never its cause."""
    assert set(read([sentence], {COLLAPSE: [0], REPAIRS: [0]}, REPAIRS, COLLAPSE)) == {"stated_after"}
    assert set(read([sentence], {COLLAPSE: [0], REPAIRS: [0]}, COLLAPSE, REPAIRS)) == {"stated_before"}


def test_a_negated_connective_states_the_option_was_not_the_cause():
    sentences = ["Engineers said the bridge collapse was not caused by the storm that hit the city."]
    assert set(read(sentences, {COLLAPSE: [0], STORM: [0]}, STORM, COLLAPSE)) == {"stated_not_cause"}


def test_a_connective_opening_the_next_sentence_links_the_two():
    sentences = ["The bridge collapsed on Tuesday morning.", "As a result, traffic stopped on the motorway."]
    told = {COLLAPSE: [0], TRAFFIC: [1]}
    assert set(read(sentences, told, COLLAPSE, TRAFFIC)) == {"stated_cause_across"}
    assert set(read(sentences, told, TRAFFIC, COLLAPSE)) == {"stated_consequence_across"}
    # not across documents
    assert read(sentences, told, COLLAPSE, TRAFFIC, docs=[0, 1]) == {}


def test_nothing_is_stated_where_a_sentence_does_not_tell_an_event():
    sentences = ["The bridge collapsed because a stay snapped near the top of the tower."]
    assert read(sentences, {COLLAPSE: [0]}, STAY, COLLAPSE) == {}
    relevance = np.full((len(EVENTS), 1), REL_MIN - 0.01)
    assert StatementReader(sentences, [0], EVENTS, relevance).read(STAY, COLLAPSE) == {}



@pytest.mark.parametrize("sentence, cause, effect", [
    ("Traffic stopped on the motorway, reflecting that the bridge collapsed.", COLLAPSE, TRAFFIC),
    ("A storm hit the city, knocking out traffic on the motorway.", STORM, TRAFFIC),
    ("Traffic stopped on the motorway amid the storm that hit the city.", STORM, TRAFFIC)])
def test_participles_and_amid_are_read_with_their_direction(sentence, cause, effect):
    told = {cause: [0], effect: [0]}
    assert set(read([sentence], told, cause, effect)) == {"stated_cause"}
    assert set(read([sentence], told, effect, cause)) == {"stated_consequence"}


def test_the_passive_and_reflected_in_keep_their_direction():
    """"T was knocked out by E" and "E was reflected in T" state E as the cause, as their active forms do."""
    for sentence in ("Traffic on the motorway was knocked out by the storm that hit the city.",
                     "The storm that hit the city was reflected in traffic stopping on the motorway."):
        told = {STORM: [0], TRAFFIC: [0]}
        assert set(read([sentence], told, STORM, TRAFFIC)) == {"stated_cause"}, sentence


@pytest.mark.parametrize("opener, first_is_cause", [("Because of this, traffic stopped on the motorway.", True),
                                                     ("Amid the chaos, traffic stopped on the motorway.", True),
                                                     ("This was because traffic stopped on the motorway.", False)])
def test_a_backward_connective_opening_the_next_sentence_points_the_right_way(opener, first_is_cause):
    """As its first word the connective's clause refers back to the sentence before (its event the cause); after
    a word or three ("This was because ...") the next sentence's event is the cause."""
    sentences = ["A storm hit the city on Monday.", opener]
    stated = set(read(sentences, {STORM: [0], TRAFFIC: [1]}, STORM, TRAFFIC))
    assert stated == ({"stated_cause_across"} if first_is_cause else {"stated_consequence_across"})


def test_the_words_of_a_date_do_not_place_an_event():
    """The demo's governor, declaring an emergency on March 8, 2024, is not told by a sentence about the dam dated
    March 7, 2024: a month, a year or a day of a month is not an event's word; a number that is not a date is."""
    events = ["The dam was built in 1952.", "The governor declared an emergency on March 8, 2024.",
              "Water flowed into tank 610."]
    sentences = ["Because the dam was built for smaller floods, it failed on March 7, 2024.",
                 "The dam failed because water flowed into tank 610."]
    reader = StatementReader(sentences, [0, 0], events, np.full((3, 2), 0.9))
    assert reader.read(0, 1) == {}
    assert reader.mention(1, 0, 0) is None
    assert reader.mention(2, 1, 0) is not None
