#!/bin/sh
# The what-if study of docs/validation.md: checkpointing {sync, async} x recovery {manual, auto},
# plus a no-failure baseline, over seeds 1..N (default 20). Writes out/failures-whatif/whatif.csv
# (one row per variant and seed) for plotting.
#   configs/failures/whatif_sweep.sh [N] [ACMESIM]
set -eu
n=${1:-20}
acmesim=${2:-./build/acmesim}
here=$(dirname "$0")
out=out/failures-whatif
mkdir -p "$out"
csv="$out/whatif.csv"
echo "variant,mode,recovery,seed,node_failures,job_failures,manual_interventions,ettr,wall_days,gpu_hours_lost,recovery_wait_gpu_hours,checkpoint_gpu_hours" > "$csv"
row() {  # variant mode recovery seed dir
  python3 - "$@" <<'PY' >> "$csv"
import json, sys
variant, mode, recovery, seed, d = sys.argv[1:]
j = json.load(open(d + "/summary.json"))
f = j["failures"]; p = f["pretrain"]
wall = j["makespan_s"] / 86400
print(f"{variant},{mode},{recovery},{seed},{f['node_failures']['total']},{p['failures']},{p['manual_interventions']},"
      f"{p['ettr']:.4f},{wall:.3f},{f['gpu_hours_lost']['total']:.1f},{p['recovery_wait_gpu_hours']:.1f},"
      f"{p['checkpoint_gpu_hours']:.1f}")
PY
}
for s in $(seq 1 "$n"); do
  d="$out/none-$s"; "$acmesim" run "$here/whatif.yaml" -q --seed "$s" -o "$d" --set failures=none --set recovery.mode=async
  row no-failures async auto "$s" "$d"
  for mode in sync async; do
    for rec in manual auto; do
      d="$out/$mode-$rec-$s"
      "$acmesim" run "$here/whatif.yaml" -q --seed "$s" -o "$d" --set recovery.name=$rec --set recovery.mode=$mode
      row "$mode+$rec" $mode $rec "$s" "$d"
    done
  done
done
python3 - "$csv" <<'PY'
import csv, sys, statistics as st
rows = list(csv.DictReader(open(sys.argv[1])))
print(f"{'variant':<14}{'ETTR':>8}{'wall days':>11}{'node fail':>11}{'job fail':>10}{'manual':>8}{'GPU-h lost':>12}{'wait GPU-h':>12}{'ckpt GPU-h':>12}")
for v in dict.fromkeys(r["variant"] for r in rows):
    g = [r for r in rows if r["variant"] == v]
    m = lambda k: st.mean(float(r[k]) for r in g)
    print(f"{v:<14}{m('ettr'):>8.3f}{m('wall_days'):>11.2f}{m('node_failures'):>11.1f}{m('job_failures'):>10.1f}"
          f"{m('manual_interventions'):>8.1f}{m('gpu_hours_lost'):>12.0f}{m('recovery_wait_gpu_hours'):>12.0f}"
          f"{m('checkpoint_gpu_hours'):>12.0f}")
PY
