#!/bin/sh
# Sweep throughput and scaling (docs/performance.md, "Sweeps"): the capacity study (96 runs of a
# generated Seren month) on 1 and 2 threads of one process, and on 2 MPI ranks of 1 thread each,
# timed as whole processes with /usr/bin/time; prints runs per minute and the 1 -> 2 speed-ups.
#   bench/sweep_scaling.sh [ACMESIM]     (from the repository's root; makes the months if missing)
set -eu
acmesim=${1:-./build/acmesim}
sweep=configs/sweeps/capacity.yaml
for s in 1 2 3; do
  [ -f out/workloads/seren_month_s$s.csv.gz ] ||
    "$acmesim" synth --profile seren --days 30 --seed $s -o out/workloads/seren_month_s$s.csv.gz -q
done
runs=$("$acmesim" sweep "$sweep" --dry-run | sed -n 's/.* = \([0-9]*\) runs.*/\1/p')
time_of() {  # label, command...
  label=$1
  shift
  rm -rf out/bench-sweep
  /usr/bin/time -f '%e %U %S' -o out/bench-sweep.time "$@" -o out/bench-sweep -q --no-summary
  read -r wall user sys < out/bench-sweep.time
  echo "$label $wall $user $sys" | awk -v runs="$runs" \
    '{printf "%-22s %7.2f s wall  %6.1f runs/min  %4.0f %% of 2 cores busy\n", $1, $2, 60 * runs / $2, 50 * ($3 + $4) / $2}'
  echo "$wall" > "out/bench-sweep.$label"
}
time_of threads-1 "$acmesim" sweep "$sweep" -j 1
time_of threads-2 "$acmesim" sweep "$sweep" -j 2
if command -v mpirun > /dev/null; then
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
    time_of ranks-2 mpirun -np 2 --oversubscribe "$acmesim" sweep "$sweep" -j 1
fi
awk 'FNR == 1 { t[FILENAME] = $1 } END {
  printf "speed-up 1 -> 2 threads: %.2fx\n", t["out/bench-sweep.threads-1"] / t["out/bench-sweep.threads-2"]
  if ("out/bench-sweep.ranks-2" in t) printf "speed-up 1 -> 2 ranks:   %.2fx\n", t["out/bench-sweep.threads-1"] / t["out/bench-sweep.ranks-2"]
}' out/bench-sweep.threads-1 out/bench-sweep.threads-2 $( [ -f out/bench-sweep.ranks-2 ] && echo out/bench-sweep.ranks-2 )
