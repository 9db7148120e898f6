"""The hypothesis edits the hypothesis probes share (probes/infotabs/hypothesis/edits/: numbers and
monotonicity, dates and a table's years, negation, durations, quantifiers), on hand-written
sentences parsed by the real spaCy English model. What each probe does with them is in
tests/probes/test_probe_<name>.py; what holds of several at once in tests/test_hypothesis_probes.py
and tests/test_more_hypothesis_probes.py."""

from __future__ import annotations

import numpy as np
import pytest
from test_hypothesis_probes import EXAMPLES, TABLES

from tabprobe.data.infobox.table import Row, Table
from tabprobe.probes.infotabs.hypothesis.edits.dates import (
    MONTHS,
    PRESENT_YEAR,
    change_month,
    free_dates,
    generalise_date,
    shift_year,
    table_years,
)
from tabprobe.probes.infotabs.hypothesis.edits.durations import durations, moved_duration, write_duration
from tabprobe.probes.infotabs.hypothesis.edits.negation import negation_edit
from tabprobe.probes.infotabs.hypothesis.edits.numbers import (
    MONOTONE_WORDS,
    PAPER_TABLE2,
    TEMPORAL_WORDS,
    Number,
    monotone_edit,
    monotone_number_probe,
    monotone_numbers,
)
from tabprobe.probes.infotabs.hypothesis.edits.quantifiers import (
    QUANTIFIER_COMPLEMENTS,
    QUANTIFIER_DETERMINERS,
    quantifier_edits,
    quantifier_flipping_edits,
    quantifier_preserving_edits,
)


def _example(i):
    from tabprobe.probes import Example

    record = EXAMPLES.to_pylist()[i]
    return Example(record["uid"], record["table_id"], record["hypothesis"], record["label"])


# ---------------------------------------------------------------- numbers and monotonicity (hypothesis_edits/numbers.py)


@pytest.mark.parametrize(
    "text,value,written_twice",
    [
        ("1,234", 1234.0, "2,468"),
        ("3.5", 3.5, "7.0"),
        ("1979", 1979.0, "3958"),
        ("46:06", 2766.0, "92:12"),
        ("1:02:03", 3723.0, "2:04:06"),
        ("12", 12.0, "24"),
    ],
)
def test_numbers_are_read_and_rewritten_in_their_own_format(text, value, written_twice):
    number = Number.parse(text)
    assert number.value == value
    assert number.format(number.value) == text
    assert number.format(2 * number.value) == written_twice


def test_what_is_not_a_number_is_left_alone():
    for text in ["12a", "1,23", "46:75", "", "one"]:
        assert Number.parse(text) is None


@pytest.mark.parametrize("word", sorted(MONOTONE_WORDS))
@pytest.mark.parametrize("label", ["E", "C"])
def test_each_monotone_word_moves_its_number_the_right_way(nlp, word, label):
    temporal = word in TEMPORAL_WORDS
    text = f"The band was formed {word} 1970." if temporal else f"The film runs {word} 100 minutes."
    items = monotone_numbers(nlp(text))
    assert [(m.word, m.text, m.temporal) for m in items] == [(word, "1970" if temporal else "100", temporal)]
    keeps_entail_up = MONOTONE_WORDS[word] == "up"
    keeps_label_up = keeps_entail_up if label == "E" else not keeps_entail_up
    old = items[0].number.value
    rng = np.random.default_rng(0)
    kept, provenance = monotone_edit(text, items[0], label, flip=False, rng=rng)
    new = Number.parse(provenance["changes"][0]["new"]).value
    assert (new > old) == keeps_label_up and new != old
    assert "heuristic" not in provenance
    flipped, provenance = monotone_edit(text, items[0], label, flip=True, rng=rng)
    new = Number.parse(provenance["changes"][0]["new"]).value
    assert (new > old) == (not keeps_label_up)
    if temporal:
        assert abs(new - old) == 30 and provenance["heuristic"] == "30 years"
    else:
        assert new == (2 * old if new > old else old / 2) and provenance["heuristic"] == "half/twice"
    assert provenance["word_from_paper_table2"] == (word in PAPER_TABLE2)


def test_paper_table2_directions():
    # Table 2: upward monotone moves keep CONTRADICT for over / more than / after and ENTAIL
    # for under / less than / before.
    for word in ("over", "more than", "after"):
        assert MONOTONE_WORDS[word] == "down"
    for word in ("under", "less than", "before"):
        assert MONOTONE_WORDS[word] == "up"


def test_numbers_in_other_formats_move_and_keep_their_format(nlp):
    rng = np.random.default_rng(1)
    for text, pattern in [
        ("The city has more than 1,234 residents.", r"\d{1,3}(,\d{3})*"),
        ("The river is under 3.5 km long.", r"\d+\.\d"),
        ("The album is less than 46:06 long.", r"\d+:\d\d"),
    ]:
        item = monotone_numbers(nlp(text))[0]
        _, provenance = monotone_edit(text, item, "E", flip=True, rng=rng)
        import re

        assert re.fullmatch(pattern, provenance["changes"][0]["new"]), provenance


