"""No config value reaches a shell, and no model load can run code from a checkpoint, read from
the source itself (rules and library), so that a new rule or loader that breaks either fails here;
and a checkpoint's chat template, which is code of a kind, runs in Jinja's sandbox alone (a hostile
one runs nothing and stops the job, naming its file). The model server's trust (its own user
alone, a socket name without a secret) is tested with real processes in tests/test_serving.py.

Each checker is also run on a small bad example, so a checker that stopped finding anything
would fail too.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RULE_FILES = [ROOT / "Snakefile", *sorted((ROOT / "rules").glob("*.smk"))]
LIBRARY = sorted((ROOT / "workflow" / "tabprobe").rglob("*.py")) + sorted((ROOT / "workflow" / "scripts").glob("*.py"))

# Directives that run a command line or code Snakemake fetches: a config value interpolated into
# one ({params.x}, {config[...]}) would reach a shell unquoted, and a wrapper is remote code.
SHELL_DIRECTIVES = {"shell", "run", "wrapper", "notebook", "cwl", "template_engine"}


def rule_directives(text: str) -> dict[str, set[str]]:
    """rule name -> the directives in its body (the Snakemake grammar: `rule name:`, or `rule:` with
    a `name:` directive as in a loop that makes one rule per dataset, its directives indented one
    level deeper than `rule`, their values deeper still). A rule named in a loop is known by its
    name's template (`ingest_{_dataset.name}`)."""
    rules: dict[str, set[str]] = {}
    current, indent, unnamed, directive = None, 0, None, None
    for number, line in enumerate(text.splitlines(), 1):
        if match := re.match(r"^( *)(?:local)?rule(?: (\w+))?:\s*$", line):
            indent, unnamed = len(match.group(1)), match.group(2) is None
            current = rules.setdefault(match.group(2) or f"<rule at line {number}>", set())
            directive = None
        elif current is not None and (match := re.match(rf"^ {{{indent + 4}}}(\w+):", line)):
            directive = match.group(1)
            current.add(directive)
        elif current is not None and directive == "name" and unnamed and line.strip():
            named = line.strip().removeprefix("f").strip("\"'")
            rules[named] = rules.pop(next(k for k, v in rules.items() if v is current))
            unnamed = False
        elif line.strip() and not line.startswith("#") and len(line) - len(line.lstrip()) <= indent:
            current = None
    return rules


def shell_uses(text: str) -> list[str]:
    """Rules with a command-line directive, and shell() calls anywhere (onstart:, helpers)."""
    found = [
        f"rule {name}: {', '.join(sorted(d & SHELL_DIRECTIVES))}"
        for name, d in rule_directives(text).items()
        if d & SHELL_DIRECTIVES
    ]
    found += [
        f"line {i}: {line.strip()}"
        for i, line in enumerate(text.splitlines(), 1)
        if re.search(r"\bshell\s*\(", line) and not line.lstrip().startswith("#")
    ]
    return found


def test_every_rule_runs_a_script_and_none_a_shell_command():
    rules = {}
    for path in RULE_FILES:
        text = path.read_text()
        assert shell_uses(text) == [], f"{path.name}: {shell_uses(text)}"
        rules.update(rule_directives(text))
    assert len(rules) >= 10 and "infer_nli" in rules and "ingest_{_dataset.name}" in rules
    # `all` only collects the report; every other rule hands its params to a Python script
    # (as a pickled object, never on a command line).
    assert {name for name, directives in rules.items() if "script" not in directives} == {"all"}


def test_the_rule_checker_finds_a_shell_command():
    bad = (
        'rule fetch:\n    output:\n        "x"\n    params:\n        url=config["url"],\n'
        '    shell:\n        "curl {params.url} > {output}"\n\n\nonsuccess:\n    shell("rm -rf {config[tmp]}")\n'
    )
    assert shell_uses(bad) == ["rule fetch: shell", 'line 11: shell("rm -rf {config[tmp]}")']
    assert rule_directives(
        "rule a:\n    input:\n        x\n    run:\n        pass\nrule b:\n    script:\n        y\n"
    ) == {"a": {"input", "run"}, "b": {"script"}}


def _keyword(call: ast.Call, name: str):
    """The literal value of keyword `name` in the call, or a marker for missing / not a literal."""
    for keyword in call.keywords:
        if keyword.arg == name:
            return keyword.value.value if isinstance(keyword.value, ast.Constant) else "<not a literal>"
    return "<missing>"


def _callee(call: ast.Call) -> str:
    return ast.unparse(call.func)


