"""What the hypothesis edits read off a parse before they edit: whether the sentence is negated
or its subject quantified (then a moved number or an inserted "not" does not simply keep or flip
the label), whether a number is a calendar year, and whether a comparative before a number
compares it. Shared by every family of hypothesis_edits and by the entity and temporal probes.
"""

from __future__ import annotations

import re

from tabprobe.wordlists import word_set

FLIPPED = {"E": "C", "C": "E"}


def is_year(text: str) -> bool:
    return bool(re.fullmatch(r"1[0-9]{3}|20[0-9]{2}", text))


# Words before a comparative that make it approximate: "just over 2 minutes" is not "over 2
# minutes", and "just no more than 2" is not English.
APPROXIMATORS = word_set("probes/words/approximators.txt")
TIME_UNITS = word_set("probes/words/time_units.txt")
# Verbs and prepositions before "over"/"under" + a duration that make it a comparison ("for over
# 3 years", "is over 2 hours long", "lasted over a week"); otherwise "over five days" is a span.
_DURATION_COMPARED = word_set("probes/words/duration_compared.txt")


def is_calendar_year(token) -> bool:
    """A year of the calendar, not a duration ("2000 years"), a decade ("the 1500's", "1970s")
    or part of a name ("2008 Men's Olympic football tournament", "1992 Winter Olympics")."""
    if not is_year(token.text):
        return False
    doc = token.doc
    following = doc[token.i + 1] if token.i + 1 < len(doc) else None
    if following is not None:
        if following.lemma_.lower() in TIME_UNITS or following.lower_ in ("'s", "’s", "s", "'", "’"):
            return False
        if following.text[:1].isupper() and following.is_alpha:
            return False
    return True


def comparative_in_context(tokens, i: int, length: int) -> bool:
    """Whether the comparative tokens[i:i+length] before a number compares it: not under an
    approximator, and "over"/"under" before a duration only after "for", a copula or a verb of
    lasting ("drew 465,000 over five days" is a span of time, not a comparison)."""
    previous = tokens[i - 1] if i > 0 else None
    if previous is not None and previous.lower_ in APPROXIMATORS:
        return False
    phrase = " ".join(t.lower_ for t in tokens[i : i + length])
    number = i + length
    unit = tokens[number + 1] if number + 1 < len(tokens) else None
    if phrase in ("over", "under", "above", "below") and unit is not None and unit.lemma_.lower() in TIME_UNITS:
        return previous is not None and previous.lemma_.lower() in _DURATION_COMPARED
    return True


# Words that already negate (other than not / n't): inserting "not" next to them would make a
# double negation whose label no rule predicts.
OTHER_NEGATIONS = word_set("probes/words/other_negations.txt")
# "only has one language" negated is "does not only have one": the scope changes, the label
# does not simply flip.
FOCUS_WORDS = frozenset({"only", "just", "merely", "solely"})
# Determiners and quantifiers of a subject under which negating the verb does not negate the
# sentence: "Some nations do not send ...", "All drinks are not sugar free".
QUANTIFYING = word_set("probes/words/quantifying.txt")
SUBJECTS = ("nsubj", "nsubjpass", "expl", "csubj")


def is_negated(doc) -> bool:
    return any(t.dep_ == "neg" or t.lower_ in OTHER_NEGATIONS for t in doc)


def quantified_subject(doc) -> bool:
    """Whether the main clause's subject is quantified, counted or indefinite ("Some nations",
    "10 nations", "More than 50 people", "Anyone with over 12,000 yards", "An act"): there a
    negation or a number moved in the predicate does not simply flip the sentence."""
    roots = [t for t in doc if t.dep_ == "ROOT"]
    for root in roots:
        # the subject, and what floats between it and the verb ("The suspects all work")
        before = [t for c in root.children if c.dep_ in SUBJECTS for t in c.subtree] + [
            t for t in doc[: root.i] if t.dep_ in ("advmod", "det", "predet", "quantmod", "nummod")
        ]
        for token in before:
            if token.lower_ in QUANTIFYING or (token.like_num and not is_year(token.text)) or token.dep_ == "quantmod":
                return True
    return False