def test_a_negated_sentence_gets_no_monotone_edit(nlp):
    example = _example(0)
    doc = nlp("The film does not run over 100 minutes.")
    from tabprobe.probes import NotApplicable, ProbeContext

    ctx = ProbeContext(rng=np.random.default_rng(0), tables=TABLES)
    with pytest.raises(NotApplicable, match="negated"):
        monotone_number_probe(example, TABLES["T10"], doc, ctx, temporal=False, flip=False)


# ---------------------------------------------------------------- dates (hypothesis_edits/dates.py)


def test_dates_generalise_shift_and_change_month(nlp):
    text = "Breakfast in America was released on March 29, 1979."
    (date,) = free_dates(nlp(text))
    assert generalise_date(text, date)[0] == "Breakfast in America was released in 1979."
    for sentence, general in [
        ("Jeff Bridges was born in the summer of 1949.", "Jeff Bridges was born in 1949."),
        ("The band started making songs in 1969.", "The band started making songs in the 1960s."),
        ("Karen Gillan was born in 1987.", "Karen Gillan was born in the 1980s."),
    ]:
        (entity,) = free_dates(nlp(sentence))
        assert generalise_date(sentence, entity)[0] == general
    winter = "Jeff Bridges was born in the winter of 1949."  # the winter of 1949 runs into 1950
    (entity,) = free_dates(nlp(winter))
    assert generalise_date(winter, entity) is None and shift_year(winter, entity, np.random.default_rng(0)) is None
    since = "The band has played since 1969."
    assert all(generalise_date(since, e) is None for e in free_dates(nlp(since)))  # "since the 1960s" says more
    rng = np.random.default_rng(3)
    shifted, provenance = shift_year(text, date, rng)
    year = int(provenance["changes"][0]["new"])
    assert 1 <= abs(year - 1979) <= 10 and shifted == text.replace("1979", str(year))
    changed, provenance = change_month(text, date, rng)
    assert provenance["changes"][0]["old"] == "March" and provenance["changes"][0]["new"] in MONTHS
    assert provenance["changes"][0]["new"] != "March"


def test_the_years_and_spans_of_a_table():
    table = Table(
        "T9",
        "Zed",
        (
            Row("Years active", ("1995 (1995)-present", "1939–45")),
            Row("Born", ("(2008-12-01) 1 December 2008",)),
            Row("Era", ("the 1880s",)),
        ),
        "Person",
    )
    years, spans = table_years(table)
    assert {1995, 1939, 1945, 2008, PRESENT_YEAR} <= years
    assert sorted(spans) == [(1880, 1889), (1939, 1945), (1995, PRESENT_YEAR)]  # no span from an ISO date


# ---------------------------------------------------------------- negation (hypothesis_edits/negation.py)


@pytest.mark.parametrize(
    "text,negated",
    [
        ("Ada Quill is a poet.", "Ada Quill is not a poet."),
        ("Ada Quill was born in London.", "Ada Quill was not born in London."),
        ("Ada Quill won the Hugo Award.", "Ada Quill did not win the Hugo Award."),
        ("Ada Quill writes poems.", "Ada Quill does not write poems."),
        ("Ada Quill isn't married.", "Ada Quill is married."),
        ("The band can't play jazz.", "The band can play jazz."),
        (
            "Breakfast in America was not produced by Pete Henderson.",
            "Breakfast in America was produced by Pete Henderson.",
        ),
    ],
)
def test_negation_is_inserted_or_removed(nlp, text, negated):
    assert negation_edit(nlp(text))[0] == negated


@pytest.mark.parametrize(
    "text",
    ["Ada Quill has no children.", "Ada Quill never married.", "Ada Quill was born in London and lives in Paris."],
)
def test_negation_skips_sentences_it_cannot_flip_reliably(nlp, text):
    assert negation_edit(nlp(text)) is None


# ---------------------------------------------------------------- durations (hypothesis_edits/durations.py)


def test_durations_are_read_with_their_unit_number_and_monotone_word(nlp):
    found = durations(nlp("The album is over an hour long and took two years, not 46 minutes, to make."))
    assert [(d.value, d.unit, d.digits, d.word) for d in found] == [
        (1, "hour", False, "over"),
        (2, "year", False, None),
        (46, "minute", True, None),
    ]
    for text in [
        "Jet took a four year hiatus.",  # an adjective
        "It runs 2 hours and 5 minutes.",  # a compound
        "It is pretty close to two hours long.",  # an approximation
        "It came out once a month.",  # a frequency
        "It ran for about 30 years.",
        "It was active for more than a quarter of a century.",
        "Identity Crisis only ran in one year.",  # a calendar year
    ]:
        assert durations(nlp(text)) == [], text


def test_a_duration_moves_into_a_smaller_unit_rather_than_to_zero_or_a_fraction(nlp):
    (item,) = durations(nlp("It is over an hour long."))
    new, unit = moved_duration(item, "down", large=False, rng=np.random.default_rng(0))
    assert unit == "minute" and 42 <= new <= 54
    assert moved_duration(item, "down", large=True, rng=np.random.default_rng(0)) == (30, "minute")
    (item,) = durations(nlp("It was active in more than one century."))
    assert moved_duration(item, "down", large=False, rng=np.random.default_rng(0)) is None  # a count: no years
    assert write_duration(item, 2, "century", "century") == "two centuries"


