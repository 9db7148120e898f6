"""`tabprobe curate PROBE`: the label flips a person must check (tabprobe.probes.curation), written to a
review page and a TSV, with earlier decisions filled in."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from tabprobe.cli.configfile import read_config, seed_of
from tabprobe.cli.errors import UsageError
from tabprobe.cli.terminal import styled
from tabprobe.cli.workflow import probe_inputs, probe_split
from tabprobe.config import curation_files, probe_limit, probe_options
from tabprobe.data.datasets import get_dataset
from tabprobe.errors import did_you_mean
from tabprobe.probes import REGISTRY, get_probe


def cmd_curate(args, console) -> int:
    from tabprobe.probes import curation
    from tabprobe.probes import generation as perturb

    config, config_path = read_config(args.configfile)
    if args.probe not in REGISTRY:
        raise UsageError(
            f"no registered probe {args.probe!r}.{did_you_mean(args.probe, REGISTRY)} "
            "`tabprobe probes` lists them (an external set is curated in its own TSV)."
        )
    probe = get_probe(args.probe)
    if probe.judged_by != "expected":
        raise UsageError(
            f"{probe.name} is judged by {probe.judged_by}, not by expected labels: there is no label to curate"
        )
    split = probe_split(probe, args.split)
    seed = seed_of(config, config_path)
    # The workflow's cap for this probe, so these are exactly the examples generate_probe writes.
    limit = probe_limit({**config, "probes": config.get("probes") or {}}, probe.name)
    inputs = probe_inputs(probe, split, Path(args.results), seed, limit, config_path, args.configfile, config)
    generated, _ = perturb.generate(
        probe.name,
        inputs.examples,
        inputs.tables,
        seed,
        probe_options(config, probe.name),
        inputs.needs,
        split=split,
    )
    out = Path(args.out)
    stem = f"{probe.name}.{split}.curation"
    tsv_path, page_path = out / f"{stem}.tsv", out / f"{stem}.html"
    # Earlier decisions: the probe's curation files in config, then this TSV (the later wins).
    earlier: dict = {}
    for path in [*curation_files(config, probe.name), tsv_path]:
        if Path(path).is_file():
            earlier.update(curation.read_decisions([path]))
    items, stale = curation.review_items(generated, probe.label_change, args.only, earlier)
    originals = {record["uid"]: record for record in inputs.examples.to_pylist()}
    rows = curation.tsv_rows(items, originals)
    from tabprobe.io import write_text

    curation.write_tsv(rows, tsv_path)
    write_text(curation.review_page(items, rows, inputs.tables, probe.name, split, tsv_path.name), page_path)
    needs = Counter(kind for item in items for kind in item.needs)
    decided = sum(1 for item in items if item.decision is not None)
    console.print(
        styled(f"{probe.name} on {split}", "bold"),
        f"(seed {seed}, cap {limit or 'none'}): {len(items)} example{'' if len(items) == 1 else 's'} to review "
        f"of {generated.num_rows} "
        f"generated ({', '.join(f'{k} {v}' for k, v in sorted(needs.items())) or 'none needs review'}); "
        f"{decided} decided earlier"
        + (f", {stale} earlier decisions no longer match the probe's output and were left out" if stale else "")
        + ".",
    )
    console.print(
        f"Review page: {page_path}\n  keys: a accept, r reject, e/n/c relabel, j/k next/previous, "
        f"s save (downloads {tsv_path.name})\nSame as a TSV for a spreadsheet: {tsv_path} (fill in decision: "
        f"accept, reject or relabel with label {'/'.join(get_dataset(probe.datasets[0]).labels)})"
    )
    console.print(
        f"Then in config.yaml: probes: {{{probe.name}: {{curation: {tsv_path}}}}} (with its other options) "
        "and run the workflow: only this probe's jobs run again."
    )
    return 0
