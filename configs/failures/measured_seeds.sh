#!/bin/sh
# The interruption and checkpoint figures of docs/validation.md ("Interruption rates",
# "Checkpoint cost"), as mean and min-max over seeds 1..N (default 5):
#   configs/failures/measured_seeds.sh [N] [ACMESIM]
# Runs rsc_1024.yaml and llama3_16k.yaml per seed, and the what-if job without failures for the
# sync/async checkpoint cost of the 7B and 123B models (deterministic: no failures, no draws).
set -eu
n=${1:-5}
acmesim=${2:-./build/acmesim}
here=$(dirname "$0")
out=out/failures-measured
mkdir -p "$out"
for s in $(seq 1 "$n"); do
  "$acmesim" run "$here/rsc_1024.yaml" -q --seed "$s" -o "$out/rsc-$s" > /dev/null
  "$acmesim" run "$here/llama3_16k.yaml" -q --seed "$s" -o "$out/llama3-$s" > /dev/null
done
for b in 7 123; do
  for mode in sync async; do
    "$acmesim" run "$here/whatif.yaml" -q -o "$out/ckpt-$b-$mode" --set failures=none \
      --set recovery.model_b=$b --set recovery.mode=$mode > /dev/null
  done
done
python3 - "$out" "$n" <<'PY'
import json, sys, statistics as st
out, n = sys.argv[1], int(sys.argv[2])
def load(d): return json.load(open(f"{out}/{d}/summary.json"))
def bucket(j, gpus):
    return next(b for b in j["failures"]["mtbi_by_gpus"] if b["gpus"] == gpus)
def show(label, values, ref, unit=""):
    m = st.mean(values)
    print(f"{label:<44}{m:>10.2f}{min(values):>10.2f}{max(values):>10.2f}{unit:>4}   {ref}")
print(f"{'figure':<44}{'mean':>10}{'min':>10}{'max':>10}")
rsc = [load(f"rsc-{s}") for s in range(1, n + 1)]
show("RSC hardware failures / 1,000 node-days", [j["failures"]["rates_per_1000_node_days"]["observed"]["hardware"] for j in rsc], "6.50 [RSC]")
show("RSC MTTF of the 1,024-GPU job", [bucket(j, "257-1024")["mtbi_hours"] for j in rsc], "7.9 h [RSC]", " h")
show("RSC MTTF of 8-GPU jobs", [bucket(j, "1-8")["mtbi_hours"] / 24 for j in rsc], "47.7 days [RSC]", " d")
ll = [load(f"llama3-{s}") for s in range(1, n + 1)]
mtbi = [bucket(j, "4097+")["mtbi_hours"] for j in ll]
show("Llama 3 MTBI of the 16,384-GPU job", mtbi, "2.78 h [Llama3]", " h")
show("Llama 3 interruptions in 54 days of wall time", [54 * 24 * b["failures"] / (j["makespan_s"] / 3600) for j in ll for b in [bucket(j, "4097+")]], "466 [Llama3]")
show("Llama 3 effective training time (ETTR)", [j["failures"]["pretrain"]["ettr"] for j in ll], "> 0.90 [Llama3]")
show("Llama 3 manual interventions in the run", [j["failures"]["manual_interventions"] for j in ll], "3 of 466 [Llama3]")
for b in ("7", "123"):
    sync, asyn = load(f"ckpt-{b}-sync"), load(f"ckpt-{b}-async")
    cs = sync["failures"]["checkpoint_gpu_hours"]; ca = asyn["failures"]["checkpoint_gpu_hours"]
    work = 30 * 24 * 1024  # GPU-hours of training of the what-if job
    print(f"{b + 'B: sync slowdown, sync/async checkpoint cost':<44}{100 * cs / work:>9.1f}%{cs / ca:>9.1f}x"
          f"   {'up to 43 %; 3.6x-58.7x [Acme §6.1]'}")
PY
