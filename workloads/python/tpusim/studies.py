"""Sweeps, collectives, searches and the fidelity table as pandas DataFrames, one row per point."""
import itertools

import pandas

from .command import ConfigArgument, call_json, set_options


def _rows(records):
    """Nested JSON records as flat columns (step_time.step_time_s, config.cores, ...)."""
    return pandas.json_normalize(records) if records else pandas.DataFrame()


def _with_context(frame, report, *keys):
    """The report's context block (and the named parts of it) in frame.attrs, where pandas keeps metadata."""
    frame.attrs["context"] = report.get("context")
    for key in keys:
        frame.attrs[key] = report.get(key)
    return frame


def sweep(sweep, *, jobs=None, output=None, **overrides):
    """Runs a sweep: a shipped sweep's name ("lm-scaling"), a sweep file's path, or a dict.

    One row per point: the values the sweep varies as columns named by their keys (mesh.shape), then what
    sweep.json reports of the point (step_time.step_time_s, mfu, config.cores, ...). Overrides change every
    point (--set). output is the results folder (records, sweep.csv, plots), None to write nothing."""
    with ConfigArgument(sweep) as argument:
        args = ["sweep"] + argument.arguments() + set_options(overrides) + ["--progress", "none"]
        if jobs is not None:
            args += ["--jobs", jobs]
        args += ["--output", output] if output is not None else ["--no-files"]
        report = call_json(args)
    runs = report.get("runs", [])
    varied = [{value["key"]: value["value"] for value in point.get("values", [])} for point in runs]
    frame = pandas.concat([pandas.DataFrame(varied), _rows([{k: v for k, v in point.items() if k != "values"}
                                                            for point in runs])], axis=1)
    return _with_context(frame, report, "sweep")


def collective(op="allreduce", bytes="64MiB", topology="tpu-v2-pod", algorithm=None, *, group_axes=None,
               network=None, faults=None, check_data=False):
    """Simulates collectives, one row per combination: op, bytes, topology and algorithm may each be a list.

    Columns are those of `tpusim collective --json` (simulated_s, busbw_Bps, lower_bound_s, prediction_s,
    ratio_to_lower_bound, ...); algorithms is one string, comma-separated per group dimension."""
    def listed(value):
        return list(value) if isinstance(value, (list, tuple)) else [value]

    rows = []
    for each_op, each_bytes, each_topology, each_algorithm in itertools.product(
            listed(op), listed(bytes), listed(topology), listed(algorithm)):
        args = ["collective", "--op", each_op, "--bytes", each_bytes, "--topology", each_topology]
        for option, value in (("--algo", each_algorithm), ("--group-axes", group_axes),
                              ("--network", network), ("--faults", faults)):
            if value is not None:
                args += [option, value]
        if check_data:
            args.append("--check-data")
        report = call_json(args)
        row = {key: value for key, value in report.items()
               if key != "context" and not isinstance(value, (list, dict))}
        row["algorithms"] = ",".join(report.get("algorithms", []))
        row["busiest_link"] = report["busiest_links"][0]["link"] if report.get("busiest_links") else None
        rows.append(row)
    frame = pandas.DataFrame(rows)
    frame.attrs["context"] = report.get("context") if rows else None
    return frame


def search(config=None, *, max_candidates=None, strategy=None, seed=None, time_limit=None, mesh_dims=None,
           algorithms=None, mappings=None, weight_sharding=None, pipeline_stages=None, microbatches=None,
           **overrides):
    """Searches meshes, layouts, mappings and algorithms (and, when given, weight-sharding modes, pipeline
    stage counts and microbatch counts) for a config (preset, path or dict).

    One row per candidate evaluated (mesh_shape, layout, status, step_time_s, memory_per_core_bytes, ...),
    with a column `best` and a column `pareto` (on the step-time/memory front); attrs hold the best, the
    config's own candidate (base) and the search's figures."""
    with ConfigArgument(config) as argument:
        args = ["search"] + argument.arguments() + set_options(overrides) + ["--no-files", "--progress", "none"]
        options = (("--max-candidates", max_candidates), ("--strategy", strategy), ("--seed", seed),
                   ("--time-limit", time_limit), ("--mesh-dims", mesh_dims), ("--algorithms", algorithms),
                   ("--mappings", mappings), ("--weight-sharding", weight_sharding),
                   ("--pipeline-stages", pipeline_stages), ("--microbatches", microbatches))
        for option, value in options:
            if value is not None:
                listed = isinstance(value, (list, tuple))
                args += [option, ",".join(str(v) for v in value) if listed else str(value)]
        report = call_json(args)
    frame = _rows(report.get("candidates", []))
    best = report.get("best")
    keys = ["mesh_shape", "layout", "mapping", "algorithms", "weight_sharding", "pipeline_stages",
            "microbatches"]
    identity = frame[keys].apply(tuple, axis=1) if len(frame) else pandas.Series(dtype=object)
    frame["best"] = identity == (tuple(best[k] for k in keys) if best else None)
    frame["pareto"] = [index in set(report.get("pareto", [])) for index in range(len(frame))]
    return _with_context(frame, report, "best", "base", "spec", "evaluated", "space_size", "stopped_by")


def fidelity(measurements=None, *, jobs=None, **overrides):
    """The fidelity table: published step times against the predictions, one row per measurement.

    measurements: a measurement file or folder (None: the shipped ones). Columns include measurement.id,
    measured_step_s, predicted_step_s and relative_error; attrs["summary"] holds the medians by family."""
    args = ["fidelity"] + ([str(measurements)] if measurements is not None else []) + set_options(overrides)
    args += ["--no-files", "--progress", "none"]
    if jobs is not None:
        args += ["--jobs", jobs]
    report = call_json(args)
    return _with_context(_rows(report.get("runs", [])), report, "summary")
