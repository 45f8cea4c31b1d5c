"""spaCy extraction (real en_core_web_sm): each cue pattern, dates anchored on the document, evidence."""

import numpy as np
import pytest

from causalgraph.data import Document
from causalgraph.text.dates import PartialDate, is_after, parse_date
from causalgraph.analysis.analyse import analyse_topic
from causalgraph.data import Question, Topic
from causalgraph.evidence.features import EVIDENCE_FEATURES, GROUPS
from causalgraph.text.extract import CUES, extract_topic

CASES = {
    "led to": ("The storm led to severe flooding in the valley.", "The storm", "severe flooding in the valley"),
    "leads to": ("Heavy snow leads to road closures across the region.", "Heavy snow",
                 "road closures across the region"),
    "lead to": ("Price rises could lead to mass protests in the capital.", "Price rises",
                "mass protests in the capital"),
    "leading to": ("The dam broke, leading to the evacuation of the town.", "The dam broke",
                   "the evacuation of the town"),
    "resulted in": ("The crash resulted in two deaths on the highway.", "The crash", "two deaths on the highway"),
    "results in": ("The policy results in higher fuel costs for farmers.", "The policy",
                   "higher fuel costs for farmers"),
    "triggered": ("The arrest triggered riots in three cities.", "The arrest", "riots in three cities"),
    "prompted": ("The leak prompted an inquiry by the regulator.", "The leak", "an inquiry by the regulator"),
    "sparked": ("The verdict sparked protests outside the court.", "The verdict", "protests outside the court"),
    "caused": ("The earthquake caused a tsunami along the coast.", "The earthquake", "a tsunami along the coast"),
    "forced": ("The fire forced the closure of the main airport.", "The fire", "the closure of the main airport"),
    "as a result": ("The bank failed and as a result thousands lost savings.", "The bank failed",
                    "thousands lost savings"),
    "because of": ("Flights were cancelled because of the volcanic ash.", "the volcanic ash", "Flights were cancelled"),
    "because": ("The game was postponed because the pitch was flooded.", "the pitch was flooded",
                "The game was postponed"),
    "due to": ("The launch was delayed due to bad weather at the site.", "bad weather at the site",
               "The launch was delayed"),
    "in response to": ("Troops were deployed in response to the border attack.", "the border attack",
                       "Troops were deployed"),
    "following": ("Markets fell sharply following the election result.", "the election result", "Markets fell sharply"),
    "after": ("After the gates jammed, the old dam failed.", "the gates jammed", "the old dam failed"),
    "in the wake of": ("Reforms began in the wake of the banking crisis.", "the banking crisis", "Reforms began"),
    "before": ("The team trained for months before the final match.", "The team trained for months", "the final match"),
    "prior to": ("Shares were sold prior to the merger announcement.", "Shares were sold", "the merger announcement"),
    "ahead of": ("Police closed the roads ahead of the summit meeting.", "Police closed the roads",
                 "the summit meeting"),
    "then": ("The levee broke and then the river flooded the farms.", "The levee broke", "the river flooded the farms"),
    "subsequently": ("The minister resigned and subsequently the coalition collapsed.", "The minister resigned",
                     "the coalition collapsed"),
}


def test_a_sentence_initial_cue_orders_its_clause_by_its_direction():
    before, after = (extract_topic([Document("1", "", text)]).cues[0] for text in (
        "Prior to the merger vote, the company cut many jobs.", "After the merger vote, the company cut many jobs."))
    assert (before.cause, before.effect) == ("the company cut many jobs", "the merger vote")
    assert (after.cause, after.effect) == ("the merger vote", "the company cut many jobs")


def test_every_cue_pattern_has_a_case():
    assert set(CASES) == set(CUES)


@pytest.mark.parametrize("cue", sorted(CASES))
def test_cue_pattern(cue):
    sentence, cause, effect = CASES[cue]
    extraction = extract_topic([Document("d", "", sentence)])
    match = next(m for m in extraction.cues if m.cue == cue)
    assert (match.kind, match.cause, match.effect) == (CUES[cue][0], cause, effect)


def test_sentence_dates_take_the_document_year():
    text = "The summit opened on May 3, 2021. Talks collapsed on May 9 after a walkout."
    extraction = extract_topic([Document("d", "Summit", text)])
    dated = [s.date for s in extraction.sentences if s.date]
    assert PartialDate(2021, 5, 9) in dated and PartialDate(2021, 5, 3) in dated


def test_event_text_dates_and_order():
    assert parse_date("On December 27, Kataib Hezbollah attacked the base.") == PartialDate(None, 12, 27)
    assert parse_date("After 2006, Muhandis founded the group.") is None  # "after 2006" states no event date
    assert parse_date("The plan was announced in March 2020.") == PartialDate(2020, 3, None)
    assert parse_date("On July 28-29, 2021, the bar associations approved the requests.") == PartialDate(2021, 7, 28)
    assert parse_date("The government announced a tax rise effective January 1, 2019.") is None
    assert parse_date("Value grew from $20 billion in 2020 to $246 billion in May 2025.") is None
    assert is_after(PartialDate(None, 3, 15), PartialDate(None, 3, 7))
    assert not is_after(PartialDate(None, 1, 3), PartialDate(None, 12, 29))  # year boundary: unknown


