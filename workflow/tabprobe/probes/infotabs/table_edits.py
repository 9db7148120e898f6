"""Row edits shared by the table probes (paper section 5.1 and appendix).

Each returns the edited table and a JSON-able record of the change for the provenance column.
Candidates are gathered in a fixed order (tables sorted by id) so a seeded choice repeats.
"""

from __future__ import annotations

import re
from collections import Counter
from functools import cache

import numpy as np

from tabprobe.data.infobox.table import Row, Table, normalised
from tabprobe.probes.base import NotApplicable
from tabprobe.probes.invariants import Invariant
from tabprobe.wordlists import word_groups, word_set


def delete_row(table: Table, rng: np.random.Generator) -> tuple[Table, dict]:
    if not table.rows:
        raise NotApplicable("table has no rows")
    index = int(rng.integers(len(table.rows)))
    row = table.rows[index]
    kept = table.with_rows(r for j, r in enumerate(table.rows) if j != index)
    return kept, {"deleted_row": {"index": index, "key": row.key, "values": list(row.values)}}


# Keys that name one attribute in other words: InfoTabS spells keys many ways, and a row under a
# "new" key that says what another row already says can contradict it.
KEY_SYNONYMS = word_groups("probes/words/key_synonyms.txt")
# Rows about a life or an identity: from another table they contradict this one's (a death date
# for a living person, a birth name, years active after death).
IDENTITY_KEYS = word_set("probes/words/identity_keys.txt")
# The kind of table a row may come from: one of the same category whose keys are mostly the
# table's own (Jaccard similarity of the key sets at least this), so a row the table lacks is
# an optional attribute of its own template ("Producer" on an album without one), not a row of
# another kind that shares the category (a rail line's Electrification on a bus line, a solid's
# hardness on a liquid element, a musician's Associated acts on a 19th-century chemist).
TWIN_SIMILARITY = 0.5
# ... and at least this many such twins must have the key: never one table's "Pinyin" or "Locale".
COMMON_KEY_TABLES = 2
_GENERIC = word_set("probes/words/generic_key_words.txt")
# Months of the Gregorian, Hebrew, Hindu and Islamic calendars InfoTabS dates use (apostrophes
# dropped before matching: "Sha'ban").
_MONTHS = re.compile(
    r"\b(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:tember)?|"
    r"oct(?:ober)?|nov(?:ember)?|dec(?:ember)?|tishrei|cheshvan|kislev|tevet|shevat|adar|nisan|iyar|"
    r"sivan|tammuz|elul|chaitra|vaishakha|jyeshtha|ashadha|shravana|bhadrapada|ashvin|kartika|"
    r"margashirsha|pausha|magha|phalguna|kartik|shukla|krishna|paksha|muharram|safar|rabi|jumada|rajab|"
    r"shaban|ramadan|shawwal|dhu)\b",
    re.IGNORECASE,
)
# A year, an era, a circa or a century: "1999", "221 BCE", "c. 870", "the 12th century", "present".
_YEAR = re.compile(
    r"(?<!\d)(?:1[0-9]{3}|20[0-9]{2})(?!\d)|\bpresent\b|\d\s*(?:BCE|BC|AD|CE)\b|\bc\.\s*\d|"
    r"\b\d+(?:st|nd|rd|th)\s+(?:century|millennium)\b|\bmiddle ages\b|\b(?:days?|weeks?|months?)\s+"
    r"(?:after|before)\b|^\s*\d{3,4}\s*$",
    re.IGNORECASE,
)


@cache
def key_words(key: str) -> frozenset[str]:
    """The content words of a key, crudely stemmed ("Occupation(s)" -> {"occupa"}, "Distributed by"
    -> {"distri"}), for telling whether two keys name one attribute."""
    words = re.findall(r"[a-z]+", key.casefold().replace("(s)", ""))
    return frozenset(stem(w) for w in words if w not in _GENERIC)


def stem(word: str) -> str:
    """A crude stem: common endings off, then at most five letters ("editor", "edited" -> "edit";
    "distributor", "distributed" -> "distr")."""
    for ending in ("ings", "ing", "ions", "ion", "ors", "ers", "or", "er", "ed", "es", "s"):
        if word.endswith(ending) and len(word) - len(ending) >= 3:
            word = word[: -len(ending)]
            break
    return word[:5]


# "Speakers of the Council" is a speaker; short words match only whole ("Dams" of a river is no dam)
_IDENTITY_STEMS = frozenset(stem(word) for word in IDENTITY_KEYS if len(word) >= 5)


@cache
def related_keys(a: str, b: str) -> bool:
    """Whether keys `a` and `b` may name the same attribute: equal without case, spacing and
    punctuation ("Productioncompany", "Production company"), sharing a content word ("Capital",
    "Capital and largest city"; "Distributor", "Distributed by") or a synonym ("Nationality",
    "Citizenship")."""
    if re.sub(r"[^a-z0-9]", "", a.casefold().replace("(s)", "")) == re.sub(
        r"[^a-z0-9]", "", b.casefold().replace("(s)", "")
    ):
        return True
    words_a, words_b = key_words(a), key_words(b)
    if words_a & words_b:
        return True
    plain_a = set(re.findall(r"[a-z]+", a.casefold()))
    plain_b = set(re.findall(r"[a-z]+", b.casefold()))
    return any(plain_a & group and plain_b & group for group in KEY_SYNONYMS)


