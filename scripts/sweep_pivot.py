#!/usr/bin/env python3
"""A sweep's summary.csv as a Markdown table: one axis down, one across, one metric per cell
(mean ± half the 95 % confidence interval over the seeds). Standard library only.

    scripts/sweep_pivot.py out/capacity/summary.csv cluster.nodes scheduler eval_queue_mean_s
    scripts/sweep_pivot.py out/evaluation/summary.csv cluster.nodes policies latency_mean_min pretraining=[]

Arguments after the metric, AXIS=VALUE, keep only the points with that value of a third axis.
"""
import csv
import sys


def number(v: float, digits: int) -> str:
    return f"{v:,.0f}" if abs(v) >= 100 else f"{v:.{digits}g}"


def main() -> int:
    if len(sys.argv) < 5 or any("=" not in w for w in sys.argv[5:]):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    path, down, across, metric = sys.argv[1:5]
    where = [w.split("=", 1) for w in sys.argv[5:]]
    rows = [r for r in csv.DictReader(open(path, newline=""))
            if r["metric"] == metric and all(r.get(k) == v for k, v in where)]
    if not rows:
        print(f"{path}: metric: expected a metric of the file, found '{metric}'", file=sys.stderr)
        return 2
    for axis in (down, across):
        if axis not in rows[0]:
            print(f"{path}: axis: expected one of the file's axes, found '{axis}'", file=sys.stderr)
            return 2
    downs = list(dict.fromkeys(r[down] for r in rows))
    acrosses = list(dict.fromkeys(r[across] for r in rows))
    cells = {}
    for r in rows:
        if not r["mean"]:
            text = "-"
        elif r["ci95_low"]:
            half = (float(r["ci95_high"]) - float(r["ci95_low"])) / 2
            text = f"{number(float(r['mean']), 4)} ± {number(half, 2)}"
        else:
            text = number(float(r["mean"]), 4)
        cells.setdefault((r[down], r[across]), []).append(text)
    print(f"| {down} \\ {across} | " + " | ".join(acrosses) + " |")
    print("|---" * (len(acrosses) + 1) + "|")
    for d in downs:
        print(f"| {d} | " + " | ".join("; ".join(cells.get((d, a), ["-"])) for a in acrosses) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