def test_evidence_links_events_to_their_sentences():
    docs = [Document("d1", "", "Heavy rain fell for days. The river burst its banks because of the rain. "
                               "Roads were closed for a week. Schools stayed shut until Monday. "
                               "A football match was played in the town stadium.")]
    rain, flood, match = "Heavy rain fell for days.", "The river burst its banks.", "A football match was played."
    analysis = analyse_topic(Topic(1, [Question("q", 1, flood, (rain, match, "Roads were closed.", "Schools shut."))],
                                   docs))
    sentences = analysis.extraction.sentences
    assert len(sentences) == 5
    node = {analysis.graph.nodes[n]["text"]: n for n in analysis.graph}
    assert analysis.evidence[node[rain]][0][1] == sentences[0].text  # each event's best sentence is its own
    assert analysis.evidence[node[match]][0][1] == sentences[4].text
    row = {p: dict(zip(EVIDENCE_FEATURES, r))
           for p, r in zip(analysis.doc_evidence.pairs, analysis.doc_evidence.features)}
    from_rain, from_match = row[(node[rain], node[flood])], row[(node[match], node[flood])]
    assert from_rain["nearby_sentences"] > from_match["nearby_sentences"]  # rain is next to the flood sentence
    assert from_rain["cue_forward"] > from_match["cue_forward"]  # "because of the rain"
    assert from_rain["dependency_cue_forward"] > from_match["dependency_cue_forward"]
    assert from_match["cause_mentioned_first"] < 0  # the match is told after the flood


def test_topic_without_documents_has_no_evidence():
    extraction = extract_topic([])
    assert extraction.sentences == () and extraction.cues == ()


def test_a_long_document_is_cut_into_pieces_that_join_back_to_it():
    from causalgraph.text.extract import pieces

    text = "The river rose. " * 500 + "\n\n" + "x" * 3000 + " The dam held."
    cut = pieces(text, 2000)
    assert "".join(cut) == text and all(len(p) <= 2000 for p in cut) and len(cut) > 4
    assert cut[0].endswith(". ")  # at a sentence end where no paragraph break is near
    assert pieces("short", 2000) == ["short"] and pieces("", 2000) == [""]


def test_dependency_cues_over_the_whole_document_are_those_of_each_sentence():
    """One pass of the dependency matcher over the document finds what matching each sentence alone finds."""
    from causalgraph.text.extract import (DEPENDENCY_PATTERNS, _dependency_cue, dependency_cues, dependency_matcher,
                                          load_nlp)

    doc = load_nlp()("The storm led to floods across the valley. Flights stopped after the eruption of the volcano. "
                     "The game was postponed because the pitch flooded overnight. Nothing happened on Sunday.")
    starts = {s.start: i for i, s in enumerate(doc.sents)}
    whole = dependency_cues(doc, starts)
    alone = set()
    for span in doc.sents:
        for match_id, ids in dependency_matcher()(span):
            name = doc.vocab.strings[match_id]
            pattern = next(p for p in DEPENDENCY_PATTERNS[name] if len(p) == len(ids))
            made = _dependency_cue(name, {p["RIGHT_ID"]: doc[span.start + i] for p, i in zip(pattern, ids)})
            if made and len(made[2].split()) >= 2 and len(made[3].split()) >= 2:
                alone.add((starts[span.start], *made))
    assert {(c.sentence, c.kind, c.cue, c.cause, c.effect) for c in whole} == alone and len(alone) >= 2


def test_dates_carry_after_and_an_earlier_date_only_with_a_sentence_relating_the_two():
    docs = [Document("d1", "", "On March 3, 2024, the football team won the cup in a muddy final. The dam failed on "
                               "March 7, 2024 because the gates jammed on March 6. An inquiry opened on March 15, "
                               "2024.")]
    fail, cup = "The dam failed on March 7, 2024.", "The football team won the cup on March 3, 2024."
    gates, inquiry = "The gates jammed on March 6, 2024.", "An inquiry opened on March 15, 2024."
    analysis = analyse_topic(Topic(1, [Question("q", 1, fail, (cup, gates, inquiry, "Rain fell."))], docs))
    node = {analysis.graph.nodes[n]["text"]: n for n in analysis.graph}
    row = {p: dict(zip(EVIDENCE_FEATURES, r))
           for p, r in zip(analysis.doc_evidence.pairs, analysis.doc_evidence.features)}
    before, related, after = (row[(node[cup], node[fail])], row[(node[gates], node[fail])],
                              row[(node[inquiry], node[fail])])
    # dated before and nothing relates it to the failure: the later dates read no date at all, as a topic without
    # dates; the benchmark's dates group reads the gap either way
    assert all(np.isnan(before[f]) for f in GROUPS["later dates"]) and before["text_date_gap"] == 4
    assert related["linked_days_before"] == 1 and np.isnan(related["text_dated_after"])  # "because the gates jammed"
    assert after["text_dated_after"] == 8 and after["event_dated_after"] == 8 and np.isnan(after["linked_days_before"])
