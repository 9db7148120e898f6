"""Whether a word is one of spaCy's English stop words ("of", "the", "in"), for the probes that
read a name or a number's context (a title's small words, "the" before a number).

A module of its own, not part of text_edits: a probe's jobs list the modules it imports
(tabprobe.code_inputs), so the probes that only ask this question (the counterfactual title
swaps, through a dataset's title helpers) do not re-run when the text surgery is edited.
"""

from __future__ import annotations

from functools import cache


@cache
def _stop_words() -> frozenset[str]:
    # Imported when first needed, not with this module: the probes import it, the config check
    # loads the probes at each Snakemake start (in each cluster job too), and importing spaCy loads
    # thinc and torch with it, 2.6 s of the 8 s a dry run of config.yaml took (2026-12-03).
    from spacy.lang.en.stop_words import STOP_WORDS

    return frozenset(STOP_WORDS)


def is_stop_word(word: str) -> bool:
    """Whether `word` is one of spaCy's English stop words, in any case."""
    return word.lower() in _stop_words()
