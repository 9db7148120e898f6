"""`python -m tabprobe.config config.yaml [my.yaml ...]`: check config files as the workflow
does, without running it. Snakemake reads --configfile files itself and says of one that is
not valid YAML only "Config file is not valid JSON or YAML"; this names the file and line."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from .checks import check
from .defaults import SCHEMA
from .errors import ConfigError
from .files import load_files


def main(argv: Sequence[str] | None = None) -> int:
    paths = list(sys.argv[1:] if argv is None else argv)
    if not paths:
        print(
            "usage: python -m tabprobe.config config.yaml [more.yaml ...] (merged in order, as Snakemake does)",
            file=sys.stderr,
        )
        return 2
    try:
        check(load_files(paths), SCHEMA, sources=paths, schema_shown="workflow/schemas/config.schema.yaml")
    except ConfigError as err:
        print(err, file=sys.stderr)
        return 1
    print(f"{', '.join(paths)}: valid")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
