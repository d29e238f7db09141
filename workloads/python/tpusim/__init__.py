"""tpusim from Python: simulate TPU pod training steps, sweeps, collectives, searches and the fidelity table.

Each call runs the tpusim command line in a child process (SimGrid allows one simulation per process) and
returns Python objects: a RunResult for run(), pandas DataFrames for the others. A call that the command line
would end with a non-zero exit status raises an Error subclass carrying the same one-line message:

    import tpusim
    result = tpusim.run("lm-s5", model__d_ff=16384)        # a preset, a config file, or a dict
    print(result.step_time_s, result.memory["total_bytes"])
    points = tpusim.sweep("lm-scaling")                      # one row per point
    rings = tpusim.collective(op="allreduce", bytes=["1MiB", "64MiB"], topology="torus:8x8")

Overrides are config keys with their dots written as double underscores (model__d_ff=16384), or a section as
a dict (model={"d_ff": 16384}); each is checked as the config key would be.
"""
from .errors import BadInput, EnvironmentFailure, Error, RunFailed
from .run_result import RunResult, run
from .studies import collective, fidelity, search, sweep

from . import _tpusim

__version__ = _tpusim.version
__all__ = ["run", "sweep", "collective", "search", "fidelity", "RunResult", "Error", "BadInput", "RunFailed",
           "EnvironmentFailure"]
