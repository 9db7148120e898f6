"""The `endpoint:` model kind in config: a served model's block is checked before any job, each
problem naming its key and the fix, and a key pasted where its variable's name belongs is never
repeated in a message."""

from __future__ import annotations

import copy
import re
from pathlib import Path

import pytest
import yaml

from tabprobe.config import ConfigError, check
from tabprobe.config.job_settings import endpoint_gpus, endpoint_settings

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = ROOT / "workflow" / "schemas" / "config.schema.yaml"
DEFAULT = yaml.safe_load((ROOT / "config.yaml").read_text())
SERVED = {"endpoint": {"base_url": "http://127.0.0.1:8000/v1", "model": "m"}, "premise": "markdown"}


def config_with(model: dict, **top) -> dict:
    config = copy.deepcopy(DEFAULT)
    config["models"]["served"] = model
    config.update(top)
    return config


def served(**endpoint) -> dict:
    return {**SERVED, "endpoint": {**SERVED["endpoint"], **endpoint}}


def problems_of(config) -> str:
    with pytest.raises(ConfigError) as error:
        check(config, SCHEMA)
    return str(error.value)


def test_a_served_model_is_a_model_kind_of_its_own():
    check(config_with(served()), SCHEMA)
    both = {**served(), "causal": {"checkpoint": "x"}}
    assert "models.served: give exactly one of" in problems_of(config_with(both))
    assert "`endpoint` (a served model" in problems_of(config_with(both))


@pytest.mark.parametrize(
    ("endpoint", "message"),
    [
        (
            {"scoring": "prompt_logprobs", "api": "chat"},
            "endpoint.scoring: prompt_logprobs reads .* set api: completions",
        ),
        ({"calibrate": True}, "endpoint.calibrate: .*generate gives none; use scoring first_token or prompt_logprobs"),
        ({"reasoning": {"max_tokens": 256}, "scoring": "first_token"}, "endpoint.reasoning: .* set scoring: generate"),
        ({"base_url": "http://127.0.0.1:{port}/v1"}, r"endpoint.base_url: \{port\} stands for .* no serve"),
        ({"serve": {"command": "vllm serve 'unclosed"}}, "endpoint.serve.command: it cannot be split"),
        ({"template": "{table} {hypothesis}"}, r"endpoint.template: \{table\} is not a field"),
        ({"scoring": "logprobs"}, "endpoint.scoring: 'logprobs' is not one of"),
        ({"concurrency": 0}, "endpoint.concurrency: 0 is less than the minimum of 1"),
        ({"modle": "m"}, "endpoint: unknown key.*'modle' \\(did you mean 'model'\\?\\)"),
    ],
)
def test_a_bad_endpoint_block_names_its_key_and_the_fix(endpoint, message):
    assert re.search(f"config key models.served.{message}", problems_of(config_with(served(**endpoint))))


def test_a_missing_key_variable_is_named_with_the_fix(monkeypatch):
    monkeypatch.delenv("TABPROBE_NO_SUCH_KEY", raising=False)
    text = problems_of(config_with(served(api_key_env="TABPROBE_NO_SUCH_KEY")))
    assert (
        "models.served.endpoint.api_key_env: served model 'served': the environment variable TABPROBE_NO_SUCH_KEY"
        in text
    )
    assert "export TABPROBE_NO_SUCH_KEY=..." in text
    monkeypatch.setenv("TABPROBE_NO_SUCH_KEY", "sk-set")
    check(config_with(served(api_key_env="TABPROBE_NO_SUCH_KEY")), SCHEMA)
    monkeypatch.delenv("TABPROBE_NO_SUCH_KEY")
    monkeypatch.setenv("TABPROBE_ENDPOINT_OFFLINE", "1")  # answers from the cache: no key needed
    check(config_with(served(api_key_env="TABPROBE_NO_SUCH_KEY")), SCHEMA)


def test_a_key_pasted_in_place_of_its_variable_is_never_repeated():
    key = "sk-proj-AbC123-pasted-by-mistake"
    text = problems_of(config_with(served(api_key_env=key)))
    assert "endpoint.api_key_env: not the name of an environment variable" in text
    assert key not in text


def test_a_served_model_cannot_read_the_table_itself_or_be_fine_tuned():
    text = problems_of(config_with({**served(), "premise": "table"}))
    assert "models.served.premise: a served model is prompted with a rendered table" in text
    text = problems_of(config_with(served(), inoculation={"model": "served"}))
    assert "inoculation.model: served is a served model, whose weights are the server's" in text


def test_a_served_model_is_not_given_a_premise_selection_it_would_ignore():
    text = problems_of(config_with({**served(), "premise_selection": "related"}))
    assert "models.served.premise_selection: a served model is shown its table whole" in text


def test_the_jobs_get_the_block_and_ask_for_a_gpu_only_to_serve():
    model = {**served(shots=2), "premise": "para"}
    assert endpoint_settings(model) == {"premise": "para", "endpoint": dict(sorted(model["endpoint"].items()))}
    assert endpoint_gpus(model) == 0
    assert endpoint_gpus(served(serve={"command": "vllm serve m --tensor-parallel-size 4", "gpus": 4})) == 4
    assert endpoint_gpus(served(serve={"command": "llama-server -m m.gguf"})) == 1


def serving(**serve) -> dict:
    return served(base_url="http://127.0.0.1:{port}/v1", serve={"command": "vllm serve m --port {port}", **serve})


def test_a_server_open_to_every_local_user_is_refused_with_the_fix():
    text = problems_of(config_with(serving(private_network=False)))
    assert (
        "config key models.served.endpoint.serve: its server would be open to every user of this machine: "
        "serve.private_network is false, and the engine gets no key (serve.key_env). Set serve.key_env to the "
        "variable your engine reads its key from (vLLM reads VLLM_API_KEY" in text
    )
    assert "accept it with serve.open_to_local_users: true" in text
    check(config_with(serving(private_network=False, key_env="VLLM_API_KEY")), SCHEMA)
    check(config_with(serving(private_network=False, open_to_local_users=True)), SCHEMA)


@pytest.mark.parametrize(
    ("model", "message"),
    [
        (
            serving(command="vllm serve m --port {port} --api-key sk-in-the-command-line"),
            "endpoint.serve.command: a key on the command line is readable by every user of the machine",
        ),
        (
            serving(command="llama-server -m m.gguf --port {port} --api-key={api_key}"),
            "endpoint.serve.command: a key on the command line .* set serve.key_env",
        ),
        (
            {**serving(), "endpoint": {**serving()["endpoint"], "api_key_env": "VLLM_API_KEY"}},
            "endpoint.api_key_env: a server the workflow starts gets a fresh key .* replace api_key_env with "
            "serve.key_env",
        ),
        (
            {**serving(), "endpoint": {**serving()["endpoint"], "base_url": "http://gpu-node-3:{port}/v1"}},
            r"endpoint.base_url: a server the workflow starts is asked on this machine's loopback address, never "
            r"over the network \(gpu-node-3 here\)",
        ),
        (serving(key_env="sk-pasted"), "endpoint.serve.key_env: not the name of an environment variable"),
    ],
)
def test_a_serve_command_that_would_give_its_key_away_is_refused(model, message):
    text = problems_of(config_with(model))
    assert re.search(f"config key models.served.{message}", text), text
    assert "sk-in-the-command-line" not in text and "sk-pasted" not in text
