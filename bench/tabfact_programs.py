"""Benchmark: how many of TabFact's 1,499 bootstrap programs the executor (tabprobe.data.tabfact.programs)
evaluates to their label on their own table, and how many bootstrap statements are found in the splits.

Every bootstrap program ends in `=True` (it parses an entailed statement), so a program that evaluates to
True agrees; one that evaluates to False disagrees; one that cannot run fails (a parse error, an unknown
function, or a value error such as a column that is not in the table). Printed overall and by function (a
program counts once under every function it calls), with a sample of the programs that did not agree.

Statement matching: the bootstrap keeps the raw statement ("jarron collins played for the jazz ..."), the
split files (tokenized_data/{train,val,test}_examples.json) the tokenised, partly lemmatised one ("... there
be ..."). A bootstrap statement is looked up among the statements of its own table, in its table's split:
- exact: the same string;
- tokens: the same after lower-casing and splitting into words and punctuation marks (so `31, 1991` and
  `31 , 1991` match), the final `.` dropped;
- lemma-blind: the same tokens after the forms of "be" and "have" are mapped to "be" and "have", number
  words up to ten to digits, and a trailing `ing` / `ed` / `es` / `s` / `e` stripped from every word of four
  letters or more (the split's lemmatiser rewrote those: "there were two games" ~ "there be 2 game");
- closest: else the table's statement most similar token for token (difflib ratio), counted when the ratio
  is at least 0.8.
The label of each matched statement is counted too (all should be 1, entailed), and how many bootstrap
statements occur (tokens, lemma-blind) among the statements of any table of any split.

    PYTHONPATH=workflow .venv/bin/python bench/tabfact_programs.py --tabfact ../shared/tabfact --out /tmp/tf.json
"""

from __future__ import annotations

import argparse
import difflib
import json
import re
from collections import Counter, defaultdict
from pathlib import Path

from tabprobe.data.tabfact import programs, reading
from tabprobe.data.tabfact.program_values import tokens

FAILURE_SAMPLE = 40
_BE = {"is", "are", "was", "were", "been", "being", "be", "am"}
_HAVE = {"has", "had", "have", "having"}
_SUFFIX = re.compile(r"(?<=\w{3})(ing|ed|es|s|e)$")
_NUMBER_WORDS = {
    word: str(number) for number, word in enumerate("zero one two three four five six seven eight nine ten".split())
}


def outcome_of(program: str, header: list[str], records: list[list[str]]) -> tuple[str, str]:
    """('true' | 'false' | the error class name, a message for failures)."""
    try:
        outcome = programs.execute(program, header, records)
    except programs.ProgramError as error:
        return type(error).__name__, str(error)[:300]
    return ("true", "") if outcome.result else ("false", "")


def functions_in(program: str) -> set[str]:
    return set(re.findall(r"([a-z_]+)\{", program))


