"""The terminal: the console the commands print to, and a probe example drawn on it with its
changes marked by symbols as well as colour, so the output reads the same in a pipe."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from tabprobe import LABELS
from tabprobe.probes import Probe
from tabprobe.report.failures import label_names

# Wide enough that tables piped to a file or captured by a test are never cut; rich tables only
# take the width their content needs, so this is a limit, not a padding.
PIPE_WIDTH = 400


def stdout_console():
    from rich.console import Console

    terminal = sys.stdout.isatty()
    return Console(file=sys.stdout, width=None if terminal else PIPE_WIDTH, highlight=False, emoji=False, markup=False)


def styled(text: str, style: str = ""):
    from rich.text import Text

    return Text(text, style=style)


def render_change(console, change, probe: Probe, reason: str | None = None) -> None:
    """One probe example (a diff.ExampleChange): header, hypothesis and table, changes marked."""
    from rich.text import Text

    console.print()
    header = Text("── ", style="bold")
    header.append(change.uid, style="bold")
    if change.uid != change.orig_uid:
        header.append(f"  (from {change.orig_uid})", style="dim")
    console.print(header)
    names = label_names(probe)
    console.print(Text(f"gold {names[change.gold]} · {_judgement(change, probe)}"))
    if change.original_pred is not None or change.pred is not None:
        before = names.get(change.original_pred, "?") if change.original_pred else "?"
        after = names.get(change.pred, "?") if change.pred else "?"
        console.print(Text(f"prediction {before} on the original → {after} after the change"))
    if reason:
        console.print(Text(f"✗ fails: {reason}", style="bold red"))
    console.print(hypothesis_text(change.hypothesis))
    note = change.premise_note
    if note:
        console.print(Text(f"premise: {note}", style="yellow"))
        if change.provenance.get("premise") != "none":
            console.print(Text(f"table the model sees: {change.table.new_title or '(no title)'}", style="bold"))
            console.print(plain_table(change.table))
        return
    console.print(table_title(change.table))
    if change.table.relational:
        if change.table.header != change.table.old_header:
            console.print(Text(f"columns reordered; they were: {' · '.join(change.table.old_header)}", style="magenta"))
        console.print(record_table(change.table))
    else:
        console.print(diff_table(change.table))


def _judgement(change, probe: Probe) -> str:
    if change.expected is not None:
        return f"expected {label_names(probe).get(change.expected, change.expected)}"
    if probe.judged_by == "transitions":
        rule = probe.transition_rule
        # The rule's own labels: a two-label dataset's rule has no N.
        allowed = ", ".join(
            f"{b}→{'/'.join(sorted(rule.allowed[b], key=lambda a: (a != b, LABELS.index(a))))}"
            for b in LABELS
            if b in rule.allowed
        )
        return f"judged by transitions: {rule.name} ({allowed})"
    if probe.judged_by == "evidence":
        relevant = change.provenance.get("relevant")
        what = {True: "a row the hypothesis needs", False: "a row the hypothesis does not need"}.get(relevant, "a row")
        return f"judged as evidence: deletes {what}"
    return f"judged by {probe.judged_by}"


def hypothesis_text(segments):
    """The hypothesis with [-removed-] text red and struck through, {+added+} text green and bold."""
    from rich.text import Text

    if all(kind == "same" for kind, _ in segments):
        line = Text("hypothesis (unchanged): ", style="bold")
        line.append("".join(text for _, text in segments))
        return line
    line = Text("hypothesis: ", style="bold")
    for kind, text in segments:
        if kind == "same":
            line.append(text)
            continue
        core = text.rstrip()
        opening, closing, style = ("[-", "-]", "red strike") if kind == "old" else ("{+", "+}", "bold green")
        line.append(f"{opening}{core}{closing}", style=style)
        line.append(text[len(core) :])
    return line


def _values(values: Sequence[str]) -> str:
    return ", ".join(values) if values else "(no value)"


def table_title(change):
    """The table's title line: "old → new" when the probe changed it."""
    from rich.text import Text

    title = Text("table: ", style="bold")
    if change.old_title != change.new_title:
        title.append(change.old_title, style="red strike")
        title.append(" → ")
        title.append(change.new_title, style="bold green")
    else:
        title.append(change.new_title + ("" if change.changed else " (unchanged)"))
    return title


