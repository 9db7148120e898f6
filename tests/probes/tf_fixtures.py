"""Small TabFact tables and statements, in TabFact's lower-cased tokenised form, shared by the
test files of the TabFact statement probes (tests/probes/test_probe_tf_*.py)."""

from __future__ import annotations

from tabprobe.data.infobox.table import Row, Table
from tabprobe.data.relational.table import RelationalTable
from tabprobe.probes import Example, NotApplicable, ProbeContext, get_probe
from tabprobe.seeding import seeded_rng

PLAYERS = RelationalTable(
    "2-1-1.html.csv",
    "1990 - 92 red lions season",
    ("player", "team", "goals", "year", "ground", "result"),
    (
        ("john smith", "red lions", "5", "1990", "red lions park", "2 - 1"),
        ("adam jones", "blue birds", "3", "1991", "bird nest", "0 - 0"),
        ("lee park", "red lions", "7", "1990", "red lions park", "3 - 2"),
        ("mark lee", "green town", "5", "1992", "town field", "1 - 4"),
    ),
)
# Another table of the split: names for the rename, a premise for the swap.
RIVALS = RelationalTable(
    "2-1-2.html.csv",
    "rivals",
    ("player", "team", "caps"),
    (("ola berg", "north star", "12"), ("kai toivo", "south wind", "4")),
)
SAME_HEADER = RelationalTable("2-1-3.html.csv", "1993 red lions season", PLAYERS.header, PLAYERS.records[:1])
TABLES = {t.table_id: t for t in (PLAYERS, RIVALS, SAME_HEADER)}
INFOBOX = Table("T1", "Ada Quill", (Row("Born", ("1901",)),), "Person")


def example(statement: str, label: str = "E", table: RelationalTable = PLAYERS) -> Example:
    return Example(f"{table.table_id}:0", table.table_id, statement, label)


def run(name: str, statement: str, label: str = "E", table=PLAYERS, seed: int = 1):
    """The probe's one output on the statement, with a context seeded as the workflow seeds it."""
    ctx = ProbeContext(rng=seeded_rng(seed, name), tables=TABLES, shared={})
    (out,) = get_probe(name).apply(example(statement, label, table), table, None, ctx)
    return out


def reason(name: str, statement: str, label: str = "E", table=PLAYERS) -> str:
    """Why the probe does not apply (fails the test if it does)."""
    ctx = ProbeContext(rng=seeded_rng(1, name), tables=TABLES, shared={})
    try:
        get_probe(name).apply(example(statement, label, table), table, None, ctx)
    except NotApplicable as why:
        return str(why)
    raise AssertionError(f"{name} applied to {statement!r}")


def breaches(name: str, statement: str, out, label: str = "E", table=PLAYERS) -> list:
    from tabprobe.probes import invariants

    return invariants.breaches(invariants.of(get_probe(name)), example(statement, label, table), table, out)
