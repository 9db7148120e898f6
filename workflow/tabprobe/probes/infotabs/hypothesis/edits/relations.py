"""Which words of a sentence name the relation of a table's row ("produced" names Producer,
"married" names Spouse).
"""

from __future__ import annotations

from functools import cache

from tabprobe.wordlists import word_map

# Words that name the relation of a key without its own words ("signed to RCA" names Labels,
# "married" names Spouse), by a word of the key; shared by entity_preserve (which relation the
# sentence claims of a name) and temporal_preserve (which row dates the event it names).
RELATION_CUES: dict[str, str] = word_map("probes/words/relation_cues.txt")


@cache
def _cues_by_stem() -> dict[str, frozenset[str]]:
    from tabprobe.probes.infotabs.table_edits import stem

    return {stem(word): frozenset(cues.split()) for word, cues in RELATION_CUES.items()}


def relation_words(doc, key: str) -> list:
    """The tokens of the sentence that name the relation of a row keyed `key`: one of the key's
    words (crudely stemmed, as a word or its lemma: "produced" names Producer) or a cue word for
    it (RELATION_CUES: "married" names Spouse)."""
    from tabprobe.probes.infotabs.table_edits import key_words, stem

    stems = key_words(key)
    cues = frozenset().union(*(_cues_by_stem().get(s, frozenset()) for s in stems))
    return [t for t in doc if {stem(t.lower_), stem(t.lemma_.lower())} & stems or {t.lower_, t.lemma_.lower()} & cues]


def names_relation(doc, key: str) -> bool:
    """Whether the sentence names the relation of a row keyed `key` (relation_words)."""
    return bool(relation_words(doc, key))
