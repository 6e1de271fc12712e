#!/usr/bin/env python3
"""A notebook's worth of acmesim in Python: docs/validation.md's "Evaluation waits longest" table
(per-type mean queueing delay under fifo and acme on the bundled Seren week, 150 nodes), over seeds
1-5, and one figure of it.

    PYTHONPATH=build/python python3 docs/notebook_example.py queueing.png

It prints that table's two 150-node rows (fifo: Pretrain 64,751 s ... ; acme: Eval 660 s, 1,599
preemptions). Each cell below is what one notebook cell would hold.
"""

import pathlib
import sys

import matplotlib

matplotlib.use("Agg")  # no display: the figure goes to a file
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

import acmesim  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[1]
figure_path = sys.argv[1] if len(sys.argv) > 1 else "queueing.png"

# %% One compare per seed: fifo and acme on the same trace, in two threads.
week = {"trace": str(ROOT / "traces" / "seren_week.csv.gz"), "cluster.nodes": 150}
tables = [
    acmesim.compare(ROOT / "configs" / "seren.yaml", schedulers=["fifo", "acme"], set=week, seed=seed).assign(seed=seed)
    for seed in range(1, 6)
]
runs = pd.concat(tables, ignore_index=True)

# %% Mean queueing delay per job type (GPU and CPU jobs of the type), mean and range over the seeds.
types = ["Pretrain", "Eval", "SFT", "MLLM", "Debug", "Other"]
by_type = runs[runs.type.isin(types)].pivot_table(
    index="scheduler", columns="type", values="queue_mean_s", aggfunc=["mean", "min", "max"]
)
table = by_type["mean"][types].round(0).astype(int)
table["GPU alloc. %"] = runs[runs.type == "all"].groupby("scheduler").gpu_allocation_ratio.mean().mul(100).round(1)
table["preemptions"] = runs[runs.type == "all"].groupby("scheduler").preemptions.mean()
print("Mean queueing delay (s) per job type, Seren week on 150 nodes, mean over seeds 1-5")
print(table.to_string())
# The trace's outcomes and these two schedulers draw no random numbers, so every seed gives the
# same table; with a failure model (set={"failures": ...}) the seeds differ.
spread = (by_type["max"] - by_type["min"])[types].abs().max().max()
print(f"largest spread over the seeds: {spread:.0f} s")

# %% Under acme evaluation waits longest of the non-pretraining types [Acme Fig 6]; under fifo they all wait alike.
best_effort = [t for t in types if t != "Pretrain"]
print(f"acme: longest mean wait of the non-pretraining types: {table.loc['acme', best_effort].idxmax()}")
fifo = table.loc["fifo", best_effort]
print(f"fifo: the non-pretraining types wait {fifo.min():,.0f}-{fifo.max():,.0f} s, alike")

# %% The figure: one bar per type and scheduler, on a log scale (fifo's waits are ~100x acme's).
axes = table[types].T.plot.bar(logy=True, figsize=(7, 3.5), rot=0)
axes.set_ylabel("mean queueing delay (s)")
axes.legend(title="scheduler", loc="upper left", bbox_to_anchor=(1.0, 1.0))
axes.set_title("Seren week, 150 nodes: mean over seeds 1-5")
plt.tight_layout()
plt.savefig(figure_path, dpi=120)
print(f"wrote {figure_path}")
