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


def _unencodable(text):
    """Whether UTF-8 cannot hold the string (a lone surrogate): the command line takes UTF-8 only."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def check_text(value, key):
    """Raises BadInput naming the key of the first string in a config dict that UTF-8 cannot hold."""
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for inner, item in items:
        dotted = f"{key}.{inner}" if key else str(inner)
        if any(isinstance(text, str) and _unencodable(text) for text in (inner, item)):
            raise error_for(2, f"{dotted}: not valid text (a lone surrogate has no UTF-8 form)")
        check_text(item, dotted)


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
            # The file's name is fixed: a `name` in the dict is a config key like any other, which the
            # command line checks (and names when it refuses it), never a part of a path.
            self.path = os.path.join(self._folder.name, "config.yaml")
            check_text(content, "")
            with open(self.path, "w", encoding="utf-8") as file:
                json.dump(content, file, indent=1, ensure_ascii=False)
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


def command_word(arg):
    """An argument as the command line gets it: text without NUL bytes that UTF-8 can hold.

    A NUL would end the argument where the C++ side reads it (a cut value runs as another), and a lone
    surrogate has no UTF-8 form: both are bad input, as the command line would call them."""
    word = os.fspath(arg) if isinstance(arg, os.PathLike) else str(arg)
    if isinstance(word, bytes):
        word = word.decode("utf-8", "surrogateescape")
    shown = word.encode("unicode_escape").decode("ascii")
    if "\0" in word:
        raise error_for(2, f"'{shown}': an argument must not hold a NUL byte")
    if _unencodable(word):
        raise error_for(2, f"'{shown}': not valid text (a lone surrogate has no UTF-8 form)")
    return word


def call(args):
    """Runs `tpusim ARGS` in a child process and returns its stdout; raises the Error of its exit status.

    Warnings the command prints become Python warnings."""
    status, out, err = _tpusim.command([command_word(arg) for arg in args])
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
