#!/bin/sh
# Pools the Table-3 breakdown of the taxonomy scenario over seeds 1..N (default 60).
#   configs/failures/taxonomy_seeds.sh [N] [ACMESIM]
set -eu
n=${1:-60}
acmesim=${2:-./build/acmesim}
here=$(dirname "$0")
out=out/failures-taxonomy-seeds
for s in $(seq 1 "$n"); do
  "$acmesim" run "$here/taxonomy.yaml" -q --seed "$s" -o "$out/seed$s"
done
"$acmesim" failures "$out"/seed*/jobs.csv
