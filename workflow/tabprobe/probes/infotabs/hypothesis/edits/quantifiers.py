"""Quantifiers of a hypothesis replaced: a comparative quantifier before a number by its
complement ("more than 3" -> "no more than 3"), a quantifying determiner by a weaker, stronger,
synonymous or contradictory one ("most" -> "some", "all" -> "not all").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tabprobe.probes.infotabs.hypothesis.edits.reading import APPROXIMATORS, comparative_in_context, is_negated
from tabprobe.probes.shared.text_edits import apply_changes, change
from tabprobe.wordlists import word_map, word_set

# Comparative quantifiers before a number, and their logical complements: "more than 3" is false
# exactly when "no more than 3" is true, so the swap flips ENTAIL and CONTRADICT by logic alone
# (unlike moving the number, which needs the half/twice heuristic).
QUANTIFIER_COMPLEMENTS: dict[str, str] = word_map("probes/words/quantifier_complements.txt")
_LONGEST_QUANTIFIER = max(len(q.split()) for q in QUANTIFIER_COMPLEMENTS)


def quantifier_edits(doc) -> list[tuple[str, dict]]:
    """Every comparative quantifier directly before a number ("more than 3", "over two",
    "at least 1,000") replaced by its complement, one edit each; not under an approximator
    ("just over 2 minutes") or where "over" spans time ("held over two weeks")."""
    text, tokens, out, i = doc.text, list(doc), [], 0
    while i < len(tokens):
        for length in range(_LONGEST_QUANTIFIER, 0, -1):
            span = tokens[i : i + length]
            phrase = " ".join(t.lower_ for t in span)
            if (
                len(span) == length
                and phrase in QUANTIFIER_COMPLEMENTS
                and i + length < len(tokens)
                and tokens[i + length].like_num
                and comparative_in_context(tokens, i, length)
            ):
                break
        else:
            i += 1
            continue
        start, end = span[0].idx, span[-1].idx + len(span[-1].text)
        new = QUANTIFIER_COMPLEMENTS[phrase]
        if text[start].isupper():
            new = new[0].upper() + new[1:]
        edit = change(text, start, end, new)
        out.append(
            (
                apply_changes(text, [edit]),
                {
                    "rule": "quantifier_complement",
                    "quantifier": phrase,
                    "complement": QUANTIFIER_COMPLEMENTS[phrase],
                    "changes": [edit],
                },
            )
        )
        i += length
    return out


# Determiners that quantify ("most people", "many awards", "every issue", "all of the songs";
# paper section 4: "Quantifiers: like most, many, every"), and how each is replaced. Ordered by
# strength for a non-empty set: all > most > some, many > several > multiple (two or more), so a
# weaker one keeps ENTAIL true and a stronger one keeps CONTRADICT false; "every" and "each" say
# the same. Only all/most/some are strengthened: "several years" may be false for being too few
# or too many ("married for several years" of a marriage of thirty), "many years" then true.
# Forms: "det" before a plural (for every/each, singular) noun, "of" before "of", "predet"
# before "the"/"his".
QUANTIFIER_DETERMINERS = frozenset({"all", "most", "many", "several", "some", "every", "each"})
WEAKER: dict[tuple[str, str], str] = {
    ("all", "det"): "most",
    ("all", "of"): "most",
    ("all", "predet"): "most of",  # "all the songs" -> "most of the songs"
    ("most", "det"): "some",
    ("most", "of"): "some",
    ("many", "det"): "multiple",
    ("many", "of"): "some",
    ("several", "det"): "multiple",
    ("several", "of"): "some",
}
STRONGER: dict[tuple[str, str], str] = {
    ("some", "det"): "all",
    ("some", "of"): "all",
    ("most", "det"): "all",
    ("most", "of"): "all",
}
SAME_MEANING: dict[tuple[str, str], str] = {("every", "det"): "each", ("each", "det"): "every"}
# Words before a quantifier that make it something else: a superlative ("the most"), a
# comparison ("as many", "twice as many", "how many"), a bound ("at most"), an approximation
# ("almost all"), a negation ("not all").
_NOT_A_QUANTIFIER_BEFORE = APPROXIMATORS | word_set("probes/words/not_quantifier_before.txt")
# ... and after it: "many more", "most likely", "all but", "each other", "every other".
_NOT_A_QUANTIFIER_AFTER = word_set("probes/words/not_quantifier_after.txt")
# Sentences where replacing a quantifier does not simply weaken or strengthen the claim: a
# comparison, a condition, an exception, a question, a focus word.
_OPAQUE = word_set("probes/words/opaque.txt")
# Superlatives and rankings, under which a quantified phrase is no plain claim: "the largest city
# in all of Europe" is not "in most of Europe".
_RANKING = frozenset({"leading", "top", "first", "last", "best", "worst", "sole"})


@dataclass(frozen=True)
class Quantifier:
    token: int
    word: str  # lower case
    form: str  # "det", "of" or "predet"
    subject_initial: bool  # the first word of the sentence, quantifying its subject


def quantifiers(doc) -> list[Quantifier]:
    """The one quantifying determiner of the sentence (QUANTIFIER_DETERMINERS), if it is the
    only one, in a plain context: not negated, compared, conditional or focused (_OPAQUE), no
    superlative or ranking in the sentence (_RANKING), not itself a superlative, comparison or
    bound (_NOT_A_QUANTIFIER_*), and not "every"/"each" before a number ("every four years").
    Empty otherwise."""
    if is_negated(doc) or any(t.lower_ in _OPAQUE for t in doc):
        return []
    found = [t for t in doc if t.lower_ in QUANTIFIER_DETERMINERS]
    if len(found) != 1:
        return []
    token = found[0]
    if any((t.tag_ in ("JJS", "RBS") or t.lower_ in _RANKING) and t.i != token.i for t in doc):
        return []  # "the leading sire in all of North America" is not "in most of" it
    previous = doc[token.i - 1] if token.i > 0 else None
    following = doc[token.i + 1] if token.i + 1 < len(doc) else None
    if following is None or (previous is not None and previous.lower_ in _NOT_A_QUANTIFIER_BEFORE):
        return []
    if following.lower_ in _NOT_A_QUANTIFIER_AFTER or following.like_num:
        return []
    word = token.lower_
    if following.lower_ == "of" and token.dep_ in ("nsubj", "nsubjpass", "dobj", "pobj"):
        form = "of"
    elif token.dep_ == "predet" and following.lower_ in ("the", "his", "her", "its", "their", "these", "those"):
        form = "predet"
    elif token.dep_ in ("det", "amod") and token.head.pos_ in ("NOUN", "PROPN") and token.head.i > token.i:
        singular = token.head.tag_ in ("NN", "NNP")
        if singular != (word in ("every", "each")):
            return []  # "some person" is a certain one; "every issues" is no English
        form = "det"
    else:
        return []
    subjects = ("nsubj", "nsubjpass")
    return [Quantifier(token.i, word, form, token.i == 0 and (token.dep_ in subjects or token.head.dep_ in subjects))]


def _as_written(new: str, old) -> str:
    return new[0].upper() + new[1:] if old.text[:1].isupper() else new


def quantifier_preserving_edits(doc, label: str) -> list[tuple[str, dict]]:
    """The quantifier replaced by a weaker one for ENTAIL ("most people" -> "some people"), a
    stronger one for CONTRADICT ("most of his life" -> "all of his life"), or by one that says the
    same for both ("every issue" -> "each issue")."""
    text, out = doc.text, []
    for q in quantifiers(doc):
        token = doc[q.token]
        for table, rule in (
            (
                WEAKER if label == "E" else STRONGER,
                "quantifier_weakened" if label == "E" else "quantifier_strengthened",
            ),
            (SAME_MEANING, "quantifier_paraphrased"),
        ):
            new = table.get((q.word, q.form))
            if new is None:
                continue
            edit = change(text, token.idx, token.idx + len(token.text), _as_written(new, token))
            out.append(
                (
                    apply_changes(text, [edit]),
                    {"rule": rule, "quantifier": q.word, "replacement": new, "changes": [edit]},
                )
            )
    return out


def quantifier_flipping_edits(doc, label: str) -> list[tuple[str, dict]]:
    """A quantified subject negated by its contradictory, which flips ENTAIL and CONTRADICT by
    logic alone: "All/Every X ..." -> "Not all/Not every X ...", "Some X ..." -> "No X ..." ("Some
    of" -> "None of"). And, for ENTAIL only, "most"/"many" -> "few" ("won many awards" -> "won few
    awards"): a contrary on a vague scale, so a `heuristic` a person checks."""
    text, out = doc.text, []
    for q in quantifiers(doc):
        token = doc[q.token]
        span = (token.idx, token.idx + len(token.text))
        provenance: dict[str, Any] = {"quantifier": q.word}
        if q.subject_initial and q.word in ("all", "every") and q.form in ("det", "predet", "of"):
            new, provenance["rule"] = f"Not {token.lower_}", "quantifier_negated"
        elif q.subject_initial and q.word == "some" and q.form in ("det", "of"):
            new, provenance["rule"] = ("No" if q.form == "det" else "None"), "quantifier_complement"
        elif label == "E" and q.word in ("most", "many") and q.form == "det":
            new = _as_written("few", token)
            provenance.update(rule="quantifier_contrary", heuristic="most/many -> few")
        else:
            continue
        edit = change(text, *span, new)
        out.append((apply_changes(text, [edit]), {**provenance, "replacement": new, "changes": [edit]}))
    return out
