"""program_record_deletion: a random record deleted, the expected label recomputed by executing the
statement's program on the edited table."""

import numpy as np
import pytest
from test_probes import TF_TABLES, tabfact_outputs

from tabprobe.data.tabfact.programs import execute
from tabprobe.probes import Example, NotApplicable, ProbeContext, get_probe
from tabprobe.probes.base import ProgramFacts
from tabprobe.probes.record_edits import relabelled

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
    ctx.programs = {"tf:0": ProgramFacts("eq{hop{filter_eq{all_rows; opponent; bears}; week}; 1}=True", (0,), ())}
    with pytest.raises(NotApplicable, match="does not give the gold label"):
        PROBE.apply(example, GAMES, None, ctx)


def test_a_program_that_does_not_run_on_the_edited_table_is_skipped_with_the_reason():
    facts = ProgramFacts("eq{hop{filter_eq{all_rows; opponent; bears}; week}; 1}=True", (0,), ("week", "opponent"))
    narrowed = GAMES.with_columns([1, 2, 3])  # no week column
    example = Example("tf:0", GAMES.table_id, "the bears played in week 1", "E")
    with pytest.raises(NotApplicable, match=r"does not run on the edited table \(ProgramValueError\)"):
        relabelled(example, facts, True, narrowed, {})
