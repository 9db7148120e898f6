"""The error of a config the workflow cannot run with."""

from __future__ import annotations

from tabprobe.errors import TabprobeError


class ConfigError(TabprobeError):
    pass
