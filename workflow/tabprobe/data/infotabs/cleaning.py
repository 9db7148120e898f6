"""Cells of the official InfoTabS tables as the tables mean them: HTML entities decoded,
invisible characters dropped, mojibake repaired, whitespace made single, key colons dropped."""

from __future__ import annotations

import html
import re
from collections import Counter

# A character reference as HTML writes it, semicolon and all ("&amp;", "&#233;", "&#x27;"): only
# these are decoded, so "R&D" or "AT&T" stay as they are.
_ENTITY = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")


def unescape_entities(text: str) -> str:
    """HTML character references decoded: the official tables hold 59 ("R&amp;B", "&lt; 2
    minutes") that every rendering and probe would otherwise read literally."""
    return _ENTITY.sub(lambda m: html.unescape(m.group(0)), text) if "&" in text else text


# Characters that print as nothing (zero-width spaces and joiners, word joiners, byte-order marks
# inside values): 273 in the official tables, where they split words that look whole.
_INVISIBLE = re.compile("[\u200b\u200c\u200d\u200e\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff\u00ad]")
# UTF-8 read as Windows-1252 ("2000â€“present" for "2000–present"): a lead byte's character
# followed by a continuation byte's.
_MOJIBAKE = re.compile(
    "[\u00c2-\u00f4][\u0080-\u00bf\u0152\u0153\u0160\u0161\u0178\u017d\u017e\u0192\u02c6\u02dc"
    "\u2013\u2014\u2018-\u201e\u2020-\u2022\u2026\u2030\u2039\u203a\u20ac\u2122]"
)


def repair_mojibake(text: str) -> str:
    """UTF-8 text once decoded as Windows-1252, decoded right ("â€“" -> "–"); anything that does
    not round-trip exactly is left as it is."""
    if not _MOJIBAKE.search(text):
        return text
    try:
        return text.encode("cp1252").decode("utf-8")
    except UnicodeError:
        return text


def clean_cell(text: str, cleaned: Counter) -> str:
    """A title, key or value as the table means it: entities decoded, invisible characters
    (zero-width, bidirectional marks) dropped, mojibake repaired, runs of whitespace (double
    spaces, non-breaking spaces, line breaks) made one space, ends stripped. Counted in `cleaned`
    (the ingest summary) by what was changed."""
    decoded = unescape_entities(text)
    if decoded != text:
        cleaned["html_entities"] += 1
    visible = _INVISIBLE.sub("", decoded)
    if visible != decoded:
        cleaned["invisible_characters"] += 1
    repaired = repair_mojibake(visible)
    if repaired != visible:
        cleaned["mojibake"] += 1
        visible = repaired
    spaced = " ".join(visible.split())
    if spaced != visible.strip():
        cleaned["whitespace"] += 1
    return spaced


# What clean_cell and clean_key count, by kind (the ingest summary's `cleaned_cells`).
CLEANED_KINDS = ("html_entities", "mojibake", "invisible_characters", "whitespace", "key_colons", "string_values")


def clean_key(key: str, cleaned: Counter) -> str:
    """A key as clean_cell makes it, without the colon 182 official keys end with ("TD-Int:")."""
    cell = clean_cell(key, cleaned)
    if cell.endswith(":"):
        cleaned["key_colons"] += 1
        cell = cell.rstrip(": ").strip()
    return cell