def holds_a_date(values) -> bool:
    return any(_MONTHS.search(v.replace("'", "").replace("’", "")) or _YEAR.search(v) for v in values)


# A part of a value labelled by a name or id before a colon ("Q111: 6.5 miles", "1st: 762.5 kJ/mol").
_LABELLED = re.compile(r"(?:^|[,;]\s*)[\w/ .'-]{1,30}:\s")


def insertable(row: Row, table: Table) -> bool:
    """Whether a row from another table can join `table` as new information that cannot
    contradict it: a key unrelated to any of the table's keys, not about a life or an identity,
    a value that is no date (dates of one table clash with another's: a marriage before birth)."""
    if not row.key.strip() or not any(v.strip() for v in row.values):
        return False
    words = re.findall(r"[a-z]+", row.key.casefold())
    if (
        set(words) & IDENTITY_KEYS
        or {stem(w) for w in words} & _IDENTITY_STEMS
        or re.search(r"\d", row.key)
        or any(w.endswith("name") for w in words)
    ):  # "Codename" too
        return False  # a life, an identity, what the subject is; a key holding a date ("1990–1995")
    if len(words) > 3:
        return False  # an event ("Reunification of China under Jin rule"), not an attribute
    if is_kind_key(row.key):
        return False  # what kind of thing the subject is (a genre): twins may lack it, the table too
    if holds_a_date(row.values) or any(_LABELLED.search(v) for v in row.values):
        return False  # a date; a value labelled by another subject's ids ("Q111: 6.5 miles")
    return not any(related_keys(row.key, key) for key in table.keys)


def names_its_table(row: Row, source: Table) -> bool:
    """A value naming the subject of the table it comes from ("Post-polio syndrome" among
    Polio's complications, a website charliesheen.com): about that subject, not this one."""

    def compact(text: str) -> str:  # "charliesheen.com" names "Charlie Sheen"
        return re.sub(r"[^a-z0-9]", "", text.casefold().replace("&", "and"))

    title = compact(source.title)
    return len(title) >= 4 and any(title in compact(v) for v in row.values)


def has_born_row(table: Table) -> bool:
    """A person's table ("Born"), as opposed to a band's or a group's of the same category."""
    return any(key.strip().casefold() == "born" for key in table.keys)


def _inserted_keys_new(example, table, out):
    """Every inserted key is unrelated to the gold table's keys (and to the rows inserted before
    it): not equal up to case, spacing or punctuation ("Density  (at STP)", "Productioncompany"),
    no shared content word or synonym (related_keys); and the row holds a value."""
    records = out.provenance.get("inserted_rows") or (
        [out.provenance["inserted_row"]] if "inserted_row" in out.provenance else []
    )
    if not records:
        return "no inserted row recorded"
    seen = list(table.keys)
    for record in records:
        if not record["key"].strip():
            return "inserted a row with an empty key"
        clash = next((key for key in seen if related_keys(record["key"], key)), None)
        if clash is not None:
            return f"inserted key {record['key']!r} names what {clash!r} of the table does"
        if not any(v.strip() for v in record["values"]):
            return f"inserted row {record['key']!r} holds no value"
        seen.append(record["key"])
    return None


INSERTED_KEYS_NEW = Invariant("inserts only keys unrelated to the table's", _inserted_keys_new)


def twins(table: Table, ctx) -> list[Table]:
    """The split's tables of the same category and kind (a person's for a person's) whose keys are
    mostly this table's (TWIN_SIMILARITY), that agree with it on the rows saying what kind of
    thing it is (`kind_rows`: a gas's twin is a gas, a bus line's a bus line), and, for people,
    lived at the same time, a dated subject's were of its time (`of_its_time`); in id
    order; cached per split."""
    cache = ctx.shared.setdefault("twins", {})
    if table.table_id not in cache:
        own = {normalised(key) for key in table.keys}
        kind = kind_rows(table)
        found = []
        for other_id in sorted(ctx.tables):
            other = ctx.tables[other_id]
            if (
                other_id == table.table_id
                or other.category != table.category
                or has_born_row(other) != has_born_row(table)
            ):
                continue
            theirs = {normalised(key) for key in other.keys}
            if not own or len(own & theirs) / len(own | theirs) < TWIN_SIMILARITY:
                continue
            other_kind = kind_rows(other)
            if any(other_kind[key] != values for key, values in kind.items() if key in other_kind):
                continue
            if not of_its_time(table, other):
                continue
            found.append(other)
        cache[table.table_id] = found
    return cache[table.table_id]


