"""`python -m tabprobe.cli ...`: the `tabprobe` command."""

from __future__ import annotations

import sys

from tabprobe.cli import main

if __name__ == "__main__":
    sys.exit(main())
