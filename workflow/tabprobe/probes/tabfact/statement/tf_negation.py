"""TabFact negation (the paper's negation edit, section 4, carried to TabFact's lemmatised,
tokenised statements, without a parse): insert or remove the one "not" of the statement's one
verb, so ENTAILED and REFUTED swap.

The patterns (tokens as TabFact writes them):
- insert: "x be y" -> "x be not y"; "x do/did/can/will/... play" -> "x do not play" (the verbs of
  probes/words/tf_negation_aux.txt); "x have a / the / 5 ..." (main verb) -> "x do not have ...";
- remove: "x be not y" -> "x be y", "x can not win" -> "x can win"; "x do / did not play" -> "x play"
  (TabFact's verbs are lemmas, so the bare verb reads as the positive statement).
Applied only where that is unambiguously the statement's negation:
- exactly one such verb (two verbs: which clause is negated is not known without a parse), not
  the statement's last word and not before punctuation;
- no negation word but the one removed ("never", "no", a second "not": a double negation);
- no quantifier or focus word ("all", "only", "every", "each", "any", "most", ...:
  probes/words/tf_negation_blockers.txt), nor a disjunction ("x or y be z");
- no relative or subordinate word before the verb ("the team that be home ..."), and no number
  before it but in "there be" ("2 player be from france" is not negated by "2 player be not ...");
- REFUTED statements: no conjunction ("a and b", "a , b"), since negating one claim of a false
  conjunction need not make it true. (An ENTAILED conjunction with one claim negated is false.)
"""

from __future__ import annotations

from tabprobe.probes.base import LABEL_FLIP, Example, NotApplicable, Probe, ProbeContext, ProbeExample, Role
from tabprobe.probes.invariants import STATEMENT_EDIT
from tabprobe.probes.tabfact.statement.statement_edits import (
    DISJUNCTIONS,
    NEGATIONS,
    NUMBER,
    has_any,
    relational,
    remove_token_span,
    replace_spans,
    tokenise,
    year_like,
)
from tabprobe.wordlists import word_set

AUXILIARIES = word_set("probes/words/tf_negation_aux.txt")
BLOCKERS = word_set("probes/words/tf_negation_blockers.txt")
RELATIVE_WORDS = word_set("probes/words/tf_relative_words.txt")
CONJUNCTIONS = word_set("probes/words/tf_conjunctions.txt")
FLIPPED = {"E": "C", "C": "E"}
# What may follow "have" when it is the main verb ("have a / the / 5 ..."): then "do not have".
_HAVE_OBJECTS = {"a", "an", "the"}
_DO_SUPPORT = {"do", "did"}


def _verbs(texts: list[str]) -> list[int]:
    """The token indices of the verbs that can take "not" (AUXILIARIES, and main-verb "have")."""
    found = []
    for i, word in enumerate(texts):
        after = texts[i + 1] if i + 1 < len(texts) else ""
        if word in AUXILIARIES or word == "have" and (after in _HAVE_OBJECTS or NUMBER.match(after)):
            found.append(i)
    return found


def _blocked(texts: list[str], verb: int, label: str) -> str | None:
    """Why negating at `verb` would not simply negate the statement, or None."""
    if has_any(texts, BLOCKERS):
        return "a quantifier or focus word: the negation would be ambiguous"
    if has_any(texts, DISJUNCTIONS):
        return "a disjunction: the negation would be ambiguous"
    before = texts[:verb]
    if any(word in RELATIVE_WORDS for word in before):
        return "a relative or subordinate clause before the verb"
    there_be = verb > 0 and texts[verb - 1] == "there"
    if not there_be and any(NUMBER.match(word) and not year_like(word) for word in before):
        return "a counted subject before the verb"
    if label == "C" and has_any(texts, CONJUNCTIONS):
        return "refuted conjunction: negating one claim need not make it true"
    return None


def negation_edit(statement: str, label: str) -> tuple[str, dict]:
    """The edited statement and its provenance, or NotApplicable with the reason."""
    tokens = tokenise(statement)
    texts = [t.text for t in tokens]
    negations = [i for i, word in enumerate(texts) if word in NEGATIONS]
    verbs = _verbs(texts)
    if len(negations) > 1:
        raise NotApplicable("two negations")
    if negations and texts[negations[0]] != "not":
        raise NotApplicable(f"a negation other than 'not' ({texts[negations[0]]!r})")
    if len(verbs) != 1:
        raise NotApplicable(f"{len(verbs)} verbs that take 'not' (one needed)")
    verb = verbs[0]
    reason = _blocked(texts, verb, label)
    if reason:
        raise NotApplicable(reason)
    if negations:
        if negations[0] != verb + 1:
            raise NotApplicable("the 'not' is not right after the verb")
        first = verb if texts[verb] in _DO_SUPPORT else verb + 1  # "do not play" -> "play"
        start, end = remove_token_span(statement, tokens, first, verb + 2)
        edited, changes = replace_spans(statement, [(start, end, "")])
        return edited, {"rule": "negation_removed", "verb": texts[verb], "changes": changes}
    after = texts[verb + 1] if verb + 1 < len(texts) else None
    if after is None or not any(ch.isalnum() for ch in after):
        raise NotApplicable("the verb ends the statement or a clause")
    token = tokens[verb]
    new = "do not have" if texts[verb] == "have" else f"{token.text} not"
    edited, changes = replace_spans(statement, [(token.start, token.end, new)])
    return edited, {"rule": "negation_inserted", "verb": texts[verb], "changes": changes}


def apply(example: Example, table, doc, ctx: ProbeContext) -> list[ProbeExample]:
    table = relational(table)
    edited, provenance = negation_edit(example.hypothesis, example.label)
    return [ProbeExample(edited, table, FLIPPED[example.label], provenance)]


PROBE = Probe(
    name="tf_negation",
    verdict_role=Role(LABEL_FLIP, "label-flipping statement edit", scorecard="drop on negated statements"),
    description="TabFact: insert or remove the 'not' of the statement's one verb (ENTAILED <-> REFUTED).",
    apply=apply,
    judged_by="expected",
    paper_reference="section 4, Tables 3 and 4 (negation), on TabFact",
    labels=frozenset({"E", "C"}),
    label_change="flipped",
    family="hypothesis",
    invariants=STATEMENT_EDIT,
)
