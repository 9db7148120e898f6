"""A counterfactual that renames a table's subject (cf_title_swap, cf_row_swap): how a partner's
hypotheses name it (attested_names, attested_gender), what replaces each mention of the subject
(swap_mentions), and the invariant that the old subject is named no more. Where a hypothesis
names its subject is probes/infotabs/titles.py.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping

from tabprobe.data.infobox.table import Table
from tabprobe.probes.infotabs.titles import Mention, forms, is_person, mentions, name_part, words_of
from tabprobe.probes.invariants import Invariant

# Hypotheses about the name itself ("named after", "birth name", "known as"): a counterfactual
# that renames the subject changes what they say.
ABOUT_THE_NAME = re.compile(
    r"\b(?:name[ds]?|naming|called|known as|nickname[ds]?|born as|stands? for|"
    r"spell(?:ed|s|ing)?|title[ds]?)\b",
    re.IGNORECASE,
)


def attested_names(table: Table, hypotheses: Iterable[str]) -> dict[str, str]:
    """kind -> the form of the subject's name that its own hypotheses use (the longest of each
    kind found): what annotators call it, so it can stand in another sentence. A title that
    no hypothesis uses ("Free agent" on a footballer's table) attests nothing."""
    out: dict[str, str] = {}
    articles = Counter()
    for text in hypotheses:
        for mention in mentions(text, table):
            if not mention.form:
                continue  # "Hiram Hamilton Maxim" may be another Maxim than the title's
            span = text[mention.start : mention.end]
            if mention.article:
                span = re.sub(r"^[Tt]he ", "", span)
            articles[mention.article] += 1
            form = _as_in_title(" ".join(words_of(span)), table)
            kind = "name" if mention.kind == "title" else mention.kind
            if len(form) > len(out.get(kind, "")):
                out[kind] = form
    if articles[True] > articles[False]:
        out["article"] = "the"  # "the United States": its hypotheses write it with "the"
    surname = next((form for form, kind in forms(table) if kind == "surname"), None)
    if "name" in out and "surname" not in out and surname:
        out["surname"] = surname  # a person named in full may be named by the last word of that name
    return out


def _as_in_title(form: str, table: Table) -> str:
    """A form as the title spells it (hypotheses may write "fearless" for "Fearless")."""
    title = " ".join(words_of(table.title))
    at = title.lower().find(form.lower())
    return title[at : at + len(form)] if at >= 0 else form


def hypotheses_by_table(docs: Mapping[str, object]) -> dict[str, list[str]]:
    """table id -> the split's hypotheses about it, from the split's parses."""
    out: dict[str, list[str]] = {}
    for uid in sorted(docs):
        doc = docs[uid]
        out.setdefault(doc.user_data.get("table_id"), []).append(doc.text)
    return out


def replacement(mention: Mention, partner: Mapping[str, str]) -> str | None:
    """What replaces a mention of one subject by another (`partner`: its attested_names): a
    surname by its surname, a place by its place name, where it has them; else its whole name
    (None when its hypotheses never give it one)."""
    if mention.kind in ("surname", "place") and mention.kind in partner:
        name = partner[mention.kind]
    else:
        name = partner.get("name")
    if name is None or not mention.article or name.lower().startswith("the "):
        return name
    return f"the {name}" if partner.get("article") else name


def swap_mentions(text: str, table: Table, partner: Mapping[str, str]) -> tuple[str, list[dict]]:
    """`text` with every mention of `table`'s subject replaced by the partner's name
    (`partner`: its attested_names); the edits ({start, end, old, new, kind}) for provenance.
    NotApplicable when the text never names its subject."""
    from tabprobe.probes.base import NotApplicable

    found = mentions(text, table)
    if not found:
        raise NotApplicable("the hypothesis never names the table's subject")
    if ABOUT_THE_NAME.search(text):
        raise NotApplicable("the hypothesis is about the subject's name (renaming it changes the label)")
    out, edits, shift = text, [], 0
    for m in found:
        new = replacement(m, partner)
        if new is None:
            raise NotApplicable("the partner's hypotheses never give its whole name")
        end = m.end
        old = text[m.start : end]
        if old[:1].isupper() and new[:1].islower():
            new = new[0].upper() + new[1:]  # "The Faroe Islands" -> "The United States"
        after = text[end:]
        if old[:4].casefold() == "the " and not new.casefold().startswith("the ") and NOUN_AFTER_NAME.match(after):
            new = old[:4] + new  # "on the Beautifully Unconventional song": the article belongs to "song"
        quoted = text[max(m.start - 1, 0) : m.start] in ("'", "‘")  # "'Fearless' was released": a closing quote
        if (
            re.match(r"['’](?![sS]\b)", after)
            and not quoted
            and old.endswith(("s", "S"))
            and not new.endswith(("s", "S"))
        ):
            end, new = end + 1, new + after[0] + "s"  # "Cape Cross' sire" -> "Kauto Star's sire"
        elif "," in old and after.startswith(",") and "," not in new:
            end += 1  # "Jean, the Vitagraph Dog, died" -> "Hope died": the apposition's closing comma
        old = text[m.start : end]
        out = out[: m.start + shift] + new + out[end + shift :]
        shift += len(new) - len(old)
        edits.append({"start": m.start, "end": end, "old": old, "new": new, "kind": m.kind})
    return out, edits


# A noun the subject's name qualifies ("the X song"): a "the" before the name is the noun's.
NOUN_AFTER_NAME = re.compile(
    r"\s+(?:song|songs|album|albums|single|film|movie|band|group|team|club|book|novel|"
    r"series|show|game|character|tour|era|race|event|festival|award|prize|cup|league|"
    r"championship|tournament|marathon|stadium|bridge|ship|station)\b"
)


def same_subject(a: Table, b: Table, names: Mapping[str, Mapping[str, str]]) -> bool:
    """Two tables of one subject (InfoTabS has twins: two "Karen Gillan" tables): the same name
    part of the title, or the same attested name."""
    if name_part(a.title).casefold() == name_part(b.title).casefold():
        return True
    name_a, name_b = names.get(a.table_id, {}).get("name"), names.get(b.table_id, {}).get("name")
    return bool(name_a) and bool(name_b) and name_a.casefold() == name_b.casefold()


_HE = re.compile(r"\b(?:he|him|his|himself)\b", re.IGNORECASE)
_SHE = re.compile(r"\b(?:she|her|hers|herself)\b", re.IGNORECASE)


def attested_gender(hypotheses: Iterable[str]) -> str:
    """ "he" or "she" when the hypotheses about a person call them only so, else "": a subject
    named in a sentence that says "his" must be someone the sentence can call "his"."""
    he = sum(len(_HE.findall(text)) for text in hypotheses)
    she = sum(len(_SHE.findall(text)) for text in hypotheses)
    return "he" if he and not she else "she" if she and not he else ""


def split_names(ctx) -> dict[str, dict[str, str]]:
    """table id -> attested_names, and under "gender" the attested_gender of a person, for every
    table of the split (built once per split)."""
    if "subject_names" not in ctx.shared:
        hypotheses = hypotheses_by_table(ctx.need("parse"))
        names = {}
        for table_id, table in sorted(ctx.tables.items()):
            names[table_id] = attested_names(table, hypotheses.get(table_id, ()))
            if is_person(table):
                names[table_id]["gender"] = attested_gender(hypotheses.get(table_id, ()))
        ctx.shared["subject_names"] = names
    return ctx.shared["subject_names"]


def _subject_renamed(example, table, out):
    """After a counterfactual swap the hypothesis names the new subject, never the old one, and
    the table carries the new subject's title."""
    left = mentions(out.hypothesis, table)
    if left:
        return f"still names {table.title!r}: {out.hypothesis[left[0].start : left[0].end]!r} in {out.hypothesis!r}"
    if out.table.title == table.title:
        return "the table kept its title"
    return None


SUBJECT_RENAMED = Invariant("names the new subject wherever it named the old one", _subject_renamed)