def unsafe_loads(source: str, where: str = "<snippet>") -> list[str]:
    """Every model or tokenizer load that could run code from the checkpoint, every pickle
    load, and every subprocess call that goes through a shell."""
    problems = []
    tree = ast.parse(source)
    # Jinja's own Environment and Template (not string.Template), as named in this source.
    unsandboxed = {"jinja2.Environment", "jinja2.Template", "jinja2.environment.Environment"} | {
        alias.asname or alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("jinja2")
        for alias in node.names
        if alias.name in ("Environment", "Template")
    }
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        callee, line = _callee(node), f"{where}:{node.lineno}"
        if callee.endswith(".from_pretrained"):
            if _keyword(node, "trust_remote_code") is not False:
                problems.append(f"{line}: {callee} without trust_remote_code=False")
            # Weights: safetensors, or one GGUF file (tensors and metadata, no pickle: models/gguf.py),
            # never a pickled .bin, which runs code when loaded. Tokenizers load no weights.
            weights_safe = _keyword(node, "use_safetensors") is True or _keyword(node, "gguf_file") != "<missing>"
            if "Tokenizer" not in callee and not weights_safe:
                problems.append(f"{line}: {callee} without use_safetensors=True")
        elif callee in ("torch.load",) and _keyword(node, "weights_only") is not True:
            problems.append(f"{line}: torch.load without weights_only=True")
        elif callee in ("np.load", "numpy.load") and _keyword(node, "allow_pickle") is not False:
            problems.append(f"{line}: {callee} without allow_pickle=False")
        elif callee in ("pickle.load", "pickle.loads", "eval", "exec", "os.system", "os.popen"):
            problems.append(f"{line}: {callee}")
        elif callee in unsandboxed:
            # A checkpoint's chat template in a plain Jinja environment could reach os.system.
            problems.append(f"{line}: {callee}: a template rendered outside Jinja's sandbox")
        # The call itself, not a method on its result (`subprocess.run([...]).stdout.strip()`).
        elif isinstance(node.func, ast.Attribute) and ast.unparse(node.func.value) == "subprocess":
            command = node.args[0] if node.args else None
            if not isinstance(command, (ast.List, ast.Tuple)):
                problems.append(f"{line}: {callee} with a command that is not an argument list")
            if _keyword(node, "shell") not in (False, "<missing>"):
                problems.append(f"{line}: {callee} with shell=")
    return problems


def model_loads(source: str) -> list[str]:
    return [
        _callee(n)
        for n in ast.walk(ast.parse(source))
        if isinstance(n, ast.Call) and _callee(n).endswith(".from_pretrained")
    ]


def test_model_loading_never_runs_code_from_the_checkpoint_and_nothing_goes_through_a_shell():
    problems, loads = [], []
    for path in LIBRARY:
        source = path.read_text()
        problems += unsafe_loads(source, str(path.relative_to(ROOT)))
        loads += model_loads(source)
    assert problems == []
    # The checker saw the library's loaders (a refactor that hides them from it fails here).
    assert "AutoModelForSequenceClassification.from_pretrained" in loads and "AutoTokenizer.from_pretrained" in loads


@pytest.mark.parametrize(
    "snippet, problem",
    [
        (
            "AutoModelForSequenceClassification.from_pretrained(p, use_safetensors=True)",
            "without trust_remote_code=False",
        ),
        (
            "AutoModel.from_pretrained(p, trust_remote_code=True, use_safetensors=True)",
            "without trust_remote_code=False",
        ),
        ("AutoModel.from_pretrained(p, trust_remote_code=False)", "without use_safetensors=True"),
        ("AutoTokenizer.from_pretrained(p)", "without trust_remote_code=False"),
        ("torch.load(p)", "torch.load without weights_only=True"),
        ("np.load(p)", "np.load without allow_pickle=False"),
        ("subprocess.run(f'tar xf {path}', shell=True)", "not an argument list"),
        ("subprocess.run(f'git -C {path} status').stdout.strip()", "not an argument list"),
        ("subprocess.run(['tar', 'xf', path], shell=True)", "with shell="),
        ("os.system('ls ' + folder)", "os.system"),
        ("jinja2.Environment().from_string(tokenizer.chat_template)", "outside Jinja's sandbox"),
        ("from jinja2 import Template\nTemplate(template_text).render(messages=m)", "outside Jinja's sandbox"),
    ],
)
def test_the_load_checker_finds_an_unsafe_call(snippet, problem):
    found = unsafe_loads(snippet)
    assert found and problem in found[0]


def test_the_load_checker_passes_the_safe_forms():
    assert (
        unsafe_loads(
            "AutoModel.from_pretrained(p, use_safetensors=True, trust_remote_code=False)\n"
            "AutoTokenizer.from_pretrained(p, trust_remote_code=False)\n"
            "torch.load(p, weights_only=True)\nnp.load(p, allow_pickle=False)\n"
            "subprocess.run(['tar', 'xf', path], check=True)\n"
            "ImmutableSandboxedEnvironment().from_string(t)\n"
            "from string import Template\nTemplate('$name').substitute(name=n)\n"
        )
        == []
    )


def test_a_hostile_chat_template_runs_nothing_and_stops_the_job_naming_its_file(tmp_path):
    """A checkpoint's template that tries the way out of Jinja to os.system: the sandbox transformers
    renders chat templates in refuses it, the command never runs, and the job says which file the
    template is in and how to do without it."""
    from tiny_causal import LLAMA_CHAT_TEMPLATE, tiny_causal
    from transformers import AutoTokenizer

    from tabprobe.errors import ModelError
    from tabprobe.models import lm_prompts
    from tabprobe.models.predict import load_model

    marker = tmp_path / "ran"
    path = tiny_causal(tmp_path / "llama", "llama")
    tokenizer = AutoTokenizer.from_pretrained(path)
    tokenizer.chat_template = (
        "{{ cycler.__init__.__globals__.os.system('touch " + str(marker) + "') }}" + (LLAMA_CHAT_TEMPLATE)
    )
    tokenizer.save_pretrained(path)
    lm = load_model(path, kind="causal")
    prompting = lm_prompts.Prompting.from_settings({"chat_template": True})
    builder = lm_prompts.PromptBuilder(lm.tokenizer, prompting, "para", 256, lm.path)
    with pytest.raises(ModelError) as caught:
        builder.text("The born of Ada Quill are 1900.", "Ada Quill was born in 1900.")
    assert not marker.exists()
    assert str(caught.value).startswith(
        f"config key causal.chat_template: the chat template of {path / 'chat_template.jinja'} does something "
        "Jinja's sandbox refuses (SecurityError: access to attribute '__init__' of "
    ), caught.value
    assert "set `causal.chat_template: false`" in str(caught.value)
