"""Replace one value of a multi-valued row by a value of the same key from another table (paper
section 5.1, appendix Table 14). Only C -> E is named as prohibited by the paper; the full rule set
is this project's reading (DESIGN.md)."""

from .base import Example, NotApplicable, Probe, ProbeContext, ProbeExample
from ..table import Row, Table


def apply(example: Example, table: Table, doc, ctx: ProbeContext) -> list[ProbeExample]:
    multi = [i for i, row in enumerate(table.rows) if len(row.values) >= 2]
    if not multi:
        raise NotApplicable("table has no multi-valued row")
    index = multi[int(ctx.rng.integers(len(multi)))]
    row = table.rows[index]
    key = row.key.strip().lower()
    replacements = sorted(
        {
            (value, other_id)
            for other_id in sorted(ctx.tables)
            if other_id != table.table_id
            for other_row in ctx.tables[other_id].rows
            if other_row.key.strip().lower() == key
            for value in other_row.values
            if value and value not in row.values
        }
    )
    if not replacements:
        raise NotApplicable("no other table has a new value for this key")
    position = int(ctx.rng.integers(len(row.values)))
    value, source_id = replacements[int(ctx.rng.integers(len(replacements)))]
    values = list(row.values)
    old = values[position]
    values[position] = value
    rows = list(table.rows)
    rows[index] = Row(row.key, tuple(values))
    change = {"updated_row": {"index": index, "key": row.key, "value_index": position, "old": old, "new": value,
                              "from_table": source_id}}
    return [ProbeExample(example.hypothesis, table.with_rows(rows), expected=None, provenance=change)]


PROBE = Probe(
    name="row_update",
    description="Replace one value of a multi-valued row by a value of the same key from another table.",
    apply=apply,
    judged_by="transitions",
    transition_rule="row_update",
    paper_reference="section 5.1, appendix Table 14",
)
