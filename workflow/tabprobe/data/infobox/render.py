"""Premise text for a model, rendered from an infobox (Gupta et al., 2020, section 6.1).

One function per rendering and every caller goes through `render`, so a perturbed table is
rendered exactly like an original one.
"""

from __future__ import annotations

from tabprobe.data.infobox.table import Table
from tabprobe.data.tapex import linearise

# Gupta et al. render these keys as "{title} was {key} on {value}." instead of "The {key} of ...".
EVENT_KEYS = frozenset({"born", "died"})


def para(table: Table) -> str:
    """Table as a paragraph: "The {key} of {title} are {v1, v2}." per row."""
    sentences = []
    for row in table.rows:
        key = row.key.lower()
        value = ", ".join(row.values)
        if key in EVENT_KEYS:
            sentences.append(f"{table.title} was {key} on {value}.")
        else:
            sentences.append(f"The {key} of {table.title} are {value}.")
    return " ".join(sentences)


def struct(table: Table) -> str:
    """Compact, as fact-checking datasets write tables: "title : t ; key : v1 , v2 ; key : v"."""
    parts = [f"title : {table.title}"]
    parts += [f"{row.key} : {' , '.join(row.values)}" for row in table.rows]
    return " ; ".join(parts)


def markdown(table: Table) -> str:
    """A Markdown table under the title, for language models, which have read many:
    "{title}\n| key | value |\n| --- | --- |\n| born | 12 March 1950 |". A "|" inside a cell is
    escaped so that it cannot open a column."""

    def cell(text: str) -> str:
        return text.replace("|", "\\|")

    lines = [table.title, "| key | value |", "| --- | --- |"]
    lines += [f"| {cell(row.key)} | {cell(', '.join(row.values))} |" for row in table.rows]
    return "\n".join(lines)


def tapex(table: Table) -> str:
    """TAPEX's linearisation (Liu et al., 2022) of the infobox as a two-column table, lower-cased as
    TAPEX was pre-trained: "col : key | value row 1 : title | {title} row 2 : {key} | {v1}, {v2} ...".
    TAPEX has no slot for a caption, so the title is the first row, under the key "title" (as
    `struct` writes it first): the infobox's subject is what most hypotheses name, and a row keeps
    it inside the structure the model reads rather than as loose text before "col". A key with
    several values is one cell, its values joined by ", " as in `para`."""
    rows = [("title", table.title)] + [(row.key, ", ".join(row.values)) for row in table.rows]
    return linearise(("key", "value"), rows)


def hypothesis_only(table: Table) -> str:
    """No premise at all: the hypothesis-only baseline."""
    return ""


RENDERINGS = {"para": para, "struct": struct, "markdown": markdown, "tapex": tapex, "hypothesis_only": hypothesis_only}


def render(table: Table, how: str) -> str:
    if not table.title and not table.rows:
        return ""  # an empty table is no premise (the hypothesis_only probe), in every rendering
    try:
        return RENDERINGS[how](table)
    except KeyError:
        raise ValueError(f"unknown premise rendering {how!r}; expected one of {', '.join(RENDERINGS)}") from None
