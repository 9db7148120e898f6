"""What a probe changed (tabprobe.probes.diff) and which examples a model failed (tabprobe.report.failures)."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from tabprobe.data.infobox.table import Row, Table
from tabprobe.probes import get_probe
from tabprobe.probes.diff import example_changes, table_diff, text_diff
from tabprobe.report.failures import find_failures

TABLE = Table(
    "T1",
    "Breakfast in America",
    (
        Row("Released", ("29 March 1979",)),
        Row("Genre", ("Pop", "Rock")),
        Row("Length", ("46:06",)),
        Row("Producer", ("Pete Henderson",)),
    ),
)


def statuses(change):
    return [(r.status, r.key) for r in change.rows]


def test_text_diff_marks_an_insertion_and_a_multiword_replacement():
    assert text_diff("Phoenix has been acting.", "Phoenix has not been acting.") == (
        ("same", "Phoenix has "),
        ("new", "not "),
        ("same", "been acting."),
    )
    # Changed words separated by spaces are one replacement, not three.
    assert text_diff("Despicable Me 3 flopped.", "Dear White People flopped.") == (
        ("old", "Despicable Me 3 "),
        ("new", "Dear White People "),
        ("same", "flopped."),
    )
    assert text_diff("same", "same") == (("same", "same"),)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="ab ,.1", max_size=30), st.text(alphabet="ab ,.1", max_size=30))
def test_text_diff_spells_both_texts(before, after):
    segments = text_diff(before, after)
    assert "".join(t for k, t in segments if k != "new") == before
    assert "".join(t for k, t in segments if k != "old") == after


def test_table_diff_names_deleted_inserted_changed_and_moved_rows():
    assert not table_diff(TABLE, TABLE).changed
    deleted = table_diff(TABLE, TABLE.with_rows(TABLE.rows[:1] + TABLE.rows[2:]))
    assert statuses(deleted) == [("kept", "Released"), ("deleted", "Genre"), ("kept", "Length"), ("kept", "Producer")]
    inserted = table_diff(TABLE, TABLE.with_rows(TABLE.rows + (Row("Label", ("A&M",)),)))
    assert statuses(inserted)[-1] == ("inserted", "Label")
    updated = table_diff(TABLE, TABLE.with_rows((TABLE.rows[0], Row("Genre", ("Pop", "Jazz"))) + TABLE.rows[2:]))
    genre = updated.rows[1]
    assert (genre.status, genre.old_values, genre.values) == ("changed", ("Pop", "Rock"), ("Pop", "Jazz"))
    moved = table_diff(TABLE, TABLE.with_rows((TABLE.rows[3],) + TABLE.rows[:3]))
    assert statuses(moved) == [("moved", "Producer"), ("kept", "Released"), ("kept", "Genre"), ("kept", "Length")]
    assert moved.rows[0].old_index == 3


def test_table_diff_keeps_the_original_order_of_rows_deleted_together():
    emptied = table_diff(TABLE, Table("T1", "", ()))
    assert statuses(emptied) == [("deleted", k) for k in TABLE.keys] and emptied.new_title == ""


def probe_row(uid, probe, table, hypothesis="Breakfast in America is pop.", label="E", expected=None, provenance=None):
    return {
        "uid": uid,
        "orig_uid": uid.split("/")[0],
        "table_id": "T1",
        "hypothesis": hypothesis,
        "label": label,
        "probe": probe,
        "table": table.to_arrow(),
        "expected": expected,
        "provenance": json.dumps(provenance or {}),
    }


def test_failures_of_a_transition_probe_are_the_forbidden_moves():
    deleted = TABLE.with_rows(TABLE.rows[1:])
    rows = [probe_row(f"a:{i}/row_deletion", "row_deletion", deleted) for i in range(4)]
    before = {"a:0": "E", "a:1": "E", "a:2": "N", "a:3": "C"}
    after = {"a:0/row_deletion": "N", "a:1/row_deletion": "C", "a:2/row_deletion": "E", "a:3/row_deletion": "C"}
    found = find_failures(get_probe("row_deletion"), rows, after, before, n=5, seed=1)
    assert [f.row["uid"] for f in found.shown] == ["a:1/row_deletion", "a:2/row_deletion"]  # E->C, N->E
    assert (found.failed, found.judged) == (2, 4)
    assert "allowed after ENTAIL: ENTAIL, NEUTRAL" in found.shown[0].reason
    changes = example_changes(
        [f.row for f in found.shown],
        {"a:1": {"table_id": "T1", "hypothesis": rows[1]["hypothesis"]}},
        {"T1": TABLE},
        after,
        before,
    )
    assert statuses(changes[0].table)[0] == ("deleted", "Released") and changes[0].pred == "C"


def test_failures_of_an_expected_label_probe_are_flips_the_change_caused():
    rows = [probe_row(f"a:{i}/negation_flip", "negation_flip", TABLE, label="E", expected="C") for i in range(3)]
    before = {"a:0": "E", "a:1": "E", "a:2": "C"}  # a:2 was wrong before the change: not the change's fault
    after = {"a:0/negation_flip": "E", "a:1/negation_flip": "C", "a:2/negation_flip": "E"}
    found = find_failures(get_probe("negation_flip"), rows, after, before, n=5, seed=1)
    assert [f.row["uid"] for f in found.shown] == ["a:0/negation_flip"] and found.judged == 3


def test_failures_of_an_external_set_count_paired_lines_only_and_score_unpaired_lines_apart():
    from tabprobe.probes import register_external

    probe = register_external("their_set", "flipped")
    paired = [
        dict(probe_row(f"their_set:{i}", "their_set", TABLE, label="E", expected="C"), orig_uid=f"a:{i}")
        for i in range(4)
    ]
    # Two lines made from no gold example (their own originals): no "before", so never a failure
    # the change caused; scored apart.
    unpaired = [
        dict(probe_row(f"their_set:{i}", "their_set", TABLE, label="N", expected="N"), orig_uid=f"their_set:{i}")
        for i in (8, 9)
    ]
    before = {"a:0": "E", "a:1": "E", "a:2": "E"}  # a:3 outside `original`'s cap: no prediction
    after = {
        "their_set:0": "E",
        "their_set:1": "C",
        "their_set:2": "E",
        "their_set:3": "E",
        "their_set:8": "C",
        "their_set:9": "N",
    }
    found = find_failures(probe, paired + unpaired, after, before, n=5, seed=1)
    assert [f.row["uid"] for f in found.shown] == ["their_set:0", "their_set:2"]
    assert (found.failed, found.judged, found.unpaired, found.unpaired_right, found.no_original) == (2, 3, 2, 1, 1)
    assert found.caption() == (
        "2 of 3 (66.7%); 2 line(s) paired with no gold example, scored apart: 1 right (50.0%); "
        "1 without a prediction on their original (outside `original`'s cap), not judged"
    )


def test_failures_of_a_premise_control_are_gold_answers_without_the_evidence():
    rows = [probe_row(f"a:{i}/hypothesis_only", "hypothesis_only", Table("T1", "", ()), expected="E") for i in range(2)]
    after = {"a:0/hypothesis_only": "E", "a:1/hypothesis_only": "N"}
    found = find_failures(get_probe("hypothesis_only"), rows, after, {"a:0": "E", "a:1": "E"}, n=5, seed=1)
    assert [f.row["uid"] for f in found.shown] == ["a:0/hypothesis_only"]


def test_failures_of_evidence_selection_are_irrelevant_rows_that_move_the_prediction():
    rows = [
        probe_row(
            f"a:0/evidence_selection/{i}",
            "evidence_selection",
            TABLE,
            provenance={"relevant": i == 0, "deleted_row": {"index": i}},
        )
        for i in range(3)
    ]
    after = {rows[0]["uid"]: "N", rows[1]["uid"]: "C", rows[2]["uid"]: "E"}
    found = find_failures(get_probe("evidence_selection"), rows, after, {"a:0": "E"}, n=5, seed=1)
    assert [f.row["uid"] for f in found.shown] == [rows[1]["uid"]]


def test_the_shown_failures_are_a_seeded_sample_in_file_order():
    rows = [probe_row(f"a:{i}/row_permutation", "row_permutation", TABLE) for i in range(40)]
    after = {r["uid"]: "C" for r in rows}
    before = {f"a:{i}": "E" for i in range(40)}

    def pick(seed, *names):
        shown = find_failures(get_probe("row_permutation"), rows, after, before, 5, seed, *names).shown
        return [f.row["uid"] for f in shown]

    assert pick(3, "m") == pick(3, "m") and len(pick(3, "m")) == 5
    assert pick(3, "m") != pick(4, "m") or pick(3, "m") != pick(3, "other")
    shown = pick(3, "m")
    assert shown == sorted(shown, key=lambda uid: int(uid.split(":")[1].split("/")[0]))


def test_a_deleted_row_stands_where_it_stood_even_beside_a_moved_row():
    a, b, c, d = TABLE.rows
    change = table_diff(TABLE, TABLE.with_rows((d, a, c)))
    assert statuses(change) == [("moved", "Producer"), ("kept", "Released"), ("deleted", "Genre"), ("kept", "Length")]


def test_a_replaced_premise_is_shown_as_the_model_sees_it_and_an_unpaired_line_as_given():
    other = Table("T9", "Hamlet", (Row("Author", ("Shakespeare",)),))
    swapped = probe_row(
        "a:0/swapped_table", "swapped_table", other, expected="E", provenance={"premise": "swapped", "from_table": "T9"}
    )
    unpaired = {**probe_row("x:3", "my_set", TABLE, expected="C"), "orig_uid": "x:3"}
    changes = example_changes(
        [swapped, unpaired], {"a:0": {"table_id": "T1", "hypothesis": swapped["hypothesis"]}}, {"T1": TABLE}
    )
    assert (
        statuses(changes[0].table) == [("kept", "Author")]
        and "another table of the split (T9)" in changes[0].premise_note
    )
    assert changes[0].has_original and not changes[1].has_original


def test_an_example_without_its_original_prediction_is_not_judged_unless_it_is_its_own_original():
    rows = [
        probe_row("a:0/negation_flip", "negation_flip", TABLE, expected="C"),
        probe_row("a:1", "original", TABLE, expected="E"),
    ]
    after = {"a:0/negation_flip": "E", "a:1": "N"}
    flips = find_failures(get_probe("negation_flip"), rows[:1], after, {}, n=5, seed=1)
    assert (flips.failed, flips.judged) == (0, 0)  # right or wrong before? unknown: not counted
    original = find_failures(get_probe("original"), rows[1:], after, {"a:1": "N"}, n=5, seed=1)
    assert (original.failed, original.judged) == (1, 1) and original.shown[0].reason == "NEUTRAL, expected ENTAIL"
