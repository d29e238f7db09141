"""tpusim.run: one training run of a config on the simulated pod, as a RunResult."""
import pandas

from .command import ConfigArgument, call_json, set_options
from .errors import RunFailed


class RunResult:
    """What `tpusim run --json` reports, as attributes.

    step_time_s: the simulated step time; breakdown: its parts (compute_s, communication_s,
    exposed_communication_s, idle_s); memory: HBM per core (total_bytes, hbm_bytes, fits, and the parts);
    flops and throughput: achieved rates and MFU; explain: the step time by bound, by op kind and the longest
    ops; collectives: a DataFrame with one row per collective of the step; config: the resolved config;
    summary: the whole report, its `context` block included."""

    def __init__(self, summary):
        self.summary = summary
        self.config = summary["config"]
        self.name = self.config["name"]
        self.breakdown = dict(summary["step_time"])
        self.step_time_s = self.breakdown["step_time_s"]
        self.memory = dict(summary["memory_per_core"])
        self.fits = bool(self.memory["fits"])
        self.flops = dict(summary["flops"])
        self.mfu = self.flops["mfu"]
        self.throughput = dict(summary["throughput"])
        self.explain = summary.get("explain")
        self.collectives = pandas.DataFrame(summary["collectives"])
        self.steps = pandas.DataFrame(summary["steps"])

    def __repr__(self):
        return (f"RunResult({self.name}: {self.step_time_s * 1e3:.4g} ms per step, MFU {self.mfu:.1%}, "
                f"{self.memory['total_bytes'] / 2**30:.3g} GiB per core{'' if self.fits else ', DOES NOT FIT'})")


def run(config=None, *, steps=None, faults=None, output=None, **overrides):
    """Runs a config: a preset name ("lm-s5"; None for the default), a YAML file's path, or a dict.

    steps and faults override training.steps and hardware.faults as --steps and --faults do; output is the
    results folder to write (summary.json, collectives.csv, trace.json), None to write nothing. A model
    that does not fit its HBM raises RunFailed, whose `result` holds the RunResult all the same."""
    with ConfigArgument(config) as argument:
        args = ["run"] + argument.arguments() + set_options(overrides)
        if steps is not None:
            args += ["--steps", steps]
        if faults is not None:
            args += ["--faults", faults]
        args += ["--output", output] if output is not None else ["--no-files"]
        try:
            return RunResult(call_json(args))
        except RunFailed as failure:
            failure.result = RunResult(failure.output) if failure.output else None
            raise
