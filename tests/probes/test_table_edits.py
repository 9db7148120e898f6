"""The rules of the table edits (table_edits, row_update, titles) that reviews of the table probes'
output added, one case each. The property-based tests of each table probe over generated tables,
odd ones included (one row, empty values, unicode, very long values, repeated keys), are in
tests/probes/test_probe_<name>.py (the tables' strategies in tests/probes/probe_helpers.py)."""

from __future__ import annotations

from tabprobe.data.infobox.table import Row, Table


def test_review_round_five_cases_of_table_edits():
    """What the fifth independent review found, each as the rule that now refuses it."""
    from tabprobe.probes.infotabs.table.row_update import plain
    from tabprobe.probes.infotabs.table_edits import kind_rows, life_span, related_keys

    assert not plain("1979 - 1998 2009 - present") and plain("1973-1985")  # a2:1057, two ranges run together
    # disguised updates in row_deletion_insertion: the inserted key names the deleted attribute
    assert related_keys("Medication", "Treatment") and related_keys("Activity sectors", "Fields ofemployment")
    napier = Table("T1", "John Napier", (Row("Born", ("1550 Merchiston Tower",)), Row("Died", ("4 April 1617",))))
    assert life_span(napier) == (1550, 1617)
    assert life_span(Table("T2", "A", (Row("Born", ("1966",)),))) == (1966, 2056)  # no Died row: LIFE_YEARS
    argon = Table("T3", "Argon", (Row("Phase at STP", ("gas",)), Row("Density", ("1.784 g/L",))))
    assert kind_rows(argon) == {"phase at stp": frozenset({"gas"})}


def test_review_round_six_cases_of_table_edits():
    """What the sixth independent review found, each as the rule that now refuses it."""
    from tabprobe.probes.infotabs.counterfactual.subject_swaps import swap_mentions
    from tabprobe.probes.infotabs.table.row_update import new_to
    from tabprobe.probes.infotabs.table_edits import insertable

    book = Table("T1", "Jack of Fables", (Row("Publisher", ("Vertigo",)),))
    for key, value in [
        ("Genre", "Horror"),  # what kind of thing it is, though the table lacks the row
        ("Associated acts", "Elvis Presley"),
        ("Institutions", "Defence Science and Technology Organisation"),
        ("Doctoral students", "Eric Ash"),
        ("Alma mater", "National Youth Music Theatre"),
        ("Fields", "inventor"),
        ("Developer", "Indian Institutes of Management"),
        ("Intended for", "graduate management education"),
        ("Developed into", "Airbus A330"),
    ]:
        assert not insertable(Row(key, (value,)), book), key
    assert not insertable(Row("Length", ("Q111: 6.5 miles, Q113/Q114: 12 miles",)), book)  # another line's ids
    assert insertable(Row("Pages", ("212 pages",)), book)
    assert not new_to("Petrol", ["Gasoline", "Methanol"])  # a3:371, another word for a held value
    race = Table("T2", "City2Surf", (Row("Date", ("August",)),))
    assert (
        swap_mentions("The City2Surf race is run in Sydney.", race, {"name": "Derby County"})[0]
        == "The Derby County race is run in Sydney."
    )  # tr:1610


def test_review_round_seven_cases_of_table_edits():
    """What the seventh independent review found, each as the rule that now refuses it."""
    from tabprobe.probes.infotabs.table_edits import _same_era, era_of, insertable, names_its_table

    wrestler = Table("T1", "Jinder Mahal", (Row("Born", ("May 19, 1986",)),))
    for key in ("Genres", "Genre(s)", "Eligibility"):  # a1:1603, tr:3952 kept Jackie Chan's "Genre(s)"; a3:1293
        assert not insertable(Row(key, ("Cantopop",)), wrestler), key
    # a1:498: Close Encounters (1977) + "Based on" of a 1985 film; a1:471: a 2017 film + a 1931 film's cinematographer
    close_encounters = Table("T2", "Close Encounters", (Row("Release date", ("November 16, 1977",)),))
    assert era_of(close_encounters) == 1977
    assert not _same_era(1977, 1985) and not _same_era(2017, 1931) and _same_era(1977, 1972)
    assert not _same_era(1977, None) and _same_era(None, 1985)  # a dated subject's twin must be dated
    polio = Table("T3", "Polio", (Row("Complications", ("Post-polio syndrome",)),))
    assert names_its_table(polio.rows[0], polio)  # a3:880: Jaundice + Polio's own complication


def test_review_round_eight_cases_of_table_edits():
    """What the eighth independent review found, each as the rule that now refuses it."""
    from tabprobe.probes.infotabs.table_edits import era_of, insertable, names_its_table, of_its_time

    for key, value, year in [
        ("Publication date", "January 2008", 2008),
        ("Local date", "21 September 1999", 1999),
        ("Year started", "1974", 1974),
        ("Began service", "1884", 1884),
    ]:
        assert era_of(Table("T1", "X", (Row(key, (value,)),))) == year, key  # dated, so its twins are of its time
    film_1955 = Table("T2", "Tuntematon sotilas", (Row("Release date", ("1955",)),))
    film_2015 = Table("T3", "Dilwale", (Row("Release date", ("2015",)),))
    assert not of_its_time(film_1955, film_2015)  # tr:14575 kept "Music by: Pritam" (born 1971)
    album = Table("T4", "Camp", (Row("Released", ("2011",)),))
    for key in ("Artist", "Created by"):  # tr:5934, tr:4026: who made it
        assert not insertable(Row(key, ("Meat Loaf",)), album), key
    sheen = Table("T5", "Charlie Sheen", ())
    assert names_its_table(Row("Website", ("charliesheen.com",)), sheen)
