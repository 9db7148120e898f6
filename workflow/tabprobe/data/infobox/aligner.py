"""The automatic aligner (relevance source `aligner`, relevance.py): which rows of its table a
hypothesis needs, by the words they share and, with an encoder, by the words that mean alike.

Words: it scores each row by the hypothesis words found in its values (exact words, crude stems,
numbers and years; rarer matches within the table weigh more), by the words of its key, and by cue
words that name a key without using it ("married" -> Spouse). The hypothesis's mention of the title
is removed first, so a row that repeats the title does not look relevant, and so are the nouns that
name the subject's kind ("the film", "the album") from value matching. A year, decade or century
that no row states points at the rows that hold a year.

Soft matches (settings.encoder, MiniLM by default; word_vectors.py): each hypothesis word (stop
words, the title's words and subject nouns left out) is compared, by the cosine of contextual word
vectors, with every word of every row's "key : values" text; it votes for the one row holding its
closest word, with that cosine, when the cosine is at least `min_similarity`. A row's score is its
word score plus `soft_weight` times its votes, so a word shared letter for letter counts in both,
and "a diet version" still finds a Variants row saying "no sugar". A row is relevant when its score
is at least `min_score` and at least `relative` times the best row's.

Its row precision and recall on rows people marked (the settings were chosen on 74 of the 140 crowd
pairs only) and on a hand-checked gold set are measured by bench/relevance.py (docs/relevance.md)
and tested (tests/test_relevance.py).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from tabprobe.data.infobox.table import Table
from tabprobe.data.infobox.word_vectors import DEFAULT_ENCODER, WordEncoder, WordVectors
from tabprobe.wordlists import word_list, word_set, word_set_map

_STOPWORDS = word_set("words/stopwords.txt")

_MONTHS = {m.lower(): i for i, m in enumerate(word_list("words/months.txt"), 1)}

# Words that point at a row although its key is not said: "married" names Spouse. Keys are
# matched on their stemmed words (see _key_cues), so "Spouse(s)" and "Spouses" share a line. A cue
# written "=word" matches that word only as written, not stemmed.
_CUES: dict[str, set[str]] = word_set_map("words/key_cues.txt")


# Nationality adjectives and the country words a table writes instead ("Spanish" -> Spain).
_DEMONYMS = word_set_map("words/demonyms.txt")


# Nouns a hypothesis uses to name its subject's kind ("The album Currents", "the film"): like the
# title's words, they are not matched against values ("Working Title Films" is not about "the film").
_SUBJECT_NOUNS = word_set("words/subject_nouns.txt")


def _stem(word: str) -> str:
    """A crude suffix stripper: enough to match "albums"/"album", "married"/"marry"."""
    for suffix, repl in (("ies", "y"), ("ied", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)] + repl
    return word


_SUBJECT_STEMS = frozenset(_stem(w) for w in _SUBJECT_NOUNS)
_YEAR = re.compile(r"1[5-9]\d\d|20\d\d")
_TIME = re.compile(r"1[5-9]\d\d|20\d\d|(1[5-9]|20)?\d0s|\d\dth")  # a year, a decade, a century
_WORD = re.compile(r"\d+(?:[.,:]\d+)*(?:s|th|st|nd|rd)?\b|[a-z][a-z'\-]*|\d+(?:[.,:]\d+)*")


def _words(text: str) -> list[str]:
    """Lower-cased words and numbers; a possessive's "'s" is dropped ("Rica's" is the title's "Rica")."""
    text = re.sub(r"\bu\.\s?s\.?(?=\W|$)", "usa", text.lower().replace("\u2019", "'"))
    words = (re.sub(r"'s$", "", w).strip("'-") for w in _WORD.findall(text))
    return [w for w in words if w]


def _numbers(words: Iterable[str], decades: bool = True) -> set[str]:
    """Numbers as written, without thousands commas; with `decades`, a year also as its decade and
    century, so that a hypothesis's "1970s" matches a row's 1975 (the hypothesis's own years are read
    without: its 2016 must not match a row's 2015 through "2010s")."""
    out = set()
    for w in words:
        if w[0].isdigit():
            plain = w.replace(",", "")
            out.add(plain)
            if ":" in plain:  # a duration "46:06" is also its minutes, "46"
                out.add(plain.split(":")[0])
            if decades and _YEAR.fullmatch(plain):
                out |= {plain[:3] + "0s", plain[2] + "0s", f"{int(plain[:2]) + 1}th"}  # 1970s, 70s, 20th century
        elif re.fullmatch(r"(1[5-9]|20)\d0s|\d0s|\d\dth", w):
            out.add(w)
    return out


def _content(words: Iterable[str]) -> set[str]:
    out = set()
    for w in words:
        if w not in _STOPWORDS and not w[0].isdigit() and len(w) > 1:
            out.add(_stem(w))
            out |= {_stem(d) for d in _DEMONYMS.get(w, ())}
    return out


def _prefix_matches(hypothesis_words: set[str], row_words: set[str]) -> set[str]:
    """Row words that share a stem of at least 5 letters with a hypothesis word, one being a prefix
    of the other ("music"/"musician", "wrestl"/"wrestler"): derivations the stemmer misses."""
    return {
        r
        for r in row_words
        for h in hypothesis_words
        if r != h and min(len(r), len(h)) >= 5 and (r.startswith(h) or h.startswith(r))
    }


def _key_cues(key: str) -> set[str]:
    cues: set[str] = set()
    lowered = key.lower()
    for word in _words(lowered):
        for form in (word, _stem(word)):
            cues |= _CUES.get(form, set())
    for phrase, words in _CUES.items():
        if " " in phrase and phrase in lowered:
            cues |= words
    exact = {c[1:] for c in cues if c.startswith("=")}
    cues -= {"=" + c for c in exact}
    # both "minute" and the stem of "minutes" ("minut"): the stemmer treats the two differently
    return {_stem(c) for c in cues} | {_stem(c + "s") for c in cues} | set(cues) | exact


@dataclass(frozen=True)
class AlignerSettings:
    """The aligner's choices: config key relevance.aligner (workflow/schemas/config.schema.yaml) sets
    the first five; the batch size is speed only, and the word weights are the words-only aligner's."""

    # A row is relevant when its score is at least `min_score` and at least `relative` times the
    # best row's score (a hypothesis usually needs one or two rows).
    min_score: float = 1.0
    relative: float = 0.3
    # The sentence encoder for soft matches (a folder or pkg://package/folder), or None: words only.
    encoder: str | None = DEFAULT_ENCODER
    soft_weight: float = 2.0
    min_similarity: float = 0.3
    batch_size: int = 64
    value_weight: float = 1.0
    number_weight: float = 2.0
    key_weight: float = 1.5
    cue_weight: float = 1.0


# The aligner before soft matches, with the threshold it was tuned with: fast, and no encoder to load.
WORDS_ONLY = AlignerSettings(min_score=0.5, encoder=None)


def row_scores(hypothesis: str, table: Table, settings: AlignerSettings = WORDS_ONLY) -> list[float]:
    """How strongly each row of `table` is tied to the hypothesis by its words (module docstring)."""
    # The title's words are removed from the hypothesis before matching: the hypothesis names its
    # subject, and a row that repeats the title is not evidence for that.
    title = set(_words(table.title))
    words = _words(hypothesis)
    content = _content(w for w in words if w not in title)
    value_wanted = content - _SUBJECT_STEMS
    raw = set(words) - title
    numbers = _numbers(words, decades=False)
    for w in words:
        if w in _MONTHS:
            numbers.add(w)
    rows = []
    for row in table.rows:
        value_words = [w for v in row.values for w in _words(v)]
        rows.append(
            (
                _content(w for w in value_words if w not in title) | {w for w in value_words if w in _MONTHS},
                _numbers(value_words) | {w for w in value_words if w in _MONTHS},
                _content(_words(row.key)),
                _key_cues(row.key),
            )
        )
    # A word found in many rows tells little about which one is meant: weight 1/rows it is in.
    df: dict[str, int] = {}
    for value_content, value_numbers, _, _ in rows:
        for w in (value_content & value_wanted) | (value_numbers & numbers):
            df[w] = df.get(w, 0) + 1
    # A hypothesis that speaks of a year, decade or century that no row states ("painted in the 17th
    # century", a row saying 1849) is about the rows that hold a year: they share one word's weight.
    year_rows = []
    if any(_TIME.fullmatch(n) for n in numbers) and not any(vn & numbers for _, vn, _, _ in rows):
        year_rows = [any(_YEAR.fullmatch(n) for n in vn) for _, vn, _, _ in rows]
    n_year_rows = sum(year_rows)
    scores = []
    for i, (value_content, value_numbers, key_content, cues) in enumerate(rows):
        score = settings.value_weight / n_year_rows if year_rows and year_rows[i] else 0.0
        score += sum(settings.value_weight / df[w] for w in value_content & value_wanted)
        score += 0.5 * settings.value_weight * bool(_prefix_matches(value_wanted, value_content - content))
        score += sum(settings.number_weight / df[w] for w in value_numbers & numbers)
        score += settings.key_weight * len(key_content & content)
        if cues & (content | raw):
            score += settings.cue_weight
        scores.append(score)
    return scores


def _chosen(table: Table, scores: list[float], settings: AlignerSettings) -> list[str]:
    if not scores:
        return []
    cut = max(settings.min_score, settings.relative * max(scores))
    return [row.key for row, score in zip(table.rows, scores) if score >= cut]


def align(hypothesis: str, table: Table, settings: AlignerSettings = WORDS_ONLY) -> list[str]:
    """The keys of the rows the hypothesis needs by its words alone, in table order (no encoder:
    `Aligner` aligns with soft matches)."""
    if settings.encoder is not None:
        raise ValueError(f"align() matches words only; settings name an encoder ({settings.encoder}): use Aligner")
    return _chosen(table, row_scores(hypothesis, table, settings), settings)


def row_text(key: str, values: Iterable[str]) -> str:
    """What the encoder reads of a row: "key : v1, v2" (the title left out, so that one row's text
    and its vectors serve every table that holds the row)."""
    return f"{key} : {', '.join(values)}"


def _kept(words: tuple[str, ...], leave_out: set[str] | frozenset[str], min_length: int) -> list[int]:
    return [
        i
        for i, w in enumerate(words)
        if w not in _STOPWORDS and w not in leave_out and len(w) >= min_length and any(c.isalnum() for c in w)
    ]


def soft_votes(
    hypothesis: WordVectors, rows: list[WordVectors], table: Table, settings: AlignerSettings
) -> list[float]:
    """Each row's votes from the hypothesis's words (module docstring): the cosines, rounded to 4
    places so that float noise of batching cannot move a vote, of the words whose closest row word is
    in that row and at least `min_similarity` close."""
    title = set(_words(table.title))
    wanted = _kept(hypothesis.words, title | _SUBJECT_NOUNS, 2)
    closest = np.zeros((len(wanted), len(rows)))
    for j, row in enumerate(rows):
        kept = _kept(row.words, title, 1)
        if wanted and kept:
            closest[:, j] = (hypothesis.vectors[wanted] @ row.vectors[kept].T).max(axis=1)
    votes = [0.0] * len(rows)
    for cosines in np.round(closest, 4):
        best = int(cosines.argmax())  # ties: the earlier row
        if cosines[best] >= settings.min_similarity:
            votes[best] += float(cosines[best])
    return votes


class Aligner:
    """The aligner with its settings; with an encoder, it loads the encoder once and encodes each
    distinct hypothesis and row text once for all the pairs it is given."""

    def __init__(self, settings: AlignerSettings = AlignerSettings(), threads: int = 1):
        self.settings = settings
        self.encoder = (
            None if settings.encoder is None else WordEncoder(settings.encoder, settings.batch_size, threads=threads)
        )

    def scores(self, hypothesis: str, table: Table, vectors: dict[str, WordVectors] | None = None) -> list[float]:
        """Each row's score: words, plus soft_weight times its soft votes where there is an encoder."""
        scores = row_scores(hypothesis, table, self.settings)
        if self.encoder is None:
            return scores
        if vectors is None:
            vectors = self.encoder.encode([hypothesis, *(row_text(r.key, r.values) for r in table.rows)])
        rows = [vectors[row_text(r.key, r.values)] for r in table.rows]
        votes = soft_votes(vectors[hypothesis], rows, table, self.settings)
        return [s + self.settings.soft_weight * v for s, v in zip(scores, votes)]

    def align_all(self, pairs: list[tuple[str, Table]]) -> list[list[str]]:
        """The relevant keys of each (hypothesis, table), in table order. The texts of all the pairs are
        encoded in one pass, each distinct one once; a pair's rows do not depend on what else is aligned
        with it, since the cosines are rounded before they vote (soft_votes)."""
        vectors = None
        if self.encoder is not None:
            texts = [h for h, _ in pairs] + [row_text(r.key, r.values) for _, t in pairs for r in t.rows]
            vectors = self.encoder.encode(texts)
        return [_chosen(t, self.scores(h, t, vectors), self.settings) for h, t in pairs]


# ---------------------------------------------------------------- annotation files
