"""Another operation on the same numbers (numerical-qa-robustness, Logic perturbation): the
comparison num_comparative would write of a cell's quantity V and a number N ("more than",
"less than" or "exactly"), with its relation replaced by another order comparison ("more than",
"less than", "at least", "at most"), and the label recomputed by the rule for the new relation
from V as the table holds it. The table is kept. "exactly V" becomes "at least V" (ENTAIL) or
"more than V" (CONTRADICT): at N = V the strict and the inclusive operations part, so the same
numbers get different labels; elsewhere "at least N" agrees with "more than N" and "at most N"
with "less than N". "exactly" is never the new relation: it is false for every N but V, which
would tilt the labels towards CONTRADICT.

Why a template, not the gold hypothesis: swapping the operation of a gold comparison ("more than
35,000 students" -> "less than 35,000 students") has a computable label only where the number is
compared with one cell the rule can read, and in alpha1 two hypotheses are ("George Mason
University has more than 35,000 students.", "Hugo has a running time of 126 minutes."): InfoTabS's
comparisons are mostly of derived quantities ("active for over 50 years"). The paper, too,
perturbed Logic only on templates it matched or on problems annotated by hand (section 4.2)."""

from tabprobe.probes.base import Example, NotApplicable, Probe, ProbeContext, ProbeExample
from tabprobe.probes.infotabs.number_edits import NUMERIC_CELL, integer_value
from tabprobe.probes.infotabs.numeric.number_templates import (
    NO_ENGLISH,
    RELATIONS,
    base_comparison,
    comparison_cells,
    label_for,
    sentence,
    states_the_comparison,
)
from tabprobe.probes.invariants import TABLE_KEPT, Invariant

# The operations a comparison may be given (HOLDS: the rule of each).
OPERATIONS = ("more than", "less than", "at least", "at most")


def apply(example: Example, table, doc, ctx: ProbeContext) -> list[ProbeExample]:
    name, cells = comparison_cells(table)
    out = []
    for row_index, value_index, value, unit in cells:
        base_relation, number = base_comparison(value, ctx.rng)
        others = [r for r in OPERATIONS if r != base_relation]
        relation = others[int(ctx.rng.integers(len(others)))]
        grouped = "," in table.rows[row_index].values[value_index]
        provenance = {
            "rule": "logic_template",
            "row": row_index,
            "key": table.rows[row_index].key,
            "unit": unit,
            "grouped": grouped,
            "relation": relation,
            "value": value,
            "number": number,
            "base": {"relation": base_relation, "label": label_for(base_relation, value, number)},
        }
        text = sentence(table.rows[row_index].key, name, relation, number, unit, grouped)
        if text is not None:
            out.append(ProbeExample(text, table, label_for(relation, value, number), provenance))
    if not out:
        raise NotApplicable(NO_ENGLISH)
    return out


def _another_operation(example, table, out):
    """The relation is an operation other than the base comparison's, on V as the gold cell holds
    it; the base comparison's recorded label is the rule's too."""
    p = out.provenance
    base = p["base"]
    if base["relation"] not in RELATIONS or p["relation"] not in OPERATIONS or p["relation"] == base["relation"]:
        return f"{base['relation']!r} -> {p['relation']!r} is not a change of operation"
    values = table.rows[p["row"]].values
    gold = NUMERIC_CELL.match(values[0]) if len(values) == 1 else None
    if gold is None or integer_value(gold.group(1)) != p["value"]:
        return f"the gold cell {list(values)} does not hold {p['value']}"
    if label_for(base["relation"], p["value"], p["number"]) != base["label"]:
        return f"the base comparison {p['value']} {base['relation']} {p['number']} is not {base['label']}"
    return None


PROBE = Probe(
    name="num_logic",
    description="num_comparative's comparison with another operation (more/less than, at least/most), label by rule.",
    apply=apply,
    judged_by="expected",
    paper_reference="numerical-qa-robustness section 4.2 (Logic)",
    family="numeric",
    invariants=(
        Invariant("labels the comparison by the table's cell", states_the_comparison),
        Invariant("changes the operation, keeps the numbers", _another_operation),
        TABLE_KEPT,
    ),
)
