"""The exceptions a call raises: one per exit status of the tpusim command line, with its message."""
from . import _tpusim


class Error(Exception):
    """A call that the command line ends with a non-zero exit status.

    message: the one line the command line prints (without its "tpusim: error: " prefix);
    status: the exit status (1, 2 or 3) and meaning: what the status means;
    output: what the command printed as JSON before it failed (a run that does not fit, a sweep with failed
    points), or None.
    """

    def __init__(self, message, status, output=None):
        self.message = message
        self.status = status
        self.meaning = _tpusim.exit_statuses[status][1]
        self.output = output
        super().__init__(f"{message} (exit status {status}: {self.meaning})")


class RunFailed(Error):
    """Exit status 1: the work ran but failed, or the model does not fit its HBM."""


class BadInput(Error, ValueError):
    """Exit status 2: a config, sweep or argument is wrong; the message names the file, line and key."""


class EnvironmentFailure(Error, OSError):
    """Exit status 3: the results folder cannot be written (permissions, disk full, in use)."""


_BY_NAME = {"failed": RunFailed, "bad_input": BadInput, "environment": EnvironmentFailure}


def error_for(status, message, output=None):
    """The exception for a non-zero exit status, from the command line's own table of statuses."""
    name = _tpusim.exit_statuses.get(status, ("failed", ""))[0]
    return _BY_NAME.get(name, RunFailed)(message, status if status in _tpusim.exit_statuses else 1, output)
