"""The main clause of a hypothesis negated, or its negation removed ("was released" <-> "was not
released", "won" <-> "did not win"), wherever that simply negates the claim.
"""

from __future__ import annotations

from tabprobe.probes.infotabs.hypothesis.edits.reading import (
    FOCUS_WORDS,
    OTHER_NEGATIONS,
    SUBJECTS,
    is_negated,
    quantified_subject,
)
from tabprobe.probes.shared.text_edits import apply_changes, change
from tabprobe.wordlists import word_set

# Adverbs under which "not" does not negate the claim: "barely made a profit" -> "barely did not
# make" says something else; "also won" -> "did not also win" keeps a presupposition.
HEDGES = word_set("probes/words/hedges.txt")
# Words that need a negation to be English: removing "not" from "does not have any" leaves
# "does have any" (negative-polarity items).
POLARITY_ITEMS = word_set("probes/words/polarity_items.txt")
_MODALS = word_set("probes/words/auxiliaries.txt")
_CONTRACTED_AUX = {"ca": "can", "wo": "will", "sha": "shall"}
_DO_SUPPORT = {"VBD": "did", "VBZ": "does", "VBP": "do"}
# Verbs whose past tense is their base form ("put", "cut"): the only VBD forms equal to a lemma.
_SAME_PAST = word_set("probes/words/same_past.txt")


def within_a_name(token, doc) -> bool:
    """A capitalised function word mid-sentence, or a word inside a named entity ("Dead Can
    Dance", "Can't Buy a Thrill")."""
    return (token.i > 0 and token.text[:1].isupper()) or token.ent_type_ != ""


def negation_edit(doc) -> tuple[str, dict] | None:
    """Negate the main clause, or remove its negation: "was released" <-> "was not released",
    "won" <-> "did not win", "got married" <-> "did not get married", "has been active" <-> "has
    not been active"; ENTAIL and CONTRADICT swap. None wherever the edit would not simply negate
    the claim in plain English (see the guards below)."""
    text = doc.text
    if text.upper() == text or quantified_subject(doc):
        return None  # all capitals (no reliable tags), or a quantified subject
    roots = [t for t in doc if t.dep_ == "ROOT"]
    if len(roots) != 1:
        return None
    root = roots[0]
    if not any(c.dep_ in SUBJECTS and c.i < root.i for c in root.children):
        return None  # no clause with a subject before its verb (a fragment, a mis-parse)
    if any(t.dep_ == "conj" and t.pos_ in ("VERB", "AUX") for t in doc) or (
        root.i + 1 < len(doc) and doc[root.i + 1].text == ","
    ):
        return None  # "wrote, directed and starred": negating one verb of several
    if any(t.lower_ in HEDGES | FOCUS_WORDS for t in doc):
        return None
    if any(t.pos_ == "ADV" and t.head == root and t.i < root.i and t.lower_ not in ("not", "n't") for t in doc):
        return None  # "first wrestled" -> "first did not wrestle": "not" would land after the adverb
    negations = [t for t in doc if t.dep_ == "neg" and t.lower_ in ("not", "n't")]
    if negations:
        neg = negations[0]
        if neg.head != root and neg.head.head != root or within_a_name(neg, doc) or len(negations) > 1:
            return None
        if any(t.lower_ in POLARITY_ITEMS for t in doc[neg.i :]) or any(t.lower_ in OTHER_NEGATIONS for t in doc):
            return None
        start = neg.idx - 1 if neg.lower_ == "not" and neg.idx > 0 and text[neg.idx - 1] == " " else neg.idx
        edits = [change(text, start, neg.idx + len(neg.text), "")]
        aux = doc[neg.i - 1] if neg.i > 0 else None
        if aux is not None and within_a_name(aux, doc):
            return None
        if neg.lower_ == "n't" and aux is not None and aux.lower_ in _CONTRACTED_AUX:
            edits.append(change(text, aux.idx, aux.idx + len(aux.text), _CONTRACTED_AUX[aux.lower_]))
        return apply_changes(text, edits), {"rule": "negation_removed", "changes": edits}
    if is_negated(doc):
        return None
    auxiliaries = [c for c in root.children if c.dep_ in ("aux", "auxpass") and c.i < root.i]
    if any(a.lemma_.lower() == "have" for a in auxiliaries) and any(t.lower_ in ("since", "for") for t in doc):
        return None  # "has not been active since his teens" reads as "inactive since then", not as the negation
    if auxiliaries:  # "was born" -> "was not born", "has been active" -> "has not been active"
        anchor = auxiliaries[0]
        if anchor.lemma_.lower() not in _MODALS:  # "got married" -> "did not get married"
            return _do_support(text, anchor)
    elif root.lemma_.lower() == "be":  # copula or existential: "is a film", "There are" -> "is not", "are not"
        anchor = root
    elif root.pos_ == "VERB":  # "won" -> "did not win": do-support with the verb's lemma
        return _do_support(text, root)
    else:
        return None
    if within_a_name(anchor, doc) or anchor.text.startswith(("'", "’")):
        return None
    end = anchor.idx + len(anchor.text)
    edit = change(text, end, end, " not")
    return apply_changes(text, [edit]), {"rule": "negation_inserted", "changes": [edit]}


def _do_support(text: str, verb) -> tuple[str, dict] | None:
    """ "won" -> "did not win": the verb's lemma after do in the verb's tense and person. None for
    a form that does not look like its tag (a noun mis-tagged as a verb: "rankings"), or a verb
    inside a name."""
    tag, form, lemma = verb.tag_, verb.lower_, verb.lemma_.lower()
    if tag not in _DO_SUPPORT or not lemma.isalpha() or verb.text[:1].isupper() or verb.ent_type_:
        return None
    if (tag == "VBZ" and not form.endswith("s")) or (tag == "VBD" and form == lemma and form not in _SAME_PAST):
        return None
    if tag == "VBP":
        # "do" needs a plural subject or I/you/we/they; a title ("Dear White People wound up")
        # is one thing, and its verb was mis-tagged
        subjects = [c for c in verb.children if c.dep_ in SUBJECTS]
        if (
            form != lemma
            or not subjects
            or not (subjects[0].tag_ == "NNS" or subjects[0].lower_ in ("i", "you", "we", "they"))
        ):
            return None
    edit = change(text, verb.idx, verb.idx + len(verb.text), f"{_DO_SUPPORT[tag]} not {lemma}")
    return apply_changes(text, [edit]), {"rule": "negation_inserted", "changes": [edit]}
