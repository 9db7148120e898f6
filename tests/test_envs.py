"""The conda environment of the rules (envs/tabprobe.yaml) installs tabprobe and pins every one
of its dependencies inside the range pyproject.toml allows: the two cannot drift apart unseen."""

from __future__ import annotations

import tomllib
from pathlib import Path

import yaml
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet

ROOT = Path(__file__).resolve().parents[1]


def test_the_rules_environment_pins_every_dependency_within_pyproject_and_installs_tabprobe():
    declared = {
        Requirement(d).name.lower(): Requirement(d)
        for d in tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    }
    env = yaml.safe_load((ROOT / "envs" / "tabprobe.yaml").read_text())
    pip = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict))
    assert ".." in pip  # tabprobe itself, from the checkout that holds envs/
    assert (ROOT / "envs" / ".." / "pyproject.toml").resolve() == (ROOT / "pyproject.toml").resolve()
    pinned = {Requirement(line).name.lower(): Requirement(line) for line in pip if line != ".."}
    assert sorted(pinned) == sorted(declared), "envs/tabprobe.yaml and pyproject.toml list different packages"
    for name, requirement in pinned.items():
        (spec,) = requirement.specifier
        assert spec.operator == "==", f"{name} is not pinned in envs/tabprobe.yaml"
        assert declared[name].specifier.contains(spec.version, prereleases=True), (
            f"{name}=={spec.version} is outside pyproject's {declared[name].specifier}"
        )
    python = next(d for d in env["dependencies"] if isinstance(d, str) and d.startswith("python="))
    requires = SpecifierSet(tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"])
    assert requires.contains(python.split("=")[1] + ".0"), f"{python} is outside pyproject's requires-python {requires}"
