"""Helpers of the probes that read which rows a hypothesis needs (paper sections 5.2, 5.3, 6):
relevant rows by index, deletions, and the hypothesis's mentions of its table's title."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

import numpy as np

from ..seeding import seeded_rng
from ..table import Row, Table
from .base import Example, NotApplicable, ProbeContext


def relevant_indices(example: Example, table: Table, ctx: ProbeContext) -> list[int]:
    """Indices of the rows the relevance source names for this example (every row with a named
    key: a few tables repeat a key). NotApplicable when it names none."""
    keys = set(ctx.relevance[example.uid])
    indices = [i for i, row in enumerate(table.rows) if row.key in keys]
    if not indices:
        raise NotApplicable("the relevance source names no row of the table")
    return indices


def without_rows(table: Table, indices: set[int]) -> Table:
    return table.with_rows(r for i, r in enumerate(table.rows) if i not in indices)


def describe_rows(table: Table, indices) -> list[dict]:
    return [{"index": i, "key": table.rows[i].key, "values": list(table.rows[i].values)} for i in indices]


# ---------------------------------------------------------------- title mentions

# Categories whose titles are people's names, so a surname alone names them ("Obama").
_PERSON_CATEGORIES = frozenset({"Person", "Musician"})
_NOT_SURNAMES = frozenset({"band", "brothers", "sisters", "group", "orchestra", "choir", "trio", "quartet", "jr", "sr",
                           "ii", "iii", "iv", "oc", "obc", "mbe", "obe", "cbe", "kbe"})


def short_title(title: str) -> str:
    """The name part of an InfoTabS title: before a comma or bracket, spaces normalised
    ("Faroe Islands , Føroyar (Faroese)" -> "Faroe Islands"; "Bryan Adams   OC OBC" -> "Bryan Adams")."""
    name = re.split(r"\s*[,(]", title, maxsplit=1)[0]
    words = name.split()
    # trailing post-nominal letters (OC, OBC, MBE) are not part of the name
    while len(words) > 1 and words[-1].lower().strip(".") in _NOT_SURNAMES:
        words.pop()
    return " ".join(words) or title.strip()


def title_forms(table: Table) -> list[tuple[str, str]]:
    """(surface form, kind) a hypothesis may use for the table's subject, longest first: the
    full title, its name part, without a leading "The", and for people the surname."""
    full = " ".join(table.title.split())
    name = short_title(table.title)
    forms = [(full, "title"), (name, "name")]
    if name.lower().startswith("the "):
        forms.append((name[4:], "name"))
    words = name.split()
    if (table.category in _PERSON_CATEGORIES and 2 <= len(words) <= 4 and all(w[:1].isupper() for w in words)
            and words[-1].lower() not in _NOT_SURNAMES and len(words[-1]) >= 3):
        forms.append((words[-1], "surname"))
    seen, out = set(), []
    for form, kind in forms:
        if form and form.lower() not in seen:
            seen.add(form.lower())
            out.append((form, kind))
    return sorted(out, key=lambda fk: -len(fk[0]))


@dataclass(frozen=True)
class Mention:
    start: int
    end: int
    kind: str  # "title", "name" or "surname"


def find_mentions(hypothesis: str, table: Table) -> list[Mention]:
    """Where the hypothesis names the table's subject: case-insensitive, whole words, a
    possessive ("Adams's", "Adams'") left outside the span; longer forms win over the shorter
    forms they contain."""
    taken = np.zeros(len(hypothesis) + 1, dtype=bool)
    found = []
    for form, kind in title_forms(table):
        pattern = re.compile(r"(?<![\w])" + r"\s+".join(map(re.escape, form.split())) + r"(?![\w])", re.IGNORECASE)
        for match in pattern.finditer(hypothesis):
            if not taken[match.start():match.end()].any():
                taken[match.start():match.end()] = True
                found.append(Mention(match.start(), match.end(), kind))
    return sorted(found, key=lambda m: m.start)


def replacement_for(mention: Mention, other: Table) -> str:
    """What replaces a mention of one subject by the other table's subject: its surname for a
    surname where it has one, else its name."""
    if mention.kind == "surname":
        surnames = [form for form, kind in title_forms(other) if kind == "surname"]
        if surnames:
            return surnames[0]
    return short_title(other.title)


def swap_title_mentions(example: Example, table: Table, other: Table) -> tuple[str, list[dict]]:
    """The hypothesis with every mention of `table`'s subject replaced by `other`'s; the edits
    for provenance. NotApplicable when the hypothesis never names its subject."""
    mentions = find_mentions(example.hypothesis, table)
    if not mentions:
        raise NotApplicable("the title is not found in the hypothesis")
    text, edits, shift = example.hypothesis, [], 0
    for m in mentions:
        new = replacement_for(m, other)
        old = example.hypothesis[m.start:m.end]
        text = text[: m.start + shift] + new + text[m.end + shift:]
        shift += len(new) - len(old)
        edits.append({"start": m.start, "end": m.end, "old": old, "new": new, "kind": m.kind})
    return text, edits


def with_title(table: Table, title: str, table_id: str) -> Table:
    return replace(table, title=title, table_id=table_id)


def swap_rows_in(target: Table, source: Table, keys: set[str]) -> Table:
    """`target` with the values of its rows named in `keys` taken from `source`'s rows of the
    same key (the first row of each key)."""
    donor = {}
    for row in source.rows:
        donor.setdefault(row.key, row.values)
    return target.with_rows(Row(r.key, donor[r.key]) if r.key in keys and r.key in donor else r for r in target.rows)


def pair_tables(tables: dict[str, Table], seed: int, name: str) -> dict[str, str]:
    """Each table's partner, pairs mutual: tables are shuffled (seeded) within their category and
    paired in turn; the ones left over are shuffled together and paired the same way (with an
    odd count, the last joins the first pair's partner one way only)."""
    rng = seeded_rng(seed, name, "pairs")
    by_category: dict[str, list[str]] = {}
    for table_id in sorted(tables):
        by_category.setdefault(tables[table_id].category or "", []).append(table_id)
    partner: dict[str, str] = {}
    leftover: list[str] = []
    for category in sorted(by_category):
        ids = [by_category[category][i] for i in rng.permutation(len(by_category[category]))]
        if len(ids) % 2:
            leftover.append(ids.pop())
        for a, b in zip(ids[::2], ids[1::2]):
            partner[a], partner[b] = b, a
    leftover = [leftover[i] for i in rng.permutation(len(leftover))]
    if len(leftover) % 2 and len(tables) > 1:
        last = leftover.pop()
        partner[last] = leftover[0] if leftover else next(t for t in sorted(tables) if t != last)
    for a, b in zip(leftover[::2], leftover[1::2]):
        partner[a], partner[b] = b, a
    return partner
