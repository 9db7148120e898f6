"""Label flips a person must check before they count (paper section 4).

The paper trusts two kinds of automatic label flip only after a human looked at them: every
CONTRADICT -> ENTAIL flip ("we annotate the CONTRADICT to ENTAIL label-flipping perturbations
manually": a hypothesis can be false because of a part of the sentence the edit does not touch)
and every flip made by a heuristic (half/twice, another year; "manually curated"). tabprobe marks
such examples as candidates in their provenance (`review`), writes them to a review file
(`tabprobe curate`), and reads the curated file back as an input of the probe's generate_probe
jobs: accepted examples keep their label, relabelled ones take the new one, rejected ones are
dropped. Candidates nobody decided stay `unverified` and, by default (`unverified_flips:
exclude`), out of every score.

The curation file is a TSV (a spreadsheet saves it as is) with one line per decision:

    uid  table_id  needs  gold  proposed  decision  label  hypothesis_before  hypothesis  note

`decision` is accept, reject, relabel (with `label` E, N or C) or empty (not decided yet);
`hypothesis` is the edited hypothesis as it was reviewed: a decision applies only to that text, so
a probe that now writes another edit for the same example does not inherit it (counted `stale`).
"""

from __future__ import annotations

import csv
import io
import json
import logging
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa

from tabprobe import LABELS
from tabprobe.errors import InputDataError, Problem

log = logging.getLogger(__name__)

# Why an example needs a person: a CONTRADICT -> ENTAIL flip, a flip made by a heuristic.
REVIEW_KINDS = ("C2E", "heuristic")
DECISIONS = ("accept", "reject", "relabel")
COLUMNS = (
    "uid",
    "table_id",
    "needs",
    "gold",
    "proposed",
    "decision",
    "label",
    "hypothesis_before",
    "hypothesis",
    "note",
)
REQUIRED = ("uid", "decision", "label", "hypothesis")
# What `unverified_flips` may say: leave undecided candidates out of every score, or count them.
POLICIES = ("exclude", "include")
_LABEL_WORDS = {"ENTAIL": "E", "ENTAILMENT": "E", "NEUTRAL": "N", "CONTRADICT": "C", "CONTRADICTION": "C"}


def needs_review(label_change: str | None, gold: str, expected: str | None, provenance: Mapping[str, Any]) -> list[str]:
    """The reasons (REVIEW_KINDS) a person must look at this example before its label counts: an
    edit of a CONTRADICT hypothesis said to make it ENTAIL (a probe that flips labels), or a label
    set by a heuristic. (A probe that writes a new hypothesis and labels it by rule, such as
    num_comparative, flips nothing.) A pair people made (provenance `made_by: human`, the paper's
    hand-made counterfactuals) is not a candidate: its label is theirs."""
    if provenance.get("made_by") == "human":
        return []
    needs = []
    if label_change == "flipped" and gold == "C" and expected == "E":
        needs.append("C2E")
    if provenance.get("heuristic"):
        needs.append("heuristic")
    return needs


@dataclass(frozen=True)
class Decision:
    uid: str
    hypothesis: str  # the edited hypothesis the decision was made on
    decision: str  # accept | reject | relabel
    label: str | None  # the new label, for relabel
    source: str  # file:line, for messages
    note: str = ""


