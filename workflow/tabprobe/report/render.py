"""The report's sections rendered as one self-contained HTML page and as Markdown.

The page needs no network: styles, the table-sorting script and every figure (SVG) are inline.
It reads on paper too: a print style sheet drops the controls, opens the failing examples and
keeps tables and figures whole.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

from tabprobe import LABEL_NAMES
from tabprobe.probes import get_probe
from tabprobe.probes.diff import ExampleChange, RowChange, text_diff
from tabprobe.report.blocks import Alert, ExamplesBlock, Figure, Section, Stat, TableBlock, VerdictBlock
from tabprobe.report.failures import judgement

_CSS = """
:root{--ink:#1b1b1b;--muted:#5f6368;--line:#d0d4d8;--head:#f2f4f6;--bad:#b3261e;--bad-bg:#fdecea;--good:#1b5e20;--good-bg:#e7f4e8;--moved-bg:#fff6dc}
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;max-width:78rem;margin:2rem auto;padding:0 1rem;color:var(--ink);line-height:1.45}
h1{font-size:1.6rem;margin-bottom:.3rem}h2{font-size:1.3rem;margin-top:2.6rem;border-bottom:2px solid var(--line);padding-bottom:.2rem}
h3{font-size:1.08rem;margin-top:1.8rem}
nav.toc{background:var(--head);padding:.6rem 1rem;border-radius:4px;font-size:.92rem}nav.toc ol{margin:.2rem 0;padding-left:1.3rem}nav.toc ol ol{font-size:.88rem}@media (min-width:60rem){nav.toc>ol{columns:2;column-gap:2.5rem}nav.toc>ol>li{break-inside:avoid}}
.table-wrap{overflow-x:auto;margin:.8rem 0}
table{border-collapse:collapse;font-size:.86rem}th,td{border:1px solid var(--line);padding:.25rem .5rem;text-align:right;vertical-align:top}
th:first-child,td:first-child{text-align:left}thead th{background:var(--head)}caption{text-align:left;font-weight:600;padding:.3rem 0;caption-side:top}
th button.sort{all:unset;cursor:pointer;display:inline-block}th button.sort:focus-visible{outline:2px solid #1a73e8}
th button.sort::after{content:" ↕";color:var(--muted);font-size:.8em}th[aria-sort=ascending] button.sort::after{content:" ▲"}th[aria-sort=descending] button.sort::after{content:" ▼"}
td .sd,td .ci,td .n{color:var(--muted);font-size:.82em;white-space:nowrap}td .paper{display:block;color:#3949ab;font-size:.82em}
tr.reference td{background:#f7f8fc;font-style:italic}
figure{margin:1rem 0}figure svg{max-width:100%;height:auto}figcaption{font-size:.85rem;color:#444}
.alert{background:#fff4e5;border-left:4px solid #f0a020;padding:.5rem .8rem}code{background:var(--head);padding:0 .2rem;border-radius:2px}
details.examples{margin:.8rem 0;border:1px solid var(--line);border-radius:4px;padding:.3rem .8rem}details.examples>summary{cursor:pointer;font-weight:600}
article.example{border-top:1px solid var(--line);padding:.6rem 0}article.example header{font-size:.9rem;color:var(--muted)}
article.example .reason{color:var(--bad);font-weight:600}
p.hypothesis{margin:.4rem 0}del{background:var(--bad-bg);color:var(--bad);text-decoration:line-through}ins{background:var(--good-bg);color:var(--good);text-decoration:underline;font-weight:600}
table.example-table{font-size:.82rem;margin:.3rem 0}table.example-table td,table.example-table th{text-align:left}
table.example-table td.mark{width:1.2rem;text-align:center;font-weight:700}
tr.row-deleted td,tr.row-deleted th{background:var(--bad-bg);color:var(--bad);text-decoration:line-through}tr.row-deleted td.mark{text-decoration:none}
tr.row-inserted td,tr.row-inserted th{background:var(--good-bg);color:var(--good)}tr.row-moved td,tr.row-moved th{background:var(--moved-bg)}
.premise-note{font-style:italic}
article.verdict{border:1px solid var(--line);border-left:5px solid #3949ab;border-radius:4px;padding:.2rem 1rem .6rem;margin:1rem 0}
article.verdict h3{margin:.6rem 0 .4rem}article.verdict dl{margin:.3rem 0}article.verdict dt{font-weight:600;margin-top:.4rem}
article.verdict dd{margin-left:1.2rem}article.verdict ul{margin:.2rem 0;font-size:.9rem;color:#333}
.answer{display:inline-block;min-width:5.5em;font-weight:700;text-transform:uppercase;font-size:.8rem;padding:0 .3rem;border-radius:3px;background:var(--head)}
.answer.yes{background:var(--good-bg);color:var(--good)}.answer.no{background:var(--bad-bg);color:var(--bad)}
article.verdict .caveat{background:#fff4e5;padding:.2rem .5rem;margin:.3rem 0;font-size:.9rem}
@media print{
 body{max-width:none;margin:0;font-size:9.5pt;color:#000}nav.toc{display:none}
 th button.sort::after{content:""}h2{break-before:auto}
 table,figure,article.example{break-inside:avoid}h2,h3,caption{break-after:avoid}
 .table-wrap{overflow:visible}td .sd,td .ci,td .n,figcaption,article.example header{color:#333}
 del{text-decoration:line-through;background:none}ins{background:none;text-decoration:underline}
}
"""

# Sorts a table by the clicked column: numbers by their data-sort value, text alphabetically,
# empty cells last; rows of the paper's reference numbers sort like any other row.
_SCRIPT = """
(function () {
  function key(cell) {
    if (!cell) return null;
    var raw = cell.hasAttribute("data-sort") ? cell.getAttribute("data-sort") : cell.textContent.trim();
    if (raw === "" || raw === "\\u2013") return null;
    var number = Number(raw);
    return isNaN(number) ? raw.toLowerCase() : number;
  }
  document.querySelectorAll("table.sortable").forEach(function (table) {
    var headers = table.tHead ? Array.prototype.slice.call(table.tHead.rows[0].cells) : [];
    headers.forEach(function (th, column) {
      var button = th.querySelector("button.sort");
      if (!button) return;
      button.addEventListener("click", function () {
        var ascending = th.getAttribute("aria-sort") !== "ascending";
        headers.forEach(function (other) { other.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows).map(function (row, index) {
          return {row: row, index: index, key: key(row.cells[column])};
        });
        rows.sort(function (a, b) {
          if (a.key === null || b.key === null) return (a.key === null) - (b.key === null) || a.index - b.index;
          if (typeof a.key !== typeof b.key) return typeof a.key === "number" ? -1 : 1;
          var order = a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
          return (ascending ? order : -order) || a.index - b.index;
        });
        rows.forEach(function (entry) { body.appendChild(entry.row); });
      });
    });
  });
  // Failing examples are folded on screen; on paper they are all shown.
  var folded = [];
  window.addEventListener("beforeprint", function () {
    folded = Array.prototype.slice.call(document.querySelectorAll("details:not([open])"));
    folded.forEach(function (d) { d.open = true; });
  });
  window.addEventListener("afterprint", function () { folded.forEach(function (d) { d.open = false; }); });
})();
"""


def _inline(text: str) -> str:
    """HTML of a paragraph: escaped, with `backticks` as code."""
    parts = html.escape(text).split("`")
    return "".join(f"<code>{p}</code>" if i % 2 else p for i, p in enumerate(parts))


def _stat_html(stat: Stat) -> str:
    sort = "" if stat.mean is None else f' data-sort="{stat.mean:.6g}"'
    parts = [f'<span class="v">{stat.value}</span>']
    if stat.mean is not None and stat.std is not None:
        parts.append(f'<span class="sd">({stat.std:.2f})</span>')
    if stat.interval:
        parts.append(f'<span class="ci">{stat.interval}</span>')
    if stat.n is not None and (stat.mean is not None or stat.n == 0) and not stat.too_few:
        parts.append(f'<span class="n">n={stat.n}</span>')
    if stat.paper is not None:
        parts.append(f'<span class="paper">{stat.paper_text}</span>')
    return f"<td{sort}>{' '.join(parts)}</td>"


def _cell_html(cell) -> str:
    return _stat_html(cell) if isinstance(cell, Stat) else f"<td>{_inline(str(cell))}</td>"


def _table_html(block: TableBlock) -> str:
    out = ['<div class="table-wrap"><table class="sortable">']
    if block.caption:
        out.append(f"<caption>{_inline(block.caption)}</caption>")
    out.append(
        "<thead><tr>"
        + "".join(
            f'<th scope="col"><button type="button" class="sort">{_inline(h)}</button></th>' for h in block.header
        )
        + "</tr></thead><tbody>"
    )
    for row in block.rows:
        reference = isinstance(row[0], str) and row[0].startswith("paper")
        out.append(("<tr class='reference'>" if reference else "<tr>") + "".join(_cell_html(c) for c in row) + "</tr>")
    out.append("</tbody></table></div>")
    return "\n".join(out)


def _segments_html(segments) -> str:
    tags = {"same": "{}", "old": "<del>{}</del>", "new": "<ins>{}</ins>"}
    out, previous = [], None
    for kind, text in segments:
        if kind == "new" and previous == "old":
            out.append(" ")  # a replacement reads as "old new", not "oldnew"
        out.append(tags[kind].format(html.escape(text)))
        previous = kind
    return "".join(out)


ROW_MARKS = {"kept": "", "moved": "↕", "changed": "~", "deleted": "−", "inserted": "+"}


def _row_values_html(row: RowChange) -> str:
    if row.status == "changed":
        return _segments_html(text_diff(", ".join(row.old_values), ", ".join(row.values)))
    text = html.escape(", ".join(row.values))
    if row.status == "moved":
        text += f' <span class="n">(was row {row.old_index + 1})</span>'
    return text


def _example_html(change: ExampleChange) -> str:
    judged = judgement(get_probe(change.probe), change.expected)
    preds = ""
    if change.pred is not None:
        before = LABEL_NAMES.get(change.original_pred, "–") if change.original_pred else "–"
        preds = f" · model: {before} → {LABEL_NAMES.get(change.pred, 'no label (unparsed answer)')}"
    out = [
        f'<article class="example"><header><code>{html.escape(change.uid)}</code> · gold {LABEL_NAMES[change.gold]} · '
        f"{judged}{preds}</header>"
    ]
    if change.reason:
        out.append(f'<p class="reason">{html.escape(change.reason)}</p>')
    if not change.has_original:
        out.append('<p class="premise-note">No original example to compare with: shown as given.</p>')
    unchanged = (
        ""
        if any(kind != "same" for kind, _ in change.hypothesis) or not change.has_original
        else ' <span class="n">(unchanged)</span>'
    )
    out.append(f'<p class="hypothesis"><strong>Hypothesis:</strong> {_segments_html(change.hypothesis)}{unchanged}</p>')
    if change.premise_note:
        out.append(f'<p class="premise-note">Premise: {html.escape(change.premise_note)}.</p>')
    table = change.table
    title = (
        _segments_html(text_diff(table.old_title, table.new_title))
        if table.old_title != table.new_title
        else html.escape(table.new_title)
    )
    out.append(
        f'<table class="example-table"><caption>Table: {title}'
        + (
            ""
            if table.changed or not change.has_original or change.premise_note
            else ' <span class="n">(unchanged)</span>'
        )
        + "</caption><tbody>"
    )
    for row in table.rows:
        out.append(
            f'<tr class="row-{row.status}"><td class="mark">{ROW_MARKS[row.status]}</td>'
            f"<th>{html.escape(row.key)}</th><td>{_row_values_html(row)}</td></tr>"
        )
    out.append("</tbody></table></article>")
    return "\n".join(out)


def _examples_summary(block: ExamplesBlock) -> str:
    return (
        f"Failing examples · {block.probe} · {block.model} · {block.split}: {block.failures.caption()}; "
        f"{len(block.changes)} shown"
    )


def _examples_html(block: ExamplesBlock) -> str:
    out = [
        f'<details class="examples" data-probe="{html.escape(block.probe)}" data-model="{html.escape(block.model)}">'
        f"<summary>{html.escape(_examples_summary(block))}</summary>",
        f"<p>A failure here: {html.escape(block.failures.what)}. Examples chosen at random (seeded) among the "
        "failures; removed text and rows are struck through in red, added ones underlined in green, "
        "reordered rows marked ↕.</p>",
    ]
    out += [_example_html(change) for change in block.changes]
    out.append("</details>")
    return "\n".join(out)


def _answer_class(answer: str) -> str:
    return answer.replace(" ", "-")


def _verdict_html(block: VerdictBlock) -> str:
    v = block.verdict
    uses = v.findings[0].answer
    out = [
        f'<article class="verdict" data-model="{html.escape(v.model)}" data-uses-table="{_answer_class(uses)}">',
        f"<h3>{_inline(v.headline)}</h3><dl>",
    ]
    for finding in v.findings:
        out.append(
            f"<dt>{_inline(finding.question)}</dt><dd><span class='answer {_answer_class(finding.answer)}'>"
            f"{html.escape(finding.answer)}</span> {_inline(finding.sentence)}"
        )
        if finding.numbers:
            out.append("<ul>" + "".join(f"<li>{_inline(n.text())}</li>" for n in finding.numbers) + "</ul>")
        out.append("</dd>")
    out.append("</dl>")
    out += [f"<p class='caveat'>Caveat: {_inline(c)}</p>" for c in v.caveats]
    out.append("</article>")
    return "\n".join(out)


def _verdict_md(block: VerdictBlock) -> list[str]:
    v = block.verdict
    out = [f"**{v.headline}**", ""]
    for finding in v.findings:
        out.append(f"- {finding.question} **{finding.answer}**: {finding.sentence}")
        out += [f"  - {n.text()}" for n in finding.numbers]
    out += [f"- Caveat: {c}" for c in v.caveats]
    out.append("")
    return out


def _toc(sections: Sequence[Section]) -> str:
    out, open_sub = ['<nav class="toc" aria-label="Contents"><strong>Contents</strong><ol>'], False
    for section in sections:
        link = f'<a href="#{section.anchor}">{_inline(section.title)}</a>'
        if section.level == 2:
            if open_sub:
                out.append("</ol>")
                open_sub = False
            out.append(f"<li>{link}")
        else:
            if not open_sub:
                out.append("<ol>")
                open_sub = True
            out.append(f"<li>{link}</li>")
    if open_sub:
        out.append("</ol>")
    out.append("</ol></nav>")
    return "".join(out)


def to_html(sections: Sequence[Section], title: str, lede: str) -> str:
    out = [
        "<!doctype html>",
        "<html lang='en'><head><meta charset='utf-8'>",
        "<meta name='viewport' content='width=device-width, initial-scale=1'>",
        f"<title>{html.escape(title)}</title><style>{_CSS}</style></head><body>",
        f"<header><h1>{html.escape(title)}</h1><p>{_inline(lede)}</p></header>",
        _toc(sections),
        "<main>",
    ]
    inside = False
    for section in sections:
        if section.level == 2 and inside:
            out.append("</section>")
            inside = False
        tag = "h2" if section.level == 2 else "h3"
        out.append(f'<section id="{section.anchor}"><{tag}>{_inline(section.title)}</{tag}>')
        for block in section.blocks:
            if isinstance(block, TableBlock):
                out.append(_table_html(block))
            elif isinstance(block, Figure):
                out.append(f"<figure>{block.svg}<figcaption>{_inline(block.caption)}</figcaption></figure>")
            elif isinstance(block, ExamplesBlock):
                out.append(_examples_html(block))
            elif isinstance(block, Alert):
                out.append(f"<p class='alert' role='note'>{_inline(block.text)}</p>")
            elif isinstance(block, VerdictBlock):
                out.append(_verdict_html(block))
            else:
                out.append(f"<p>{_inline(block)}</p>")
        if section.level == 2:
            inside = True
        else:
            out.append("</section>")
    if inside:
        out.append("</section>")
    out.append(f"</main><script>{_SCRIPT}</script></body></html>\n")
    return "\n".join(out)


def _segments_md(segments) -> str:
    marks = {"same": "{}", "old": "~~{}~~", "new": "**{}**"}
    return "".join(
        marks[kind].format(text.strip()) + (" " if text.endswith(" ") and kind != "same" else "")
        if kind != "same"
        else text
        for kind, text in segments
    )


def _examples_md(block: ExamplesBlock) -> list[str]:
    out = [f"**{_examples_summary(block)}** (a failure: {block.failures.what})", ""]
    for change in block.changes:
        preds = f"; model {change.original_pred or '–'} → {change.pred}" if change.pred else ""
        out.append(f"- `{change.uid}` gold {change.gold}{preds}" + (f": {change.reason}" if change.reason else ""))
        if not change.has_original:
            out.append("  - No original example to compare with: shown as given.")
        out.append(f"  - Hypothesis: {_segments_md(change.hypothesis)}")
        if change.premise_note:
            out.append(f"  - Premise: {change.premise_note}")
        edits = [
            f"{ROW_MARKS[r.status]} {r.key}: "
            + (
                _segments_md(text_diff(", ".join(r.old_values), ", ".join(r.values)))
                if r.status == "changed"
                else ", ".join(r.values) + (f" (was row {r.old_index + 1})" if r.status == "moved" else "")
            )
            for r in change.table.rows
            if r.status != "kept"
        ]
        title = (
            f"~~{change.table.old_title}~~ → **{change.table.new_title}**"
            if change.table.old_title != change.table.new_title
            else change.table.new_title
        )
        out.append(f"  - Table {title}: " + ("; ".join(edits) if edits else "no row changed"))
    out.append("")
    return out


def to_markdown(sections: Sequence[Section], title: str, lede: str) -> str:
    out = [f"# {title}", "", lede, ""]
    for section in sections:
        out += [f"{'#' * section.level} {section.title}", ""]
        for block in section.blocks:
            if isinstance(block, TableBlock):
                if block.caption:
                    out += [f"**{block.caption}**", ""]
                out.append("| " + " | ".join(block.header) + " |")
                out.append("|" + "|".join("---" for _ in block.header) + "|")
                out += ["| " + " | ".join(str(c).replace("|", "\\|") for c in row) + " |" for row in block.rows]
                out.append("")
            elif isinstance(block, Figure):
                out += [
                    "*Figure (drawn in index.html"
                    + (f", and results/report/figures/{block.path}" if block.path else "")
                    + f"): {block.caption}*",
                    "",
                ]
            elif isinstance(block, ExamplesBlock):
                out += _examples_md(block)
            elif isinstance(block, Alert):
                out += [f"> **Warning:** {block.text}", ""]
            elif isinstance(block, VerdictBlock):
                out += _verdict_md(block)
            else:
                out += [block, ""]
    return "\n".join(out)
