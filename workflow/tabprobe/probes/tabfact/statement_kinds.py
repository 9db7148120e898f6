"""Which kind of reasoning a TabFact statement asks for, read off its words (no program needed).

A table edit leaves a statement's label alone only for some kinds: deleting or inserting a record
can change any count, superlative, comparison or "only"/"all" claim, and reordering records
changes what is "first" or "after". A probe without a program applies its transition rule only to
the kinds it is sound for, and counts the others as skipped, by kind.

The classifier is a small list of cue words per kind, matched on whole words of the lower-cased,
tokenised statement (TabFact's own form; the raw text of bootstrap.json reads the same). A
statement has every kind whose cue it holds; one with none is a "lookup" (a claim about the cells
of particular records: "jarron collins played for the jazz for 5 years"). The cues err towards
NOT "lookup": a lookup misread as a count is only skipped, a count misread as a lookup would be
probed under a rule that does not hold for it. tests/probes/test_statement_kinds.py measures it
against the programs of bootstrap.json (count, argmax, max, avg, only, all_* ... in the program
should mean not "lookup").
"""

from __future__ import annotations

import re
from functools import cache

LOOKUP = "lookup"
AGGREGATE = "aggregate"  # counts, sums, averages: "there be 3 game", "a total of", "how many"
SUPERLATIVE = "superlative"  # "the highest", "most", "the fewest"
ORDINAL = "ordinal"  # positions in the table's order: "first", "last", "2nd", "before", "after"
QUANTIFIER = "quantifier"  # all / only / every / none: a claim over every record
COMPARATIVE = "comparative"  # "more than", "higher", "the same as": two values weighed
NEGATION = "negation"  # "not", "never": a deleted record can make a negated lookup true
KINDS = (AGGREGATE, SUPERLATIVE, ORDINAL, QUANTIFIER, COMPARATIVE, NEGATION, LOOKUP)

_NUMBER_WORDS = (
    "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
    "sixteen seventeen eighteen nineteen twenty thirty forty fifty hundred"
).split()
_NUMBER = r"(?:\d+|" + "|".join(_NUMBER_WORDS) + r")"
# Whole-word cues of each kind (regular expressions over the statement with single spaces).
_CUES: dict[str, tuple[str, ...]] = {
    AGGREGATE: (
        r"total(?:s|ed|led|ing|ling)?",
        r"aggregated?",
        r"cumulative",
        r"per",
        r"number of",
        r"how many",
        r"count(?:s|ed)?",
        r"average(?:s|d)?",
        r"mean",
        r"sum",
        r"combined",
        r"altogether",
        r"in all",
        r"overall",
        r"different",
        r"once",
        r"twice",
        r"thrice",
        r"majority",
        r"half",
        r"several",
        r"multiple",
        r"many",
        # "there be 3 game where ...", "there are two players", "3 of the 5 games", "win 4 time"
        r"there (?:be|is|are|was|were|have been|has been) " + _NUMBER,
        _NUMBER + r" (?:of|out of|times?|occasions?|games?|matches|races?|episodes?|players?|teams?)",
        _NUMBER + r" (?:different|separate|other|more|fewer|less)",
        # a number spelled out is nearly always a count in TabFact ("five of tennessee's representatives"),
        # and a small number before a plural noun often is ("had 5 limited edition cd releases")
        "|".join(_NUMBER_WORDS),
        r"\d{1,3} (?:\w+ ){0,3}\w+s",
        r"percent(?:age)?",
        r"%",
    ),
    SUPERLATIVE: (
        r"most",
        r"least",
        r"fewest",
        r"best",
        r"worst",
        r"maximum",
        r"minimum",
        r"max",
        r"min",
        r"top",
        r"bottom",
        r"\w{2,}est",  # highest, lowest, largest, earliest, latest ... (words that only end so: _NOT_SUPERLATIVE)
    ),
    ORDINAL: (
        r"first",
        r"last",
        r"second",
        r"third",
        r"fourth",
        r"fifth",
        r"sixth",
        r"seventh",
        r"eighth",
        r"ninth",
        r"tenth",
        r"final",
        r"finally",
        r"\d+(?:st|nd|rd|th)",
        r"before",
        r"after",
        r"previous(?:ly)?",
        r"prior",
        r"next",
        r"following",
        r"follow(?:s|ed)?",
        r"precede[sd]?",
        r"preceding",
        r"then",
        r"later",
        r"earlier",
        r"begin(?:s|ning)?",
        r"began",
        r"consecutive(?:ly)?",
        r"in a row",
        r"straight",
        r"above",
        r"below",
    ),
    QUANTIFIER: (
        r"all",
        r"only",
        r"every",
        r"each",
        r"none",
        r"no",
        r"nobody",
        r"nothing",
        r"neither",
        r"nor",
        r"either",
        r"both",
        r"any",
        r"always",
        r"solely",
        r"exclusively",
        r"sole",
        r"unique",
    ),
    COMPARATIVE: (
        r"than",
        r"more",
        r"less",
        r"fewer",
        r"greater",
        r"higher",
        r"lower",
        r"larger",
        r"smaller",
        r"bigger",
        r"longer",
        r"shorter",
        r"older",
        r"younger",
        r"better",
        r"worse",
        r"over",
        r"under",
        r"exceed(?:s|ed)?",
        r"outscore[sd]?",
        r"same",
        r"equal(?:s|led|ly)?",
        r"difference",
        r"differ(?:s|ed)?",
        r"compared?",
        r"between",
        r"\w+er than",
        r"at least",
        r"at most",
        r"beyond",
    ),
    NEGATION: (r"not", r"never", r"n't", r"without", r"nobody"),
}
# Words that end in -est without being superlatives (a cue matched on a whole word, so "west" and
# "interest" would otherwise mark a lookup as superlative).
_NOT_SUPERLATIVE = frozenset(
    "west midwest southwest northwest best interest forest rest test guest contest honest modest nest quest "
    "request suggest protest arrest harvest budapest bucharest manifest digest everest invest chest crest "
    "earnest priest conquest inquest vest zest pest lest attest detest fest behest unrest celebest "
    "wrest tempest eastwest".split()
) - {"best"}  # "best" is a superlative: it is also a cue of its own


@cache
def _pattern(kind: str) -> re.Pattern:
    return re.compile(r"(?<![\w'])(?:" + "|".join(_CUES[kind]) + r")(?![\w'])")


def _words(statement: str) -> str:
    """The statement lower-cased with its tokens single-spaced ("didn't" keeps "n't" as TabFact's
    tokeniser writes it)."""
    text = statement.lower().replace("n't", " n't")
    return " ".join(re.findall(r"n't|[\w]+|[^\w\s]", text))


def statement_kinds(statement: str) -> frozenset[str]:
    """Every kind whose cue the statement holds; {"lookup"} when it holds none."""
    text = _words(statement)
    found = set()
    for kind in _CUES:
        for match in _pattern(kind).finditer(text):
            if kind == SUPERLATIVE and match.group(0) in _NOT_SUPERLATIVE:
                continue
            found.add(kind)
            break
    return frozenset(found) or frozenset({LOOKUP})


def is_lookup(statement: str) -> bool:
    return statement_kinds(statement) == {LOOKUP}


def kinds_named(kinds: frozenset[str]) -> str:
    """The kinds in KINDS order, for a NotApplicable reason ("aggregate, quantifier")."""
    return ", ".join(kind for kind in KINDS if kind in kinds)