def execution_report(bootstrap: dict, tables: Path) -> dict:
    totals: Counter = Counter()
    by_function: dict[str, Counter] = defaultdict(Counter)
    failures = []
    for table_id, entries in sorted(bootstrap.items()):
        table = reading.read_table(tables / table_id)
        for statement, _, _, _, program in entries:
            kind, message = outcome_of(program, table.header, table.records)
            totals[kind] += 1
            for function in functions_in(program):
                by_function[function][kind] += 1
            if kind != "true":
                failures.append(
                    {"table": table_id, "statement": statement, "program": program, "outcome": kind, "error": message}
                )
    return {
        "programs": sum(totals.values()),
        "outcomes": dict(totals.most_common()),
        "by_function": {
            name: dict(counts) for name, counts in sorted(by_function.items(), key=lambda item: -sum(item[1].values()))
        },
        "failures_sample": failures[:: max(1, len(failures) // FAILURE_SAMPLE)][:FAILURE_SAMPLE],
        "failures_total": len(failures),
    }


def deletion_report(bootstrap: dict, tables: Path) -> dict:
    """Whether a program's evidence is complete: every program that holds on its table re-executed
    with each record deleted in turn (read as the original table was, as the probes re-execute it),
    counting the results that changed, for the records it read and for those it did not (a change there
    would be evidence the executor failed to report)."""
    changed: Counter = Counter()
    deletions: Counter = Counter()
    for table_id, entries in sorted(bootstrap.items()):
        table = reading.read_table(tables / table_id)
        records = list(table.records)
        for _, _, _, _, program in entries:
            try:
                outcome = programs.execute(program, table.header, records)
            except programs.ProgramError:
                continue
            if outcome.result is not True:
                continue
            for index in range(len(records)):
                kind = "read" if index in outcome.records_read else "not_read"
                deletions[kind] += 1
                try:
                    edited = records[:index] + records[index + 1 :]
                    after = programs.execute(program, table.header, edited, like=outcome).result
                except programs.ProgramError:
                    after = None
                changed[kind] += after is not True
    return {"deletions": dict(deletions), "changed": dict(changed)}


def token_form(text: str) -> tuple[str, ...]:
    found = tokens(text)
    return found[:-1] if found and found[-1] == "." else found


def lemma_blind_form(text: str) -> tuple[str, ...]:
    def blind(word: str) -> str:
        if word in _BE:
            return "be"
        if word in _HAVE:
            return "have"
        return _NUMBER_WORDS.get(word) or _SUFFIX.sub("", word)

    return tuple(blind(word) for word in token_form(text))


def statement_match(statement: str, candidates: list[str]) -> tuple[str, int | None]:
    """How the statement is found among candidates ('exact', 'tokens', 'lemma-blind', 'closest', 'none') and
    the index of the match."""
    for level, form in (("exact", lambda text: text), ("tokens", token_form), ("lemma-blind", lemma_blind_form)):
        wanted = form(statement)
        for index, candidate in enumerate(candidates):
            if form(candidate) == wanted:
                return level, index
    wanted = lemma_blind_form(statement)
    ratios = [difflib.SequenceMatcher(None, wanted, lemma_blind_form(candidate)).ratio() for candidate in candidates]
    if ratios and max(ratios) >= 0.8:
        return "closest", ratios.index(max(ratios))
    return "none", None


def matching_report(bootstrap: dict, tabfact: Path) -> dict:
    split_of = {}
    statements: dict[str, tuple[list[str], list[int]]] = {}
    for split in ("train", "val", "test"):
        for table_id in json.loads((tabfact / "data" / f"{split}_id.json").read_text()):
            split_of[table_id] = split
        examples = json.loads((tabfact / "tokenized_data" / f"{split}_examples.json").read_text())
        statements.update({table_id: (entry[0], entry[1]) for table_id, entry in examples.items()})
    anywhere = {form: set() for form in ("tokens", "lemma-blind")}
    for texts, _ in statements.values():
        anywhere["tokens"].update(map(token_form, texts))
        anywhere["lemma-blind"].update(map(lemma_blind_form, texts))
    found_anywhere: Counter = Counter()
    levels: Counter = Counter()
    labels: Counter = Counter()
    by_split: dict[str, Counter] = defaultdict(Counter)
    for table_id, entries in bootstrap.items():
        texts, table_labels = statements.get(table_id, ([], []))
        for entry in entries:
            level, index = statement_match(entry[0], texts)
            found_anywhere["tokens"] += token_form(entry[0]) in anywhere["tokens"]
            found_anywhere["lemma-blind"] += lemma_blind_form(entry[0]) in anywhere["lemma-blind"]
            levels[level] += 1
            by_split[split_of.get(table_id, "none")][level] += 1
            if index is not None:
                labels[table_labels[index]] += 1
    return {
        "statements": sum(levels.values()),
        "levels": {level: levels[level] for level in ("exact", "tokens", "lemma-blind", "closest", "none")},
        "by_split": {split: dict(counts) for split, counts in sorted(by_split.items())},
        "matched_labels": {str(label): count for label, count in sorted(labels.items())},
        "found_in_any_table": dict(found_anywhere),
    }


def print_report(report: dict) -> None:
    execution = report["execution"]
    total = execution["programs"]
    print(f"programs: {total}")
    for kind, count in execution["outcomes"].items():
        print(f"  {kind:22s} {count:5d}  {count / total:6.1%}")
    print("by function (programs that call it): true / false / failed")
    for name, counts in execution["by_function"].items():
        failed = sum(count for kind, count in counts.items() if kind not in ("true", "false"))
        print(f"  {name:18s} {counts.get('true', 0):5d} {counts.get('false', 0):5d} {failed:5d}")
    print(
        f"sample of {len(execution['failures_sample'])} of {execution['failures_total']} programs that did not agree:"
    )
    for failure in execution["failures_sample"]:
        print(f"  [{failure['outcome']}] {failure['table']}: {failure['program']}  {failure['error'][:160]}")
    matching = report["matching"]
    print(f"statements matched in their table's split ({matching['statements']}): {matching['levels']}")
    print(f"  by split: {matching['by_split']}; labels of the matches: {matching['matched_labels']}")
    print(f"  found among the statements of any table of any split: {matching['found_in_any_table']}")
    deletion = report["deletion"]
    for kind, words in (("read", "read"), ("not_read", "did not read")):
        print(
            f"deleting a record the program {words}: {deletion['changed'].get(kind, 0)} of "
            f"{deletion['deletions'].get(kind, 0)} deletions change its result"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tabfact", type=Path, default=Path("../shared/tabfact"))
    parser.add_argument("--out", type=Path, help="write the report as JSON here")
    arguments = parser.parse_args()
    bootstrap = json.loads((arguments.tabfact / "bootstrap" / "bootstrap.json").read_text(encoding="utf-8"))
    report = {
        "execution": execution_report(bootstrap, arguments.tabfact / "data" / "all_csv"),
        "matching": matching_report(bootstrap, arguments.tabfact),
        "deletion": deletion_report(bootstrap, arguments.tabfact / "data" / "all_csv"),
    }
    print_report(report)
    if arguments.out:
        arguments.out.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
