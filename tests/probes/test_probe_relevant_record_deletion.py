"""relevant_record_deletion: a record the program read deleted (followed through `source_records`),
the expected label recomputed by executing the program."""

import numpy as np
from test_probes import TF_TABLES, tabfact_outputs

from tabprobe.probes import Example, ProbeContext, get_probe
from tabprobe.probes.tabfact.needs import ProgramFacts

PROBE = get_probe("relevant_record_deletion")
GAMES = TF_TABLES["2-1.html.csv"]


def test_deleting_a_record_a_count_needed_refutes_the_statement():
    for seed in range(8):
        out = tabfact_outputs(PROBE, seed)
        (count,) = out["tf:1"]  # "the lions were played 2 times"
        assert count.provenance["deleted_record"]["cells"][1] == "lions" and count.expected == "C"
        (lookup,) = out["tf:0"]  # the bears' record is the only one the lookup read
        assert lookup.provenance["deleted_record"]["index"] == 0 and lookup.expected == "C"


def test_the_programs_records_are_followed_through_an_earlier_edit():
    """On a table whose records were reordered, the deleted record is the one that stood where the
    program read (records_read index the original table)."""
    reordered = GAMES.with_records(GAMES.records[::-1], GAMES.source_records[::-1])
    program = "eq{hop{filter_eq{all_rows; opponent; bears}; week}; 1}=True"
    ctx = ProbeContext(np.random.default_rng(0), TF_TABLES, needs={"programs": {"u": ProgramFacts(program, (0,), ())}})
    (item,) = PROBE.apply(Example("u", GAMES.table_id, "the bears played in week 1", "E"), reordered, None, ctx)
    assert item.provenance["deleted_record"] == {"index": 3, "source": 0, "cells": list(GAMES.records[0])}
