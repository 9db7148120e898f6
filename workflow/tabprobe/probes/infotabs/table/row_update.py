"""Replace one value of a multi-valued row by a value of the same key from another table of the
same category (paper section 5.1, appendix Table 14): a value new to the row (compared without
case, spacing and bracketed asides), of the same kind (a date for a date, a number for a
number), in a row of plain values (no labelled slots such as "1st: 762.5 kJ/mol"). Only C -> E is named as prohibited by
the paper; the full rule set is this project's reading (docs/probes.md, marked "ours")."""

import re

from tabprobe.data.infobox.table import Row, Table, normalised
from tabprobe.probes.base import Example, NotApplicable, PaperNumbers, Probe, ProbeContext, ProbeExample
from tabprobe.probes.infotabs.table_edits import holds_a_date, stem
from tabprobe.probes.invariants import TABLE_EDIT, VALUE_NEW_TO_ROW
from tabprobe.probes.transitions import PROJECT, transition_rule


def core(value: str) -> str:
    """A value as compared for "is it new": without case, spacing and bracketed asides
    ("Superman (Kal-El)" is "superman")."""
    return normalised(re.sub(r"\([^)]*\)", " ", value))


def plain(value: str) -> bool:
    """A value that is one thing: no label ("1st: 762.5 kJ/mol"), aside ("(Eastern)"), list
    ("Nantes, Rennes") or ranges run together ("1979 - 1998 2009 - present")."""
    return (
        bool(value.strip())
        and not re.search(r"[:()\[\];/,%]|\s(?:and|or|&)\s", value)
        and not re.match(r"(?:and|or|&)\b", value.strip())
        and len(re.findall(r"\d\s*[-–—]\s*(?:\d|present)", value)) < 2
    )  # "1979 - 1998 2009 - present": two ranges


def same_kind(old: str, new: str) -> bool:
    """A date for a date, a number for a number (never a child's name for a count), and neither
    holding the other ("Rock" is not updated to "Hard rock")."""
    number = re.compile(r"^[\d.,]+(?:\s+\w+)?$")
    a, b = core(old), core(new)
    return (
        holds_a_date([old]) == holds_a_date([new])
        and bool(number.match(old.strip())) == bool(number.match(new.strip()))
        and a not in b
        and b not in a
    )


# Values that name one thing in two Englishes or two registers ("Gasoline" for a row holding "Petrol").
VALUE_SYNONYMS = (
    frozenset({"gasoline", "petrol", "gas"}),
    frozenset({"diesel", "diesel fuel"}),
    frozenset({"automobile", "car", "motorcar"}),
    frozenset({"aluminum", "aluminium"}),
    frozenset({"film", "movie", "motion picture"}),
    frozenset({"football", "soccer", "association football"}),
    frozenset({"singer", "vocalist", "vocals", "lead vocals"}),
)


def new_to(value: str, row_values) -> bool:
    """Not a value of the row, nor a form of one ("Actress" in a row holding "actor": one starts
    with the other's stem), nor another word for one (VALUE_SYNONYMS)."""
    held = {core(v) for v in row_values}
    new = core(value)
    if new in held or any(new in group and held & group for group in VALUE_SYNONYMS):
        return False
    if len(new.split()) == 1:
        for old in (h for h in held if len(h.split()) == 1):
            a, b = stem(old), stem(new)
            if (len(a) >= 3 and new.startswith(a)) or (len(b) >= 3 and old.startswith(b)):
                return False
    return True


def apply(example: Example, table: Table, doc, ctx: ProbeContext) -> list[ProbeExample]:
    multi = [i for i, row in enumerate(table.rows) if len(row.values) >= 2 and all(plain(v) for v in row.values)]
    if not multi:
        raise NotApplicable("table has no multi-valued row of plain values")
    index = multi[int(ctx.rng.integers(len(multi)))]
    row = table.rows[index]
    key = normalised(row.key)
    # Compared without case, spacing and asides: "pop" does not update "Pop", nor "Singer" a row
    # that already says "singer"; drawn from tables of the same category, where one key name
    # means one attribute (a painting's Medium is not a TV series').
    position = int(ctx.rng.integers(len(row.values)))
    old = row.values[position]
    replacements = sorted(
        {
            (value, other_id)
            for other_id in sorted(ctx.tables)
            if other_id != table.table_id and ctx.tables[other_id].category == table.category
            for other_row in ctx.tables[other_id].rows
            if normalised(other_row.key) == key
            for value in other_row.values
            if plain(value) and new_to(value, row.values) and same_kind(old, value)
        }
    )
    if not replacements:
        raise NotApplicable("no table of the same category has a new value for this key")
    value, source_id = replacements[int(ctx.rng.integers(len(replacements)))]
    values = list(row.values)
    values[position] = value
    rows = list(table.rows)
    rows[index] = Row(row.key, tuple(values))
    change = {
        "updated_row": {
            "index": index,
            "key": row.key,
            "value_index": position,
            "old": old,
            "new": value,
            "from_table": source_id,
        }
    }
    return [ProbeExample(example.hypothesis, table.with_rows(rows), expected=None, provenance=change)]


# Which changes of prediction the edit allows (this project's reading; the paper names only some prohibited transitions).
RULE = transition_rule("row_update", PROJECT, E="EC", N="NC", C="CN")
# RoBERTa-large's invalid transitions in the paper, shown beside the run's.
PAPER_NUMBERS = PaperNumbers(
    figure="Figure 8",
    table="Table 14",
    invalid_transition_pct={
        "E": {"alpha1": 0.08, "alpha2": 0.22, "alpha3": 0.12},
        "N": {"alpha1": 0.12, "alpha2": 0.11, "alpha3": 0.09},
        "C": {"alpha1": 0.49, "alpha2": 0.3, "alpha3": 0.19},
    },
)


PROBE = Probe(
    name="row_update",
    description="Replace one value of a multi-valued row by a value of the same key from another table.",
    apply=apply,
    judged_by="transitions",
    transition_rule=RULE,
    paper_numbers=PAPER_NUMBERS,
    paper_reference="section 5.1, appendix Table 14",
    invariants=(*TABLE_EDIT, VALUE_NEW_TO_ROW),
)