def read_decisions(paths: Sequence[str | Path]) -> dict[str, Decision]:
    """Every decided line of the curation files (undecided lines are skipped); a file that cannot
    be used stops with each problem's file and line and how to fix it."""
    problems: list[Problem] = []
    decisions: dict[str, Decision] = {}
    for path in paths:
        path = Path(path)
        try:
            text = path.read_bytes().decode("utf-8-sig")  # a spreadsheet may add a BOM
        except FileNotFoundError:
            problems.append(Problem(str(path), None, "curation file not found"))
            continue
        except UnicodeDecodeError as error:
            problems.append(Problem(str(path), None, f"not valid UTF-8 ({error.reason}); save it as UTF-8 text"))
            continue
        reader = csv.DictReader(io.StringIO(text, newline=""), delimiter="\t")
        missing = [c for c in REQUIRED if c not in (reader.fieldnames or [])]
        if missing:
            problems.append(
                Problem(str(path), 1, f"header lacks column(s) {', '.join(missing)}; found {reader.fieldnames}")
            )
            continue
        for record in reader:
            line = reader.line_num
            decision = (record["decision"] or "").strip().lower()
            if not decision:
                continue
            label = (record["label"] or "").strip().upper()
            label = _LABEL_WORDS.get(label, label) or None
            where = f"{path}:{line}"
            if decision not in DECISIONS:
                problems.append(
                    Problem(
                        str(path),
                        line,
                        f"decision {record['decision']!r} is not one of "
                        f"{', '.join(DECISIONS)} (or empty: not decided yet)",
                    )
                )
            elif decision == "relabel" and label not in LABELS:
                problems.append(
                    Problem(str(path), line, f"relabel needs a label of E, N or C, found {record['label']!r}")
                )
            elif record["uid"] in decisions:
                problems.append(
                    Problem(
                        str(path),
                        line,
                        f"uid {record['uid']} was decided before, at "
                        f"{decisions[record['uid']].source}; keep one line per example",
                    )
                )
            else:
                decisions[record["uid"]] = Decision(
                    record["uid"],
                    record["hypothesis"] or "",
                    decision,
                    label if decision == "relabel" else None,
                    where,
                    (record.get("note") or "").strip(),
                )
    if problems:
        raise InputDataError(
            problems,
            "correct the lines named above (tab-separated, with the header of `tabprobe "
            "curate`'s TSV), or remove the file from the probe's `curation:` in config",
        )
    return decisions


def uid_problems(
    decisions: Mapping[str, Decision],
    splits: Sequence[str],
    example_lines: Callable[[str], set[int] | None],
    dataset_splits: Sequence[str],
    labels: Sequence[str] = LABELS,
) -> list[str]:
    """ "file:line: why" for each decision that can never apply: its uid names no split
    (`tabprobe curate` writes <split>:<line>, or <split>:<table id>:<index> for a table's statements), a split the
    probe does not run on, or no example of its split (`example_lines(split)`: the line numbers of
    a split's examples, None where the data is not at hand yet); or it relabels with a
    label outside the probe's dataset's `labels`. Found with the config, before any job: a stale
    decision (the probe now writes another edit for that example) is only known once the probe
    has run."""
    problems = []
    for uid, decision in decisions.items():
        # A probe example's uid is its gold example's with the probe after a slash: <split>:<line> (a
        # line of the split's file), or <split>:<table id>:<index> (a table's statements).
        split, _, rest = uid.split("/")[0].partition(":")
        by_line = rest.isdigit()
        if split not in dataset_splits or not (by_line or re.fullmatch(r"[^:/]+:\d+", rest)):
            problems.append(
                f"{decision.source}: uid {uid!r} names no example: a uid starts with <split>:<line> (a split of "
                f"{', '.join(dataset_splits)}), or <split>:<table id>:<index>, as `tabprobe curate` writes it"
            )
        elif split not in splits:
            problems.append(
                f"{decision.source}: uid {uid} is of {split}, where this probe does not run ({', '.join(splits)}): "
                "remove the line, or add the split to the probe's `splits:`"
            )
        elif decision.label is not None and decision.label not in labels:
            problems.append(
                f"{decision.source}: uid {uid}: relabel with {decision.label}, which this probe's dataset does not "
                f"have (its labels: {', '.join(labels)}); relabel with one of them, or reject the example"
            )
        elif by_line and (lines := example_lines(split)) is not None and int(rest) not in lines:
            problems.append(
                f"{decision.source}: uid {uid}: {split} has no example on line {rest} (its examples are on lines "
                f"{min(lines, default=0)}-{max(lines, default=0)}); remove the line, or curate the data it was made on"
            )
    return problems


