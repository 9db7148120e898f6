"""An independent check of TabFact probe files: every example read back from the files a run (or
bench/tabfact_probe_files.py) wrote, its edited table compared with the gold table cell by cell,
and its expected label checked against what the edited table says, without the probes' code.

What "the edited table contradicts the expected label" means, probe by probe:
- program probes (bootstrap split): the statement's human-written program, executed on the table
  AS STORED in the probe file, read as it read the gold table (each filter's exact or fuzzy match and
  each ranking's numbers or dates: programs.execute's `like`), must give the expected label (True: E,
  False: C), and must run soundly there (no ordering of text); the table must
  differ from the gold one by exactly the edit the probe names (one record gone, one cell changed),
  found by comparing the two tables, not by reading the provenance; a record the program read must
  be the one gone for relevant_record_deletion, and one it did not read for irrelevant_record_deletion
  (whose label must stay the gold one).
- tf_number_flip / tf_entity_flip (E -> C): the number written into the statement is held by no cell
  of its column / the entity written in is a cell of its column whose record does not hold the cells
  the statement ties to the old one; the table is the gold one.
- tf_entity_rename (label kept): the new name is in no cell of the gold table, and the edited table is
  the gold one with the old name replaced by the new in exactly the cells that changed.
- table probes judged by transitions: the records are the gold ones reordered / less one / plus one
  new, the columns the gold ones reordered; record deletion and insertion only on statements with
  none of the words that make a statement depend on every record (counts, superlatives, ordinals).
- premise controls: an empty table / another table with another header; expected = gold.

    PYTHONPATH=workflow .venv/bin/python bench/check_tabfact_probe_files.py /tmp/tabfact-probes [--sample 200]

Exits 1 when any example fails, listing the first few.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path

import pyarrow.parquet as pq

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "workflow"))

from tabprobe.data.tabfact.programs import ProgramError, execute  # noqa: E402

# Words that tie a statement to every record (independent of probes/tabfact/statement_kinds.py's lists).
EVERY_RECORD = re.compile(
    r"\b(total|number of|how many|count|average|sum|most|least|highest|lowest|best|worst|largest|smallest|"
    r"first|last|only|all|every|none|times|more than|less than|fewer)\b|\b\w+est\b"
)


def table_of(record: dict) -> tuple[tuple[str, ...], list[tuple[str, ...]]]:
    return tuple(record["header"]), [tuple(r) for r in record["records"]]


def check_program(name: str, row: dict, gold: dict, program: dict) -> str | None:
    header, records = table_of(row["table"])
    gold_header, gold_records = table_of(gold)
    try:
        on_gold = execute(program["program"], gold_header, gold_records)
        result = execute(program["program"], header, records, like=on_gold).result
    except ProgramError as error:
        return f"the program does not run (soundly) on the gold or the stored table ({error})"
    if ("E" if result else "C") != row["expected"]:
        return f"the program gives {result} on the stored table, expected {row['expected']}"
    if name == "program_cell_update":
        changed = [(i, j) for i, (a, b) in enumerate(zip(records, gold_records)) for j in range(len(a)) if a[j] != b[j]]
        if header != gold_header or len(records) != len(gold_records) or len(changed) != 1:
            return f"the table differs from the gold one in {len(changed)} cells, not one"
        return None
    gone = Counter(gold_records) - Counter(records)
    if header != gold_header or len(records) != len(gold_records) - 1 or sum(gone.values()) != 1:
        return "the table is not the gold one less one record"
    (missing,) = gone
    read = {tuple(gold_records[i]) for i in program["records_read"]}
    if name == "relevant_record_deletion" and missing not in read:
        return "the deleted record is not one the program read"
    if name == "irrelevant_record_deletion" and (missing in read or row["expected"] != row["label"]):
        return "the deleted record was read by the program, or the label moved"
    return None


def check_statement_edit(name: str, row: dict, gold: dict, hypothesis: str, provenance: dict) -> str | None:
    header, records = table_of(row["table"])
    gold_header, gold_records = table_of(gold)
    if name in ("tf_number_flip", "tf_entity_flip"):
        if (header, records) != (gold_header, gold_records):
            return "the table changed"
        if row["label"] != "E" or row["expected"] != "C":
            return "not an ENTAILED statement flipped to REFUTED"
        new = provenance["new"]
        if name == "tf_number_flip":
            columns = [header.index(c) for c in provenance["columns"]]
            if any(new in r[c].split() for r in records for c in columns):  # cells are tokenised
                return f"a cell of {provenance['columns']} holds the new number {new}"
        else:
            column = provenance["column_index"]
            holders = [r for r in records if r[column] == new]
            if not holders:
                return f"the new entity {new!r} is no cell of its column"
            tied = set(provenance.get("tied_cells", []))
            if any(tied <= set(r) for r in holders):
                return f"a record of {new!r} holds every tied cell {sorted(tied)}"
        return None
    if name == "tf_entity_rename":
        old, new = provenance["old"], provenance["new"]
        if any(new in cell for r in gold_records for cell in r) or row["expected"] != row["label"]:
            return f"the new name {new!r} is in the gold table, or the label moved"
        renamed = [tuple(_rename_tokens(cell, old, new) for cell in r) for r in gold_records]
        if header != gold_header or records != renamed:
            return "the table is not the gold one with the name replaced"
        return None
    if name == "tf_negation":
        words, gold_words = hypothesis.split(), row["original_hypothesis"].split()
        if abs(len(words) - len(gold_words)) > 2 or ("not" in words) == ("not" in gold_words):
            return "the statement does not differ by one negation"
        return None
    return f"no check for {name}"


def _rename_tokens(cell: str, old: str, new: str) -> str:
    """`old` replaced by `new` where it stands as whole tokens of the (tokenised) cell."""
    return re.sub(rf"(?<!\S){re.escape(old)}(?!\S)", new, cell)


def check_table_probe(name: str, row: dict, gold: dict, hypothesis: str) -> str | None:
    header, records = table_of(row["table"])
    gold_header, gold_records = table_of(gold)
    if row["expected"] is not None:
        return "a transition probe's example carries an expected label"
    if name == "column_permutation":
        columns = sorted(zip(header, *records)) if records else sorted(header)
        gold_columns = sorted(zip(gold_header, *gold_records)) if gold_records else sorted(gold_header)
        return None if columns == gold_columns and header != gold_header else "not the gold columns reordered"
    if header != gold_header:
        return "the header changed"
    if name == "record_permutation":
        return None if sorted(records) == sorted(gold_records) and records != gold_records else "not a reordering"
    if EVERY_RECORD.search(hypothesis):
        return "a deletion or insertion on a statement that depends on every record"
    if name == "record_deletion":
        ok = len(records) == len(gold_records) - 1 and not Counter(records) - Counter(gold_records)
        return None if ok else "not the gold records less one"
    if name == "record_insertion":
        added = Counter(records) - Counter(gold_records)
        ok = (
            len(records) == len(gold_records) + 1 and sum(added.values()) == 1 and next(iter(added)) not in gold_records
        )
        return None if ok else "not the gold records plus one new"
    return f"no check for {name}"


def check_premise_control(name: str, row: dict, gold: dict) -> str | None:
    """The premise controls, and tf_original: the gold label expected; no table, another table's
    header, or (tf_original) the gold table and statement as they were."""
    if row["expected"] != row["label"]:
        return "the expected label is not the gold one"
    if name == "tf_original":
        same = row["table"]["header"] == gold["header"] and row["table"]["records"] == gold["records"]
        return None if same and row["hypothesis"] == row["original_hypothesis"] else "the example was changed"
    if name == "tf_hypothesis_only":
        return None if not row["table"]["records"] and not row["table"]["header"] else "the table is not empty"
    return None if row["table"]["header"] != gold["header"] else "the swapped table has the gold header"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("results", help="a run's results/ folder (TabFact's data in data/tabfact/), or one like it")
    parser.add_argument("--sample", type=int, default=0, help="check every n-th example only (0: all)")
    args = parser.parse_args()
    root = Path(args.results)
    data = root / "data" / "tabfact"
    failures, checked = [], Counter()
    for probe_file in sorted(root.glob("probes/*/*.parquet")):
        name, split = probe_file.parent.name, probe_file.stem
        if "header" not in pq.read_schema(probe_file).field("table").type.names:
            continue  # an InfoTabS probe of the same run (infobox tables)
        gold_tables = {r["table_id"]: r for r in pq.read_table(data / f"{split}.tables.parquet").to_pylist()}
        gold_examples = {r["uid"]: r for r in pq.read_table(data / f"{split}.parquet").to_pylist()}
        programs_file = data / f"{split}.programs.parquet"
        programs = {r["uid"]: r for r in pq.read_table(programs_file).to_pylist()} if programs_file.exists() else {}
        rows = pq.read_table(probe_file).to_pylist()
        for i, row in enumerate(rows):
            if args.sample and i % args.sample:
                continue
            gold = gold_tables[row["table_id"]]
            row["original_hypothesis"] = gold_examples[row["orig_uid"]]["hypothesis"]
            provenance = json.loads(row["provenance"])
            if name.startswith("program_") or name.endswith("_record_deletion") and row["orig_uid"] in programs:
                problem = check_program(name, row, gold, programs[row["orig_uid"]])
            elif name in ("tf_original", "tf_hypothesis_only", "tf_swapped_table"):
                problem = check_premise_control(name, row, gold)
            elif name.startswith("tf_"):
                problem = check_statement_edit(name, row, gold, row["hypothesis"], provenance)
            else:
                problem = check_table_probe(name, row, gold, row["hypothesis"])
            checked[name] += 1
            if problem:
                failures.append(f"{name} {row['uid']}: {problem}")
    for name, count in sorted(checked.items()):
        bad = sum(1 for f in failures if f.startswith(f"{name} "))
        print(f"{name:28} {count:5} checked, {bad} contradicted")
    print(f"{sum(checked.values())} examples of {len(checked)} probes checked; {len(failures)} fail")
    for line in failures[:20]:
        print("  " + line)
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
