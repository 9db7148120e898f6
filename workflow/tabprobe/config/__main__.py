"""`python -m tabprobe.config config.yaml [my.yaml ...]`: check config files as the workflow
does, without running it. Snakemake reads --configfile files itself and says of one that is
not valid YAML only "Config file is not valid JSON or YAML"; this names the file and line."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from tabprobe.config.checks import check
from tabprobe.config.defaults import SCHEMA
from tabprobe.config.errors import ConfigError
from tabprobe.config.files import load_files


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tabprobe.config",
        description="Check tabprobe config files as the workflow does, before running it: every problem is "
        "listed with the file and line that set the key.",
    )
    parser.add_argument(
        "files",
        nargs="+",
        metavar="config.yaml",
        help="config files, merged in order as Snakemake merges config.yaml and each --configfile",
    )
    try:
        paths = parser.parse_args(sys.argv[1:] if argv is None else argv).files
    except SystemExit as stop:  # --help (0) or a usage error (2): argparse has printed why
        return int(stop.code or 0)
    try:
        check(load_files(paths), SCHEMA, sources=paths, schema_shown="workflow/schemas/config.schema.yaml")
    except ConfigError as err:
        print(err, file=sys.stderr)
        return 1
    print(f"{', '.join(paths)}: valid")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
