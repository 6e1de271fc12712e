#!/bin/sh
# The what-if study of docs/validation.md: checkpointing {sync, async} x recovery {manual, auto},
# plus a no-failure baseline, over seeds 1..N (default 10). Writes out/failures-whatif/whatif.csv
# (one row per variant and seed) for plotting.
#   configs/failures/whatif_sweep.sh [N] [ACMESIM]
set -eu
n=${1:-10}
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
print("mean [min-max] over seeds")
print(f"{'variant':<14}{'ETTR':>20}{'wall days':>20}{'node fail':>20}{'job fail':>20}{'manual':>18}{'GPU-h lost':>24}{'wait GPU-h':>24}{'ckpt GPU-h':>24}")
for v in dict.fromkeys(r["variant"] for r in rows):
    g = [r for r in rows if r["variant"] == v]
    def m(k, f):
        x = [float(r[k]) for r in g]
        return f"{st.mean(x):{f}} [{min(x):{f}}-{max(x):{f}}]"
    print(f"{v:<14}{m('ettr', '.3f'):>20}{m('wall_days', '.1f'):>20}{m('node_failures', '.0f'):>20}"
          f"{m('job_failures', '.0f'):>20}{m('manual_interventions', '.0f'):>18}{m('gpu_hours_lost', '.0f'):>24}"
          f"{m('recovery_wait_gpu_hours', '.0f'):>24}{m('checkpoint_gpu_hours', '.0f'):>24}")
PY
