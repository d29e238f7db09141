"""How a Python call becomes a tpusim command line: configs, overrides, and the JSON that comes back."""
import json
import os
import tempfile
import warnings

from . import _tpusim
from .errors import error_for

_PREFIXES = ("tpusim: error: ", "tpusim: failure: ")


def set_options(overrides):
    """--set KEY=VALUE for each override: model__d_ff=4096 and model={"d_ff": 4096} both set model.d_ff.

    Values are written as YAML (JSON is YAML), so the command line reads and checks each as its key."""
    arguments = []
    for key, value in overrides.items():
        dotted = key.replace("__", ".")
        pairs = ([(f"{dotted}.{inner}", v) for inner, v in value.items()] if isinstance(value, dict)
                 else [(dotted, value)])
        for name, item in pairs:
            text = item if isinstance(item, str) else json.dumps(item)
            arguments += ["--set", f"{name}={text}"]
    return arguments


class ConfigArgument:
    """A config or sweep given as a preset name, a YAML file's path, or a dict.

    A dict is written to a temporary YAML file for the call; a relative `base:` in it is taken from the
    current folder, as a file's would be from the file's folder."""

    def __init__(self, config):
        self._folder = None
        self.preset = None
        self.path = None
        if config is None:
            return
        if isinstance(config, dict):
            content = dict(config)
            base = content.get("base")
            if isinstance(base, str) and os.path.exists(base):
                content["base"] = os.path.abspath(base)
            self._folder = tempfile.TemporaryDirectory(prefix="tpusim-")
            name = str(content.get("name", "config"))
            self.path = os.path.join(self._folder.name, f"{name}.yaml")
            with open(self.path, "w") as file:
                json.dump(content, file, indent=1)
        elif isinstance(config, (str, os.PathLike)):
            text = os.fspath(config)
            if text.endswith((".yaml", ".yml")) or os.sep in text or os.path.exists(text):
                self.path = text
            else:
                self.preset = text
        else:
            raise TypeError(f"a config is a preset name, a file path or a dict, not {type(config).__name__}")

    def arguments(self):
        if self.path is not None:
            return [self.path]
        return ["--preset", self.preset] if self.preset is not None else []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self._folder is not None:
            self._folder.cleanup()


def call(args):
    """Runs `tpusim ARGS` in a child process and returns its stdout; raises the Error of its exit status.

    Warnings the command prints become Python warnings."""
    status, out, err = _tpusim.command([str(arg) for arg in args])
    lines = [line for line in err.splitlines() if line.strip()]
    for line in lines:
        if line.startswith("tpusim: warning: "):
            warnings.warn(line[len("tpusim: warning: "):], stacklevel=3)
    if status == 0:
        return out
    failures = [line for line in lines if line.startswith(_PREFIXES)]
    message = failures[-1] if failures else (lines[-1] if lines else f"tpusim exited with status {status}")
    for prefix in _PREFIXES:
        if message.startswith(prefix):
            message = message[len(prefix):]
    raise error_for(status, message, parsed_or_none(out))


def parsed_or_none(text):
    try:
        return json.loads(text)
    except ValueError:
        return None


def call_json(args):
    """call() with --json, the output parsed."""
    return json.loads(call(list(args) + ["--json"]))