# Keys whose value says what kind of thing the subject is: twins must agree on those they share.
KIND_KEY_WORDS = word_set("probes/words/kind_key_words.txt")


def kind_rows(table: Table) -> dict[str, frozenset[str]]:
    """{key: its values} of the rows that say what kind of thing the subject is, normalised."""
    return {
        normalised(row.key): frozenset(normalised(v) for v in row.values) for row in table.rows if is_kind_key(row.key)
    }


def is_kind_key(key: str) -> bool:
    """A key saying what kind of thing the subject is ("Genre", "Genres", "Genre(s)", "Phase at STP")."""
    return any(
        word in KIND_KEY_WORDS or word.removesuffix("s") in KIND_KEY_WORDS
        for word in re.findall(r"[a-z]+", key.casefold())
    )


# A life of unknown end: long enough that a contemporary's facts fit, short enough for eras.
LIFE_YEARS = 90
_A_YEAR = re.compile(r"(?<!\d)(1[0-9]{3}|20[0-9]{2})(?!\d)")


def life_span(table: Table) -> tuple[int, int] | None:
    """(born, died) years of a person's table (died = born + LIFE_YEARS when it has no Died row);
    None when the Born row gives no year."""
    years = {}
    for row in table.rows:
        key = row.key.strip().casefold()
        if key in ("born", "died"):
            found = _A_YEAR.search(" ".join(row.values))
            if found:
                years.setdefault(key, int(found.group(1)))
    if "born" not in years:
        return None
    return years["born"], years.get("died", years["born"] + LIFE_YEARS)


# Keys dating a subject that is not a person: when it came out, was founded, built, first held.
_ERA_KEY = re.compile(
    r"\b(?:release[sd]?|founded|established|formed|opened|built|published|publication|premiered?|"
    r"first|introduced|launched|inaugurated|completed|years? active|date|started|began|begun|"
    r"commenced|service)\b",
    re.IGNORECASE,
)
# How far apart two dated subjects may be and still be twins: a 1977 film's twin is of 1967-1977.
ERA_YEARS = 10


def era_of(table: Table) -> int | None:
    """The year a subject that is not a person came to be (its first dated row: Released,
    Founded, Opened, ...), or None."""
    for row in table.rows:
        if _ERA_KEY.search(row.key):
            found = _A_YEAR.search(" ".join(row.values))
            if found:
                return int(found.group(1))
    return None


def _same_era(own: int | None, other: int | None) -> bool:
    """A twin of a dated subject is dated too, no later than it and at most ERA_YEARS earlier: a
    later one's facts may postdate it (a 1977 film "based on" a 1990 novel), a much earlier one's
    crew be dead by then. An undated subject takes twins of any time (no row of it says when)."""
    return own is None or (other is not None and own - ERA_YEARS <= other <= own)


def of_its_time(table: Table, other: Table) -> bool:
    """Whether `other`'s facts can join `table` without naming what came after it: a person's
    life overlaps the other's; a dated subject's other is dated no later, at most ERA_YEARS before."""
    if has_born_row(table):
        return _overlap(life_span(table), life_span(other))
    return _same_era(era_of(table), era_of(other))


def _overlap(a: tuple[int, int] | None, b: tuple[int, int] | None) -> bool:
    """Two life spans that share a year; an unknown one shares none (a twin must be provably of its time)."""
    return a is not None and b is not None and a[0] <= b[1] and b[0] <= a[1]


def insert_new_key_row(table: Table, ctx, against: Table | None = None, accept=None) -> tuple[Table, dict]:
    """Insert, at a random position, a row from a twin of the table (same category and kind, mostly
    the same keys: `twins`) under a key at least COMMON_KEY_TABLES twins have, unrelated to every
    key of `against` (default: the table itself; its twins are found for `against` too, so a
    deleted Born row does not change its kind), that `insertable` accepts: new information that
    cannot contradict what the table says. `accept(row)` narrows the candidate rows (e.g. to
    numeric ones). Drawn with `ctx.rng`."""
    if table.category is None:
        raise NotApplicable("table has no category to draw same-category rows from")
    against = against or table
    sources = twins(against, ctx)
    shared = Counter(normalised(key) for other in sources for key in set(other.keys))
    candidates = [
        (other.table_id, row)
        for other in sources
        if other.table_id != table.table_id
        for row in other.rows
        if shared[normalised(row.key)] >= COMMON_KEY_TABLES
        and insertable(row, against)
        and insertable(row, table)
        and not names_its_table(row, other)
        and (accept is None or accept(row))
    ]
    if not candidates:
        raise NotApplicable("no same-category table has a row this table lacks that cannot contradict it")
    rng = ctx.rng
    source_id, row = candidates[int(rng.integers(len(candidates)))]
    position = int(rng.integers(len(table.rows) + 1))
    rows = list(table.rows)
    rows.insert(position, row)
    return table.with_rows(rows), {
        "inserted_row": {"index": position, "key": row.key, "values": list(row.values), "from_table": source_id}
    }