def diff_table(change):
    """The table as the model sees it, with deleted rows where they stood: − deleted, + inserted,
    ~ changed (old values struck, → new values), ↕ moved (was row i), rows numbered 1, 2, ..."""
    from rich import box
    from rich.table import Table as RichTable
    from rich.text import Text

    table = RichTable(box=box.SIMPLE, show_edge=False, pad_edge=False)
    table.add_column("", no_wrap=True)
    table.add_column("#", justify="right", no_wrap=True)
    table.add_column("key", overflow="fold")
    table.add_column("values", overflow="fold")
    table.add_column("", overflow="fold")
    position = 0
    for row in change.rows:
        old = f"row {row.old_index + 1}" if row.old_index is not None else ""
        if row.status == "deleted":
            table.add_row(
                Text("−", style="bold red"),
                "",
                Text(row.key, style="red strike"),
                Text(_values(row.values), style="red strike"),
                Text(f"deleted (was {old})", style="red"),
            )
            continue
        position += 1
        if row.status == "inserted":
            table.add_row(
                Text("+", style="bold green"),
                str(position),
                Text(row.key, style="bold green"),
                Text(_values(row.values), style="bold green"),
                Text("inserted", style="green"),
            )
        elif row.status == "changed":
            values = Text(_values(row.old_values), style="red strike")
            values.append(" → ")
            values.append(_values(row.values), style="bold green")
            moved = "" if row.old_index == position - 1 else f", was {old}"
            table.add_row(
                Text("~", style="bold yellow"), str(position), row.key, values, Text(f"changed{moved}", style="yellow")
            )
        elif row.status == "moved":
            table.add_row(
                Text("↕", style="bold magenta"),
                str(position),
                row.key,
                _values(row.values),
                Text(f"↕ was {old}", style="magenta"),
            )
        else:
            table.add_row("", str(position), row.key, _values(row.values), "")
    if not change.rows:
        table.add_row("", "", Text("(no rows)", style="dim"), "", "")
    return table


def record_table(change):
    """A relational table as the model sees it, its records under its header and the
    deleted ones where they stood, marked as diff_table marks rows; in a changed record, each
    changed cell old → new."""
    from rich import box
    from rich.table import Table as RichTable
    from rich.text import Text

    table = RichTable(box=box.SIMPLE, show_edge=False, pad_edge=False)
    table.add_column("", no_wrap=True)
    table.add_column("#", justify="right", no_wrap=True)
    for name in change.header:
        table.add_column(name, overflow="fold")
    table.add_column("", overflow="fold")
    position = 0
    for row in change.rows:
        old = f"record {row.old_index + 1}" if row.old_index is not None else ""
        if row.status == "deleted":
            cells = [Text(cell, style="red strike") for cell in row.values]
            table.add_row(Text("−", style="bold red"), "", *cells, Text(f"deleted (was {old})", style="red"))
            continue
        position += 1
        if row.status == "inserted":
            cells = [Text(cell, style="bold green") for cell in row.values]
            table.add_row(Text("+", style="bold green"), str(position), *cells, Text("inserted", style="green"))
        elif row.status == "changed":
            moved = "" if row.old_index == position - 1 else f", was {old}"
            table.add_row(
                Text("~", style="bold yellow"),
                str(position),
                *(_changed_cell(was, now) for was, now in zip(row.old_values, row.values)),
                Text(f"changed{moved}", style="yellow"),
            )
        elif row.status == "moved":
            table.add_row(
                Text("↕", style="bold magenta"), str(position), *row.values, Text(f"↕ was {old}", style="magenta")
            )
        else:
            table.add_row("", str(position), *row.values, "")
    if not change.rows:
        table.add_row("", "", Text("(no records)", style="dim"), *([""] * len(change.header)))
    return table


def _changed_cell(was: str, now: str):
    from rich.text import Text

    if was == now:
        return Text(now)
    cell = Text(was, style="red strike")
    cell.append(" → ")
    cell.append(now, style="bold green")
    return cell


def plain_table(change):
    """The table the model sees in place of the original (a premise control), unmarked."""
    from rich import box
    from rich.table import Table as RichTable

    table = RichTable(box=box.SIMPLE, show_edge=False, pad_edge=False)
    shown = [row for row in change.rows if row.status != "deleted"]
    if change.relational:
        for name in change.header:
            table.add_column(name, overflow="fold")
        for row in shown:
            table.add_row(*row.values)
        return table
    table.add_column("key", overflow="fold")
    table.add_column("values", overflow="fold")
    for row in shown:
        table.add_row(row.key, _values(row.values))
    return table
