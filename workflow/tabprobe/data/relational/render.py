"""Premise text for a model, rendered from a relational table (a caption, a header and records).

The names are the infobox renderings' (data/infobox/render.py) where they mean the same: "para" writes the table
as sentences, "struct" compactly, "markdown" as a Markdown table for causal LMs, "tapex" as TAPEX
linearises a table, "hypothesis_only" not at all. Every caller goes through `render`, so a perturbed
table is rendered exactly like an original one. The text stays as the files write it (lower-cased,
tokenised, punctuation spaced), the form the models of such a dataset are trained on. A caption
of NO_CAPTION ("none") marks a table without one: it is left out rather than written as a word the model
would read as content.
"""

from __future__ import annotations

from tabprobe.data.relational.table import NO_CAPTION, RelationalTable
from tabprobe.data.tapex import linearise


def caption(table: RelationalTable) -> str | None:
    """The table's caption, or None where it has none ("none" or empty)."""
    return table.title if table.title.strip() and table.title != NO_CAPTION else None


def para(table: RelationalTable) -> str:
    """One sentence per record, in Table-BERT's template (Chen et al., 2020), after one naming the
    caption: "the table is about {caption} . row 1 is : col1 is v1 ; col2 is v2 . row 2 is : ..."."""
    sentences = [f"the table is about {caption(table)} ."] if caption(table) else []
    for number, record in enumerate(table.records, start=1):
        cells = " ; ".join(f"{name} is {value}" for name, value in zip(table.header, record))
        sentences.append(f"row {number} is : {cells} .")
    return " ".join(sentences)


def struct(table: RelationalTable) -> str:
    """Compact: "title : t ; header : c1 | c2 ; row 1 : v1 | v2 ; row 2 : ...". A cell holds commas
    ("october 5 , 2003"), so cells are separated by "|", which the cells do not use."""
    parts = [f"title : {caption(table)}"] if caption(table) else []
    parts.append(f"header : {' | '.join(table.header)}")
    parts += [f"row {number} : {' | '.join(record)}" for number, record in enumerate(table.records, start=1)]
    return " ; ".join(parts)


def markdown(table: RelationalTable) -> str:
    """A Markdown table under the caption, for language models, which have read many:
    "{caption}\\n| c1 | c2 |\\n| --- | --- |\\n| v1 | v2 |". A "|" inside a cell is escaped so that it
    cannot open a column."""

    def row(cells) -> str:
        return "| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |"

    lines = [caption(table)] if caption(table) else []
    lines += [row(table.header), row("---" for _ in table.header)]
    lines += [row(record) for record in table.records]
    return "\n".join(lines)


def tapex(table: RelationalTable) -> str:
    """TAPEX's linearisation (Liu et al., 2022), lower-cased as TAPEX was trained:
    "col : c1 | c2 row 1 : v1 | v2 row 2 : ...". The caption is left out: TAPEX's fact-checking
    fine-tuning handed its tokenizer the header and records alone, so a TAPEX checkpoint has never
    read one."""
    return linearise(table.header, table.records)


def hypothesis_only(table: RelationalTable) -> str:
    """No premise at all: the hypothesis-only baseline."""
    return ""


RENDERINGS = {"para": para, "struct": struct, "markdown": markdown, "tapex": tapex, "hypothesis_only": hypothesis_only}


def render(table: RelationalTable, how: str) -> str:
    if how not in RENDERINGS:
        raise ValueError(f"unknown premise rendering {how!r}; expected one of {', '.join(RENDERINGS)}")
    if not table.records:
        # A table without records states no fact to check a statement against (a caption and a
        # header name only the subject): no premise, as an empty infobox renders.
        return ""
    return RENDERINGS[how](table)