@dataclass
class Curator:
    """Applies a probe's curation decisions to the examples it generates on one split, and counts
    what happened (the `review` block of the coverage summary)."""

    decisions: Mapping[str, Decision]
    split: str
    label_change: str | None = None  # the probe's (Probe.label_change)
    counts: Counter = field(default_factory=Counter)
    used: set[str] = field(default_factory=set)  # uids whose decision was applied

    def review(
        self, uid: str, gold: str, expected: str | None, hypothesis: str, provenance: dict
    ) -> tuple[str | None, dict] | None:
        """The example's expected label and provenance after curation; None when rejected."""
        needs = needs_review(self.label_change, gold, expected, provenance) if expected is not None else []
        decision = self.decisions.get(uid)
        if decision is not None and decision.hypothesis != hypothesis:
            log.warning(
                "%s: the curation of %s was made on %r, the probe now writes %r: not applied (stale)",
                decision.source,
                uid,
                decision.hypothesis,
                hypothesis,
            )
            decision = None
        if decision is not None:
            self.used.add(uid)
        if needs:
            self.counts["candidates"] += 1
        if decision is None:
            if needs:
                self.counts["unverified"] += 1
                return expected, {**provenance, "review": {"needs": needs, "status": "unverified"}}
            return expected, provenance
        if decision.decision == "reject":
            self.counts["rejected"] += 1
            return None
        if decision.decision == "relabel" and decision.label != expected:
            self.counts["relabelled"] += 1
            return decision.label, {
                **provenance,
                "review": {"needs": needs, "status": "relabelled", "proposed": expected},
            }
        self.counts["accepted"] += 1
        return expected, {**provenance, "review": {"needs": needs, "status": "accepted"}}

    def summary(self) -> dict:
        """Counts for the coverage file, stale decisions (of this split, not applied) included."""
        stale = [uid for uid in self.decisions if uid.startswith(f"{self.split}:") and uid not in self.used]
        for uid in stale:
            log.warning(
                "%s: %s matches no example this probe writes now; not applied (stale)", self.decisions[uid].source, uid
            )
        return {key: self.counts[key] for key in ("candidates", "accepted", "relabelled", "rejected", "unverified")} | {
            "stale": len(stale)
        }


def review_status(provenance: str | Mapping) -> str | None:
    record = json.loads(provenance) if isinstance(provenance, str) else provenance
    review = record.get("review")
    return review["status"] if review else None


def scored(probe_examples: pa.Table, unverified_flips: str = "exclude") -> pa.Table:
    """The probe examples whose labels may be scored: without the undecided candidates unless
    `unverified_flips` is "include"."""
    if unverified_flips not in POLICIES:
        raise ValueError(f"unverified_flips must be one of {', '.join(POLICIES)}, not {unverified_flips!r}")
    if unverified_flips == "include" or probe_examples.num_rows == 0:
        return probe_examples
    keep = [review_status(p) != "unverified" for p in probe_examples["provenance"].to_pylist()]
    return probe_examples.filter(pa.array(keep, pa.bool_()))


# ---------------------------------------------------------------- the review file

# What each review kind means, shown on the page beside the badge.
WHY = {
    "C2E": "a CONTRADICT hypothesis edited to ENTAIL: it may be false for another reason the edit did not touch "
    "(the paper annotated all of these by hand)",
    "heuristic": "the label comes from a heuristic (half/twice, another year or month) that can be wrong "
    "(the paper curated these by hand)",
}


@dataclass(frozen=True)
class ReviewItem:
    """One example to review: what the TSV and the page show of it."""

    record: dict  # the probe example (infobox.PROBE_EXAMPLES) as generated, before any curation
    needs: tuple[str, ...]
    decision: Decision | None  # an earlier decision on exactly this text