# ---------------------------------------------------------------- quantifiers (hypothesis_edits/quantifiers.py)


@pytest.mark.parametrize(
    "text,complement",
    [
        ("Ada Quill has more than 3 children.", "Ada Quill has no more than 3 children."),
        ("The film runs over 100 minutes.", "The film runs no more than 100 minutes."),
        ("The album is under 40 minutes long.", "The album is at least 40 minutes long."),
        ("Fewer than 1,234 people live there.", "At least 1,234 people live there."),
        ("Ada Quill has at least one child.", "Ada Quill has less than one child."),
        ("At most 5 people live in Oslo.", "More than 5 people live in Oslo."),
        ("The river is less than 3.5 km long.", "The river is at least 3.5 km long."),
    ],
)
def test_quantifiers_swap_for_their_complement(nlp, text, complement):
    ((edited, provenance),) = quantifier_edits(nlp(text))
    assert edited == complement
    assert QUANTIFIER_COMPLEMENTS[provenance["quantifier"]] == provenance["complement"]
    # the complement of the complement says the same as the original
    same_meaning = [
        {"more than", "over", "greater than"},
        {"less than", "fewer than", "under"},
        {"at least", "no less than", "no fewer than"},
        {"at most", "no more than"},
    ]
    double = QUANTIFIER_COMPLEMENTS[provenance["complement"]]
    assert any({double, provenance["quantifier"]} <= group for group in same_meaning)


@pytest.mark.parametrize(
    "text",
    [
        "Ada Quill wrote more poems than Bo Lind.",
        "It changed over the years.",
        "Ada Quill is at least as tall as Bo Lind.",
    ],
)
def test_quantifiers_need_a_number(nlp, text):
    assert quantifier_edits(nlp(text)) == []


@pytest.mark.parametrize(
    "text,label,kept",
    [
        ("Most people in Oslo speak Norwegian.", "E", "Some people in Oslo speak Norwegian."),
        ("Most of the songs were written by Ada Quill.", "C", "All of the songs were written by Ada Quill."),
        ("Ada Quill has won several awards.", "E", "Ada Quill has won multiple awards."),
        ("The prize is awarded every year.", "C", "The prize is awarded each year."),
        ("All the songs are pop songs.", "E", "Most of the songs are pop songs."),
        ("Some nations send athletes.", "C", "All nations send athletes."),
        ("Kanye West has won many awards.", "E", "Kanye West has won multiple awards."),
    ],
)
def test_a_quantifier_is_weakened_when_true_and_strengthened_when_false(nlp, text, label, kept):
    ((hypothesis, provenance),) = quantifier_preserving_edits(nlp(text), label)
    assert hypothesis == kept
    assert provenance["quantifier"] in QUANTIFIER_DETERMINERS


@pytest.mark.parametrize(
    "text,label",
    [
        ("Ada Quill is the most popular poet in Oslo.", "C"),  # a superlative
        ("Ada Quill has as many awards as Bo Lind.", "E"),  # a comparison
        ("Ada Quill did not win many awards.", "E"),  # negated: weakening would strengthen
        ("Most people like some songs.", "E"),  # two quantifiers
        ("Ada Quill has been married for several years.", "C"),  # "several" may be false for too many
        ("Kanye West has won many awards.", "C"),  # nothing stronger than "many" is sure to be false
        ("It happens every four years.", "E"),  # a frequency
    ],
)
def test_quantifiers_that_do_not_simply_weaken_or_strengthen_are_left_alone(nlp, text, label):
    assert quantifier_preserving_edits(nlp(text), label) == []


@pytest.mark.parametrize(
    "text,label,flipped,heuristic",
    [
        ("All Burn Energy drinks are sugar free.", "C", "Not all Burn Energy drinks are sugar free.", False),
        ("Every issue was published on a Monday.", "E", "Not every issue was published on a Monday.", False),
        ("Some nations send athletes.", "E", "No nations send athletes.", False),
        ("Some of the nations send athletes.", "E", "None of the nations send athletes.", False),
        ("Most people in Oslo speak Norwegian.", "E", "Few people in Oslo speak Norwegian.", True),
        ("Kanye West has won many awards.", "E", "Kanye West has won few awards.", True),
    ],
)
def test_a_quantifier_is_flipped_by_its_contradictory_or_as_a_heuristic(nlp, text, label, flipped, heuristic):
    ((hypothesis, provenance),) = quantifier_flipping_edits(nlp(text), label)
    assert hypothesis == flipped
    assert ("heuristic" in provenance) == heuristic


def test_a_contrary_is_no_flip_of_a_false_sentence(nlp):
    # "won many awards" false (two awards) does not make "won few awards" true for sure
    assert quantifier_flipping_edits(nlp("Kanye West has won many awards."), "C") == []
    assert quantifier_flipping_edits(nlp("Kanye West won most of the awards."), "E") == []  # "few of": not English
