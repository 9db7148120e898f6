"""program_cell_update: a cell the program read replaced with another value of its column, the
expected label recomputed by executing the program."""

from test_probes import TF_TABLES, tabfact_outputs

from tabprobe.data.tabfact.programs import execute
from tabprobe.probes import get_probe

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
