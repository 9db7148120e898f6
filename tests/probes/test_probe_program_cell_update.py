"""program_cell_update: a cell the program read replaced with another value of its column, the
expected label recomputed by executing the program."""

import numpy as np
import pytest
from test_probes import TF_TABLES, tabfact_outputs

from tabprobe.data.relational.table import RelationalTable
from tabprobe.data.tabfact.programs import execute
from tabprobe.probes import Example, NotApplicable, ProbeContext, get_probe
from tabprobe.probes.tabfact.needs import ProgramFacts

PROBE = get_probe("program_cell_update")
GAMES = TF_TABLES["2-1.html.csv"]


def test_a_read_cell_gets_another_value_of_its_column_and_the_program_gives_the_label():
    for seed in range(10):
        for uid, out in tabfact_outputs(PROBE, seed).items():
            if isinstance(out, str):
                continue
            (item,) = out
            cell = item.provenance["updated_cell"]
            column = [r[cell["column"]] for r in GAMES.records]
            assert cell["old"] == GAMES.records[cell["record"]][cell["column"]] != cell["new"] in column
            changed = [
                (i, j)
                for i, record in enumerate(item.table.records)
                for j, value in enumerate(record)
                if value != GAMES.records[i][j]
            ]
            assert changed == [(cell["record"], cell["column"])]
            result = execute(item.provenance["program"], item.table.header, item.table.records).result
            assert item.expected == ("E" if result else "C")
            if uid == "tf:0":  # the bears' week or name changed: "the bears played in week 1" is refuted
                assert cell["record"] == 0 and item.expected == "C"


def test_an_update_is_read_as_the_original_table_was_and_an_unsound_program_is_skipped():
    """Two of four attendances are numbers, so argmax ranks them; an update that writes `sold out` over a
    number would leave a column of text, which has no order: the program keeps ranking numbers (a cell of
    text is no data), as it did on the original. A program that orders text is skipped, saying so."""
    table = RelationalTable(
        "2-8.html.csv",
        "1990 season",
        ("week", "opponent", "attendance"),
        (("1", "bears", "60000"), ("2", "lions", "sold out"), ("3", "packers", "70000"), ("4", "lions", "n/a")),
    )
    program = "eq{hop{argmax{all_rows; attendance}; opponent}; packers}=True"
    outcome = execute(program, table.header, table.records)
    assert outcome.result and outcome.readings == ("argmax: numbers",)
    example = Example("tf:8", table.table_id, "the packers had the highest attendance", "E")
    texts_written = 0
    for seed in range(40):
        ctx = ProbeContext(np.random.default_rng(seed), {table.table_id: table})
        ctx.needs = {"programs": {"tf:8": ProgramFacts(program, outcome.records_read, outcome.columns_read)}}
        (item,) = PROBE.apply(example, table, None, ctx)
        after = execute(program, item.table.header, item.table.records, like=outcome)
        assert item.expected == ("E" if after.result else "C") and after.readings == ("argmax: numbers",)
        texts_written += item.provenance["updated_cell"]["new"] in ("sold out", "n/a")
    assert texts_written  # some updates left one number among three cells of text, and still ranked it
    unsound = "greater{hop{filter_eq{all_rows; week; 1}; opponent}; hop{filter_eq{all_rows; week; 2}; opponent}}=True"
    ctx.needs = {"programs": {"tf:8": ProgramFacts(unsound, (0, 1), ("week", "opponent"))}}
    with pytest.raises(NotApplicable, match=r"does not run on the original table \(UnsoundProgramError\)"):
        PROBE.apply(Example("tf:8", table.table_id, "the bears came after the lions", "C"), table, None, ctx)
