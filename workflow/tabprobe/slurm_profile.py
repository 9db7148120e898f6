"""A per-run change to entries of the Slurm profile's `set-resources` (or `set-threads`) that
keeps the others.

Snakemake reads a profile as default command-line arguments (configargparse): an option given on
the command line drops the profile's key of the same name whole. So `--set-resources
train_model:runtime=480` does not add to the profile's `set-resources` block, it replaces it, and
every other rule's partition, account and memory fall back to `default-resources` (the CPU
partition's 2,000 MB and 30 minutes). Snakemake 9 does this for every key (`set-threads` and
`default-resources` too); its help says so under --workflow-profile.

    python -m tabprobe.slurm_profile workflow/profiles/slurm train_model:runtime=480 infer_nli=2

prints `--set-resources` followed by every entry of the profile's block in the profile's own
words, with the RULE:RESOURCE=VALUE changes over them (and, for RULE=THREADS changes,
`--set-threads` the same way): options that are the profile's blocks with this run's changes, for
`$(...)` on a Snakemake command line (docs/cluster.md).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import yaml

# RULE:RESOURCE=VALUE as --set-resources takes it, RULE=THREADS as --set-threads does.
_RESOURCE = re.compile(r"(?P<rule>\w+):(?P<key>[A-Za-z_]\w*)=(?P<value>.+)")
_THREADS = re.compile(r"(?P<rule>\w+)=(?P<value>[1-9]\d*)")
# What the shell would split or expand in the words of $(...): such a value belongs in the profile.
_UNSAFE = re.compile(r"[\s*?\[\]]")


# Printed in place of the options when the change cannot be made (see main).
FAILED = "--tabprobe-slurm-profile-change-failed"


class ProfileChangeError(ValueError):
    pass


def profile_file(profile: str | Path) -> Path:
    """The profile's YAML file: `profile` itself, or the config.yaml (or profile.yaml) in its folder."""
    path = Path(profile)
    if path.is_dir():
        path = next((path / name for name in ("profile.yaml", "config.yaml") if (path / name).is_file()), path)
    if not path.is_file():
        raise ProfileChangeError(f"{profile}: no Snakemake profile there (a folder with config.yaml, or a YAML file)")
    return path


def _word(value) -> str:
    """A value as Snakemake's profile parser hands it on (snakemake.profiles): a string that reads
    as a number is quoted, so that it stays a string; anything else as written."""
    if isinstance(value, str):
        try:
            float(value)
        except ValueError:
            return value
        return repr(value)
    return str(value)


def _block(settings: dict, key: str, path: Path, depth: int) -> dict:
    block = settings.get(key) or {}
    if not isinstance(block, dict) or (depth == 2 and not all(isinstance(v, dict) for v in block.values())):
        raise ProfileChangeError(
            f"{path}: `{key}` must map each rule to {'its resources' if depth == 2 else 'a number'}"
        )
    return block


def options_with(profile: str | Path, changes: list[str]) -> list[str]:
    """Command-line words that give Snakemake the profile's `set-resources` block with the
    RULE:RESOURCE=VALUE changes over it (each in place of the entry it names, or after the rule's
    others), and its `set-threads` block with the RULE=THREADS changes; a block without changes
    is left to the profile."""
    path = profile_file(profile)
    settings = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    resources = {
        rule: {key: _word(value) for key, value in entries.items()}
        for rule, entries in _block(settings, "set-resources", path, 2).items()
    }
    threads = {rule: _word(n) for rule, n in _block(settings, "set-threads", path, 1).items()}
    changed = set()
    for change in changes:
        if match := _RESOURCE.fullmatch(change):
            resources.setdefault(match["rule"], {})[match["key"]] = match["value"]
            changed.add("--set-resources")
        elif match := _THREADS.fullmatch(change):
            threads[match["rule"]] = match["value"]
            changed.add("--set-threads")
        else:
            raise ProfileChangeError(
                f"{change!r} is neither RULE:RESOURCE=VALUE (train_model:runtime=480, as --set-resources takes it) "
                "nor RULE=THREADS (train_model=8, as --set-threads takes it)"
            )
    if not changed:
        raise ProfileChangeError("no change given: name one or more, e.g. train_model:runtime=480")
    words = []
    if "--set-resources" in changed:
        words += ["--set-resources"] + [
            f"{rule}:{k}={v}" for rule, entries in resources.items() for k, v in entries.items()
        ]
    if "--set-threads" in changed:
        words += ["--set-threads"] + [f"{rule}={n}" for rule, n in threads.items()]
    unsafe = [word for word in words if _UNSAFE.search(word)]
    if unsafe:
        raise ProfileChangeError(
            f"{', '.join(unsafe)}: a space or a wildcard character would be split or expanded by the shell "
            f"in $(...); put this value in {path} itself"
        )
    return words


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    try:
        words = options_with(argv[0], argv[1:])
    except ProfileChangeError as err:
        print(f"error: {err}", file=sys.stderr)
        # The shell runs `snakemake ... $(this)` whatever this exits with: an option Snakemake
        # does not know stops that run, rather than letting it start without the change.
        print(FAILED)
        return 1
    print(" ".join(words))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
