#!/bin/sh
# The workload and queueing tables of docs/validation.md ("Validation over seeds"): for seeds
# 1..N (default 5), generate the full Seren and Kalos traces (`acmesim synth`, paper scale), replay
# each under its default scenario (configs/seren.yaml, configs/kalos.yaml), characterise the
# replay's jobs.csv with `acmesim stats --compare`, and print mean [min-max] over the seeds beside
# the paper's figure.
#   scripts/validate_workload.sh [N] [ACMESIM] [OUT]     (~1 min per seed)
set -eu
n=${1:-5}
acmesim=${2:-./build/acmesim}
out=${3:-out/validate-workload}
here=$(dirname "$0")/..
mkdir -p "$out"
for s in $(seq 1 "$n"); do
  for c in seren kalos; do
    echo "seed $s: $c" >&2
    "$acmesim" synth --profile "$c" --seed "$s" -q -o "$out/$c-$s.csv.gz"
    "$acmesim" run "$here/configs/$c.yaml" -q --seed "$s" --set trace="$out/$c-$s.csv.gz" -o "$out/$c-run-$s" > /dev/null
    "$acmesim" stats "$out/$c-run-$s/jobs.csv" --compare "$c" --format csv > "$out/$c-stats-$s.csv" 2> /dev/null
  done
done
python3 - "$out" "$n" <<'PY'
import csv, sys, statistics as st
out, n = sys.argv[1], int(sys.argv[2])
rows = {
  "seren": ["avg_que_time_gpu", "med_que_time_gpu", "avg_que_time_cpu", "Pretrain.queue_p95", "Eval.queue_p95",
            "SFT.queue_p95", "MLLM.queue_p95", "Debug.queue_p95", "Other.queue_p95", "Eval.queue_p50", "Eval.queue_p99",
            "gpu_time_cdf.8", "gpu_time_cdf.64", "gpu_time_cdf.128", "gpu_time_cdf.256", "gpu_time_cdf.511",
            "gpu_time_cdf.1023", "Pretrain.gpu_time_share", "complete_rate_gpu_time", "cancel_rate_gpu_time",
            "fail_rate_gpu_time"],
}
rows["kalos"] = rows["seren"]
for c in ("seren", "kalos"):
    runs = []
    for s in range(1, n + 1):
        runs.append({r["metric"]: r for r in csv.DictReader(open(f"{out}/{c}-stats-{s}.csv"))})
    print(f"\n{c}: mean [min-max] over seeds 1-{n}, default scenario")
    print(f"{'metric':<28}{'acmesim':>30}{'paper':>12}")
    for m in rows[c]:
        if m not in runs[0]:
            continue
        v = [float(r[m]["value"]) for r in runs if r[m]["value"] not in ("", "nan")]
        if not v:
            continue
        ref = runs[0][m]["reference"]
        f = ".3f" if max(abs(x) for x in v) < 10 else ".1f"
        print(f"{m:<28}{f'{st.mean(v):{f}} [{min(v):{f}}-{max(v):{f}}]':>30}{ref:>12}")
PY
