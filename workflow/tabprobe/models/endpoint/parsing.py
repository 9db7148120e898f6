"""What a generated answer says (scoring `generate`): one of E, N, C, or nothing (unparsed, an
outcome of its own: never read as N).

A reasoning model's thinking is taken out first and kept apart: `<think>...</think>` blocks in
the text (an unclosed `<think>` runs to the end; a `</think>` with no opening, as a chat template
that opens the block in the prompt leaves it, closes what came before), and the
`reasoning_content` (or `reasoning`) field some servers send beside the answer. Only what is left
is parsed, by the first of these rules that finds a label:

1. "Answer: X" (also "answer is X", any case): the last one in the text; X's leading words
   name the label.
2. The whole answer is a label's word (below), bare or in quotes, bold or with a full stop.
3. The answer's first words are a label's word ("True. The table says ...").
4. The last line, read as in 2 and 3.
5. Exactly one label's word appears anywhere, never after "not" or "no": that label. Two
   labels' words, or a negated one, leave the answer unparsed.

A label's words: its verbaliser (the config's, e.g. "true" for E) and its name in the usual NLI
vocabularies: entailment / entailed / entails / entail (E), neutral (N), contradiction /
contradicted / contradicts / contradict (C). Matching ignores case and surrounding punctuation.
tests/test_endpoint_parsing.py holds an example of every rule.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from tabprobe import LABELS

LABEL_NAMES = {
    "E": ("entailment", "entailed", "entails", "entail"),
    "N": ("neutral",),
    "C": ("contradiction", "contradicted", "contradicts", "contradict"),
}
# What follows an "Answer:" up to the end of its line or the next "answer".
_ANSWER = re.compile(r"\banswer(?:\s+is)?\s*[:=]?\s*(.+?)(?=\banswer\b|$)", re.IGNORECASE | re.MULTILINE)
_NEGATION = re.compile(r"\b(?:not|no|n't)\s+$", re.IGNORECASE)
_DECORATION = "*_`\"'“”‘’«»()[]<>.,;:!?"


def split_thinking(text: str, reasoning: str | None = None) -> tuple[str, str | None]:
    """(the answer without its thinking, the thinking or None): `<think>` blocks and a server's
    separate reasoning field."""
    thoughts = [reasoning.strip()] if reasoning and reasoning.strip() else []
    if "</think>" in text and "<think>" not in text.split("</think>", 1)[0]:
        before, text = text.split("</think>", 1)
        thoughts.append(before.strip())
    answer = []
    while "<think>" in text:
        before, rest = text.split("<think>", 1)
        answer.append(before)
        thought, closed, text = rest.partition("</think>")
        thoughts.append(thought.strip())
        if not closed:
            text = ""
    answer.append(text)
    thinking = "\n\n".join(t for t in thoughts if t)
    return "".join(answer).strip(), thinking or None


def label_words(verbalisers: Mapping[str, str]) -> dict[str, tuple[str, ...]]:
    """Per label, the words that name it: its verbaliser first, then its usual names."""
    return {lab: tuple(dict.fromkeys([verbalisers[lab].strip().lower(), *LABEL_NAMES[lab]])) for lab in LABELS}


def _clean(text: str) -> str:
    return " ".join(text.lower().split()).strip(_DECORATION + " ")


def _words_of(text: str) -> list[str]:
    return [w.strip(_DECORATION) for w in text.lower().split() if w.strip(_DECORATION)]


def _leading_label(text: str, words: Mapping[str, tuple[str, ...]], whole: bool) -> str | None:
    """The label whose word is all of `text` (`whole`) or its first words, longest word first."""
    cleaned = _clean(text)
    tokens = _words_of(text)
    candidates = sorted(((w, lab) for lab, ws in words.items() for w in ws), key=lambda p: -len(p[0].split()))
    for word, label in candidates:
        if whole and cleaned == word:
            return label
        if not whole and tokens[: len(word.split())] == word.split():
            return label
    return None


def _only_label_present(text: str, words: Mapping[str, tuple[str, ...]]) -> str | None:
    found = set()
    lowered = text.lower()
    for label, ws in words.items():
        for word in ws:
            for match in re.finditer(rf"(?<![\w-]){re.escape(word)}(?![\w-])", lowered):
                if _NEGATION.search(lowered[: match.start()]):
                    return None  # "not true": a negated label is not an answer to read
                found.add(label)
    return found.pop() if len(found) == 1 else None


def parse_answer(text: str, verbalisers: Mapping[str, str]) -> str | None:
    """The label a generated answer (its thinking already taken out) gives, or None."""
    words = label_words(verbalisers)
    matches = list(_ANSWER.finditer(text))
    if matches:
        label = _leading_label(matches[-1].group(1), words, whole=False)
        if label:
            return label
    for whole in (True, False):
        label = _leading_label(text, words, whole)
        if label:
            return label
    lines = [line for line in text.splitlines() if line.strip()]
    if lines:
        for whole in (True, False):
            label = _leading_label(lines[-1], words, whole)
            if label:
                return label
    return _only_label_present(text, words)
