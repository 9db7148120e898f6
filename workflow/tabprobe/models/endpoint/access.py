"""Who can reach a server the workflow starts (a `serve:` command), decided the same way by the
config check before any job and by the supervisor on the machine where the server runs (on Slurm
a compute node, which may allow what the login node does not):

1. A private network (namespace.py), where `serve.private_network` is true (the default) and the
   machine allows one: no other user can reach the engine; the jobs go through the bridge.
2. Else a key, where `serve.key_env` names the variable the engine reads its key from: a fresh
   random key for each start of the server, given to the engine in its environment (which only
   its user can read: /proc/<pid>/environ), never on its command line (which every local user can
   read: /proc/<pid>/cmdline), and held in the supervisor's private state file for the jobs. The
   supervisor checks that the engine refuses a request without it.
3. Else refused, unless `serve.open_to_local_users: true` says so, which the log and the report
   then say.

With both a private network and key_env, the engine gets its key too."""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping
from typing import Any

from tabprobe.models.endpoint import namespace
from tabprobe.models.endpoint.reach import KEYED, OPEN, PRIVATE_NETWORK
from tabprobe.models.endpoint.settings import EndpointError

# The variables engines read their key from, for the messages.
ENGINE_KEYS = "vLLM reads VLLM_API_KEY, llama.cpp's llama-server LLAMA_API_KEY, llama-cpp-python's server API_KEY"
NO_KEY_ENGINES = "transformers serve takes no key, and SGLang takes one on its command line only"
# A key on a command line: every local user reads it in /proc/<pid>/cmdline, and it sits in config.
KEY_ARGUMENTS = re.compile(r"^--?api[-_]key(=|$)")
OPEN_WARNING = (
    "the server of served model {name!r} is open to every user of this machine (serve.open_to_local_users: true): "
    "they can send it requests, and no one checks"
)


def command_problems(serve: Mapping[str, Any]) -> list[str]:
    """What is wrong with how the command would get a key, as "serve.<key>: ..." lines."""
    problems = []
    command = serve.get("command")
    if isinstance(command, str):
        try:
            arguments = shlex.split(command)
        except ValueError:
            arguments = []  # the config check says so on its own
        if "{api_key}" in command or any(KEY_ARGUMENTS.match(a) for a in arguments):
            problems.append(
                "serve.command: a key on the command line is readable by every user of the machine "
                "(/proc/<pid>/cmdline); remove it and set serve.key_env to the variable the engine reads its key from "
                f"({ENGINE_KEYS}): the workflow then gives the engine a fresh key in its environment at each start"
            )
    variable = serve.get("key_env")
    if variable is not None and not (isinstance(variable, str) and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", variable)):
        problems.append(
            "serve.key_env: not the name of an environment variable (letters, digits and _, not starting with a digit): "
            f"the variable the engine reads its key from ({ENGINE_KEYS})"
        )
    return problems


def choose(serve: Mapping[str, Any]) -> str:
    """What the server of a `serve:` block will be open to on this machine (reach.PRIVATE_NETWORK,
    KEYED or OPEN); raises EndpointError, saying how to fix it, when it could be reached by every
    local user and the config does not accept that."""
    why_not = "serve.private_network is false"
    if serve.get("private_network", True):
        why_not = namespace.problem()
        if why_not is None:
            return PRIVATE_NETWORK
        why_not = f"this machine gives it no private network ({why_not})"
    if serve.get("key_env"):
        return KEYED
    if serve.get("open_to_local_users"):
        return OPEN
    raise EndpointError(
        f"its server would be open to every user of this machine: {why_not}, and the "
        f"engine gets no key (serve.key_env). Set serve.key_env to the variable your engine reads its key from "
        f"({ENGINE_KEYS}; {NO_KEY_ENGINES}); or run where unprivileged user namespaces are allowed; or, on a "
        "machine that is yours alone, accept it with serve.open_to_local_users: true"
    )
