"""An explicitly irrelevant number beside the relevant one (numerical-qa-robustness, Verbosity
perturbation): a table cell holding just a number N (and its unit) that the hypothesis mentions
as a quantity becomes "N (not M)". The cell must be the one the hypothesis speaks of: its unit
follows the number in the hypothesis, or its key's words are in the hypothesis (an age of 38 is
not "married at 38"). The table still states N: label preserved."""

import re

from tabprobe.data.infobox.table import Row
from tabprobe.probes.base import Example, NotApplicable, Probe, ProbeContext, ProbeExample
from tabprobe.probes.infotabs.number_edits import NUMERIC_CELL, integer_value, is_unit, quantities
from tabprobe.probes.infotabs.table_edits import key_words, stem
from tabprobe.probes.invariants import CHANGES_SOMETHING, HYPOTHESIS_KEPT, ROW_EDITS_REPLAY


def _unit_word(text: str) -> str:
    return text.casefold().rstrip("s.")


def apply(example: Example, table, doc, ctx: ProbeContext) -> list[ProbeExample]:
    hypothesis_words = {stem(w) for w in re.findall(r"[a-z]+", example.hypothesis.casefold())}
    out = []
    for digits in sorted({m.group(0) for m in quantities(example.hypothesis)}):
        after = [
            example.hypothesis[m.end() :].split()[:1] for m in quantities(example.hypothesis) if m.group(0) == digits
        ]
        units = {_unit_word(words[0]) for words in after if words}
        cells = []
        for r, row in enumerate(table.rows):
            for v, value in enumerate(row.values):
                m = NUMERIC_CELL.match(value)
                if not m or m.group(1) != digits or (m.group(2) and not is_unit(m.group(2).strip())):
                    continue  # not a number and its unit ("2017 IPL" is a season's name)
                unit = (m.group(2) or "").split()
                if (unit and _unit_word(unit[0]) in units) or (key_words(row.key) & hypothesis_words):
                    cells.append((r, v))
        if not cells:
            continue
        value = integer_value(digits)
        step = int(ctx.rng.integers(1, max(2, value // 2 + 1)))
        other = value + step if value - step <= 0 or ctx.rng.random() < 0.5 else value - step
        rows, changed = list(table.rows), []
        for r, v in cells:
            values = list(rows[r].values)
            new = values[v].replace(digits, f"{digits} (not {other})", 1)
            changed.append({"row": r, "key": rows[r].key, "value_index": v, "old": values[v], "new": new})
            values[v] = new
            rows[r] = Row(rows[r].key, tuple(values))
        out.append(
            ProbeExample(
                example.hypothesis,
                table.with_rows(rows),
                example.label,
                {"rule": "verbosity", "number": digits, "distractor": other, "table_cells": changed},
            )
        )
    if not out:
        raise NotApplicable("no cell holding just a number the hypothesis speaks of")
    return out


PROBE = Probe(
    name="num_verbosity",
    description="Rewrite a table cell's number N that the hypothesis mentions as 'N (not M)' (label kept).",
    apply=apply,
    judged_by="expected",
    paper_reference="numerical-qa-robustness section 4.2 (Verbosity)",
    family="numeric",
    invariants=(HYPOTHESIS_KEPT, ROW_EDITS_REPLAY, CHANGES_SOMETHING),
)
