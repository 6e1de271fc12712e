#!/bin/sh
# docs/validation.md "Workload generator calibration": for seeds 1..N (default 5), generate the
# full Seren and Kalos traces (`acmesim synth`, paper scale, recorded starts as the profile writes
# them) and characterise each with `acmesim stats --compare`, then print, for every figure that
# has a target, the paper's value, mean [min-max] over the seeds and in how many seeds the target
# is met; first grouped as docs/validation.md's summary table, then figure by figure.
#   scripts/validate_generator.sh [N] [ACMESIM] [OUT]     (~15 s per seed)
set -eu
n=${1:-5}
acmesim=${2:-./build/acmesim}
out=${3:-out/validate-generator}
mkdir -p "$out"
for s in $(seq 1 "$n"); do
  for c in seren kalos; do
    echo "seed $s: $c" >&2
    "$acmesim" synth --profile "$c" --seed "$s" -q -o "$out/$c-$s.csv.gz"
    "$acmesim" stats "$out/$c-$s.csv.gz" --compare "$c" --format csv > "$out/$c-stats-$s.csv" 2> /dev/null
  done
done
/usr/bin/env python3 - "$out" "$n" <<'PY'
import csv, re, statistics as st, sys
out, n = sys.argv[1], int(sys.argv[2])
# The groups of the summary table: a figure belongs to the first whose pattern it matches.
groups = [
    ("job counts (all, CPU, GPU) within 10 %", r"^(job_num|cpu_job_num|gpu_job_num)$"),
    ("mean run time (GPU, CPU) within 10 %", r"^avg_run_time_(gpu|cpu)$"),
    ("median run time (GPU, CPU) within 10 %", r"^med_run_time_(gpu|cpu)$"),
    ("mean / median GPU demand within 10 %", r"^(avg|med)_gpu_num$"),
    ("GPU-time shares by state within 5 points", r"_rate_gpu_time$|\.gpu_time_(completed|cancelled|failed)$"),
    ("final-state rates within 2 points", r"_rate_(gpu|cpu)$|\.(completed|cancelled|failed)$"),
    ("type shares of jobs within 2 points", r"\.job_share$"),
    ("type shares of GPU time within 5 points", r"\.gpu_time_share$"),
    ("duration CDFs within 5 points at every grid point", r"duration_cdf\."),
    ("GPU-demand quartiles per type", r"\.gpu_(q1|median|q3)$"),
    ("GPU time by demand (T3) and demand CDF (T2)", r"^gpu(_time)?_cdf\."),
]
def number(text):
    try:
        return float(text)
    except ValueError:
        return None
for c in ("seren", "kalos"):
    runs = [{r["metric"]: r for r in csv.DictReader(open(f"{out}/{c}-stats-{s}.csv"))} for s in range(1, n + 1)]
    targeted = [m for m, r in runs[0].items() if r["target"] not in ("", "-") and r["met"] in ("yes", "no")]
    print(f"\n## {c}: seeds 1-{n}, every figure with a target")
    print("\n| target | figures | met in every seed | met in some seeds | never met | worst miss (figure: paper; mean [min-max]) |")
    print("|---|---:|---:|---:|---:|---|")
    figures = []  # (metric, paper, values per seed, seeds met, target, worst error)
    for m in targeted:
        values = [number(r[m]["value"]) for r in runs if m in r]
        met = sum(1 for r in runs if m in r and r[m]["met"] == "yes")
        errors = []  # relative error, or the difference for figures without one
        for r in runs:
            if m in r:
                rel = number(r[m]["rel_error"])
                errors.append(abs(rel) if rel is not None else abs(number(r[m]["diff"]) or 0))
        figures.append((m, runs[0][m]["reference"], values, met, runs[0][m]["target"], max(errors)))
    rows = list(figures)  # what no group has taken yet
    for title, pattern in groups:
        mine = [row for row in rows if re.search(pattern, row[0])]
        rows = [row for row in rows if not re.search(pattern, row[0])]
        if not mine:
            continue
        every = sum(1 for r in mine if r[3] == n)
        never = sum(1 for r in mine if r[3] == 0)
        worst = max(mine, key=lambda r: (n - r[3], r[5]))
        vals = [v for v in worst[2] if v is not None]
        shown = f"{worst[0]}: {worst[1]}; {st.mean(vals):.4g} [{min(vals):.4g}-{max(vals):.4g}]" if worst[3] < n else "-"
        print(f"| {title} | {len(mine)} | {every} | {len(mine) - every - never} | {never} | {shown} |")
    for m, ref, values, met, target, _ in rows:
        vals = [v for v in values if v is not None]
        print(f"| {m} ({target}) | 1 | {int(met == n)} | {int(0 < met < n)} | {int(met == 0)} | paper {ref}; {st.mean(vals):.4g} [{min(vals):.4g}-{max(vals):.4g}] |")
    print(f"\n### {c}: figure by figure (paper; mean [min-max]; seeds met)\n")
    print("| figure | target | paper | generated | seeds met |")
    print("|---|---|---:|---:|---:|")
    for m, ref, values, met, target, _ in figures:
        vals = [v for v in values if v is not None]
        print(f"| {m} | {target} | {ref} | {st.mean(vals):.4g} [{min(vals):.4g}-{max(vals):.4g}] | {met}/{n} |")
PY