def review_items(
    probe_examples: pa.Table, label_change: str | None, only: str = "all", earlier: Mapping[str, Decision] | None = None
) -> tuple[list[ReviewItem], int]:
    """The examples of a probe run (uncurated) that a person should look at: every one `only`
    selects (C2E, heuristic, or all that need review), and every one with an earlier decision on
    the same text; and how many earlier decisions no longer match what the probe writes (stale)."""
    if only not in (*REVIEW_KINDS, "all"):
        raise ValueError(f"only must be one of {', '.join(REVIEW_KINDS)} or all, not {only!r}")
    earlier = earlier or {}
    items, matched = [], set()
    for record in probe_examples.to_pylist():
        provenance = json.loads(record["provenance"])
        needs = tuple(needs_review(label_change, record["label"], record["expected"], provenance))
        decision = earlier.get(record["uid"])
        if decision is not None and decision.hypothesis != record["hypothesis"]:
            decision = None
        if decision is not None:
            matched.add(record["uid"])
        if decision is not None or (needs and (only == "all" or only in needs)):
            items.append(ReviewItem(record, needs, decision))
    split_prefix = f"{probe_examples['orig_uid'][0].as_py().split(':')[0]}:" if probe_examples.num_rows else None
    stale = sum(1 for uid in earlier if split_prefix and uid.startswith(split_prefix) and uid not in matched)
    return items, stale


def tsv_rows(items: Sequence[ReviewItem], originals: Mapping[str, dict]) -> list[dict]:
    """The curation TSV's lines (COLUMNS) for these items, earlier decisions filled in."""
    rows = []
    for item in items:
        record, decision = item.record, item.decision
        rows.append(
            {
                "uid": record["uid"],
                "table_id": record["table_id"],
                "needs": "+".join(item.needs),
                "gold": record["label"],
                "proposed": record["expected"] or "",
                "decision": decision.decision if decision else "",
                "label": (decision.label or "") if decision else "",
                "hypothesis_before": originals[record["orig_uid"]]["hypothesis"],
                "hypothesis": record["hypothesis"],
                "note": decision.note if decision else "",
            }
        )
    return rows


def write_tsv(rows: Sequence[Mapping[str, str]], path: str | Path) -> None:
    from tabprobe.io import atomic_path

    with atomic_path(path) as tmp, open(tmp, "w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, COLUMNS, delimiter="\t", lineterminator="\n", extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)


def review_page(
    items: Sequence[ReviewItem],
    rows: Sequence[Mapping[str, str]],
    tables: Mapping[str, Any],
    probe: str,
    split: str,
    filename: str,
) -> str:
    """The self-contained review page: each item's table, its hypothesis before and after with
    the edit marked, the proposed label; keys to accept, reject or relabel; saving downloads the
    same TSV as `write_tsv` writes, under `filename`."""
    import hashlib

    from tabprobe.data.relational.table import RelationalTable
    from tabprobe.data.tables import table_from_arrow
    from tabprobe.probes.diff import text_diff

    data_items = []
    for item, row in zip(items, rows, strict=True):
        table = table_from_arrow(item.record["table"])
        provenance = json.loads(item.record["provenance"])
        # An infobox as its keyed rows; a relational table as its records under its header.
        if isinstance(table, RelationalTable):
            shown = {"header": list(table.header), "records": [list(r) for r in table.records], "rows": []}
        else:
            shown = {"rows": [[r.key, list(r.values)] for r in table.rows]}
        data_items.append(
            {
                **row,
                "needs": list(item.needs),
                "title": table.title,
                "rule": provenance.get("rule", ""),
                "segments": [list(s) for s in text_diff(row["hypothesis_before"], row["hypothesis"])],
                **shown,
            }
        )
    fingerprint = hashlib.sha256(json.dumps([r["uid"] + r["hypothesis"] for r in rows]).encode()).hexdigest()[:16]
    data = {
        "probe": probe,
        "split": split,
        "filename": filename,
        "columns": list(COLUMNS),
        "why": WHY,
        "fingerprint": fingerprint,
        "items": data_items,
    }
    # Inside <script>, "</" would end the element early: JSON allows writing it "<\/".
    payload = json.dumps(data, ensure_ascii=False, sort_keys=True).replace("</", "<\\/")
    template = (Path(__file__).resolve().parents[1] / "templates" / "curation.html").read_text(encoding="utf-8")
    return template.replace("/*CURATION_DATA*/", payload)
