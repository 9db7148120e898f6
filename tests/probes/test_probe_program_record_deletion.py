"""program_record_deletion: a random record deleted, the expected label recomputed by executing the
statement's program on the edited table."""

import numpy as np
import pytest
from test_probes import TF_TABLES, tabfact_outputs

from tabprobe.data.relational.table import RelationalTable
from tabprobe.data.tabfact.programs import execute
from tabprobe.probes import Example, NotApplicable, ProbeContext, ProbeExample, get_probe
from tabprobe.probes.tabfact.needs import ProgramFacts
from tabprobe.probes.tabfact.record_edits import EXPECTED_BY_EXECUTION, delete_record, program_deletion, relabelled

PROBE = get_probe("program_record_deletion")
GAMES = TF_TABLES["2-1.html.csv"]


def test_the_expected_label_is_what_the_program_gives_on_the_edited_table():
    seen = set()
    for seed in range(16):
        for uid, out in tabfact_outputs(PROBE, seed).items():
            if isinstance(out, str):
                continue
            (item,) = out
            result = execute(item.provenance["program"], item.table.header, item.table.records).result
            assert item.expected == ("E" if result else "C") and item.provenance["result_after"] == result
            assert len(item.table.records) == len(GAMES.records) - 1
            if uid == "tf:1":  # "the lions were played 2 times": a lions record deleted refutes it
                lions = item.provenance["deleted_record"]["cells"][1] == "lions"
                assert item.expected == ("C" if lions else "E")
                seen.add(item.expected)
    assert seen == {"E", "C"}


def test_statements_without_a_program_or_whose_program_disagrees_with_gold_are_skipped():
    out = tabfact_outputs(PROBE, 0)
    assert out["tf:4"] == "the statement has no program (only the bootstrap split's statements have one)"
    ctx = ProbeContext(np.random.default_rng(0), TF_TABLES)
    example = Example("tf:0", GAMES.table_id, "the bears played in week 1", "C")
    with pytest.raises(NotApplicable, match="no programs were given"):
        PROBE.apply(example, GAMES, None, ctx)
    ctx.needs = {
        "programs": {"tf:0": ProgramFacts("eq{hop{filter_eq{all_rows; opponent; bears}; week}; 1}=True", (0,), ())}
    }
    with pytest.raises(NotApplicable, match="does not give the gold label"):
        PROBE.apply(example, GAMES, None, ctx)


def test_a_program_that_does_not_run_on_the_edited_table_is_skipped_with_the_reason():
    facts = ProgramFacts("eq{hop{filter_eq{all_rows; opponent; bears}; week}; 1}=True", (0,), ("week", "opponent"))
    narrowed = GAMES.with_columns([1, 2, 3])  # no week column
    example = Example("tf:0", GAMES.table_id, "the bears played in week 1", "E")
    with pytest.raises(NotApplicable, match=r"does not run on the edited table \(ProgramValueError\)"):
        relabelled(example, facts, execute(facts.program, GAMES.header, GAMES.records), narrowed, {})


def test_a_program_that_orders_text_is_skipped_it_cannot_be_run_soundly():
    """`bears` before `lions` in the alphabet is no claim: the example would rest on a meaningless result."""
    ctx = ProbeContext(np.random.default_rng(0), TF_TABLES)
    example = Example("tf:0", GAMES.table_id, "the bears came after the lions", "C")
    program = "greater{hop{filter_eq{all_rows; week; 1}; opponent}; hop{filter_eq{all_rows; week; 2}; opponent}}=True"
    ctx.needs = {"programs": {"tf:0": ProgramFacts(program, (0, 1), ("week", "opponent"))}}
    with pytest.raises(NotApplicable, match=r"does not run on the original table \(UnsoundProgramError\)"):
        PROBE.apply(example, GAMES, None, ctx)


# `back` is one record's position and part of another's: the program's filter takes the exact cell.
ROSTER = RelationalTable(
    "2-9.html.csv", "roster", ("player", "position"), (("ann", "running back"), ("bo", "back"), ("cy", "guard"))
)
BACK = "eq{count{filter_eq{all_rows; position; back}}; 1}=True"


def test_after_a_deletion_the_program_reads_the_table_as_it_read_the_original():
    """With `bo` deleted, exact-first matching would fall back to the fuzzy one and count ann's `running back`
    (the statement would hold, by another reading); read as on the original, no record is `back`: refuted."""
    example = Example("tf:9", ROSTER.table_id, "one player plays back", "E")
    outcome = execute(BACK, ROSTER.header, ROSTER.records)
    ctx = ProbeContext(np.random.default_rng(0), {ROSTER.table_id: ROSTER})
    ctx.needs = {"programs": {"tf:9": ProgramFacts(BACK, outcome.records_read, outcome.columns_read)}}
    (gone,) = program_deletion(example, ROSTER, ctx, lambda table, facts: [1])
    assert gone.expected == "C" and gone.provenance["readings"] == ["filter_eq: exact"]
    assert execute(BACK, gone.table.header, gone.table.records).result  # what the fuzzy fallback would say
    (kept,) = program_deletion(example, ROSTER, ctx, lambda table, facts: [2])
    assert kept.expected == "E" and len(kept.table.records) == 2


def test_the_invariant_reads_the_new_table_as_the_gold_one_and_refuses_an_unsound_program():
    example = Example("tf:9", ROSTER.table_id, "one player plays back", "E")
    edited, _ = delete_record(ROSTER, 1)
    fuzzy = ProbeExample(example.hypothesis, edited, "E", {"program": BACK, "result_after": True})
    assert (
        EXPECTED_BY_EXECUTION.check(example, ROSTER, fuzzy)
        == "the program gives C on the new table, the example expects E"
    )
    exact = ProbeExample(example.hypothesis, edited, "C", {"program": BACK, "result_after": False})
    assert EXPECTED_BY_EXECUTION.check(example, ROSTER, exact) is None
    alphabet = (
        "greater{hop{filter_eq{all_rows; player; ann}; position}; hop{filter_eq{all_rows; player; cy}; position}}"
    )
    unsound = ProbeExample(example.hypothesis, ROSTER, "E", {"program": alphabet, "result_after": True})
    assert "UnsoundProgramError" in EXPECTED_BY_EXECUTION.check(example, ROSTER, unsound)
