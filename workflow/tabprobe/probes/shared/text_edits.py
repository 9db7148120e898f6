"""Text surgery shared by the probes that edit a hypothesis or a cell: replacements of character
spans of the original text, so the rest stays byte for byte as it was, each recorded as a change
({start, end, old, new}, offsets into the original) for provenance; and whether a noun is plural.

Kept apart from hypothesis_edits/ (the edits read off a spaCy parse), so that an edit there
re-runs only the probes that read parses, not the numeric probes that share these helpers.
"""

from __future__ import annotations

from collections.abc import Sequence


def apply_changes(text: str, changes: Sequence[dict]) -> str:
    """Apply non-overlapping {start, end, new} replacements (offsets into `text`)."""
    out, cursor = [], 0
    for change in sorted(changes, key=lambda c: c["start"]):
        if change["start"] < cursor:
            raise ValueError("overlapping hypothesis edits")
        out += [text[cursor : change["start"]], change["new"]]
        cursor = change["end"]
    out.append(text[cursor:])
    return "".join(out)


def change(text: str, start: int, end: int, new: str) -> dict:
    return {"start": start, "end": end, "old": text[start:end], "new": new}


IRREGULAR_PLURALS = frozenset(
    {
        "children",
        "people",
        "men",
        "women",
        "alumni",
        "media",
        "data",
        "criteria",
        "feet",
        "teeth",
        "mice",
        "geese",
        "staff",
        "personnel",
        "offspring",
        "cattle",
    }
)


def is_plural(word: str) -> bool:
    """Whether a noun (a table key's last word) is plural: "Genres", "Children"; not "Status",
    "Headquarters" takes either, "Physics" is one thing."""
    word = word.lower()
    return word in IRREGULAR_PLURALS or (
        word.endswith("s") and not word.endswith(("ss", "us", "is", "ics", "headquarters"))
    )
