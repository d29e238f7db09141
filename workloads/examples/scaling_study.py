"""The paper's weak-scaling study (tpusim sweep --preset lm-scaling) from Python, drawn with matplotlib:
step time and parallel efficiency against cores, data splitting against model splitting.
    PYTHONPATH=build/python /usr/bin/python3 workloads/examples/scaling_study.py results/scaling.png"""
import sys

import matplotlib.pyplot as plt
import tpusim

points = tpusim.sweep("lm-scaling")
figure, (times, efficiency) = plt.subplots(1, 2, figsize=(9, 3.5))
for _, series in points.groupby("scaling.reference_point"):
    split = "data splitting" if series["config.mesh_shape"].str.endswith("model:1").all() else "model splitting"
    print(split, series[["config.cores", "config.mesh_shape", "step_time.step_time_s"]].to_string(index=False))
    times.plot(series["config.cores"], series["step_time.step_time_s"] * 1e3, marker="o", label=split)
    efficiency.plot(series["config.cores"], series["scaling.efficiency"], marker="o", label=split)
for axes, label in ((times, "step time (ms)"), (efficiency, "parallel efficiency (weak scaling)")):
    axes.set(xscale="log", xlabel="cores", ylabel=label)
    axes.set_xticks(sorted(points["config.cores"].unique()), map(str, sorted(points["config.cores"].unique())))
efficiency.legend(loc="lower left")
figure.tight_layout()
figure.savefig(sys.argv[1] if len(sys.argv) > 1 else "scaling.png", dpi=150)
