#!/bin/sh
# Runs the Table-3 scenario (outcomes trace-reasons) with seeds 1..N (default 5): prints each
# seed's category shares in Table 3's scope, then the breakdown pooled over the seeds. Options
# after ACMESIM go to `acmesim run`, e.g. --set trace=seren_full.csv for a paper-scale trace.
#   configs/failures/taxonomy_seeds.sh [N] [ACMESIM] [run options...]
set -eu
n=${1:-5}
acmesim=${2:-./build/acmesim}
[ $# -gt 2 ] && shift 2 || set --
here=$(dirname "$0")
out=out/failures-taxonomy-seeds
rm -rf "$out"
for s in $(seq 1 "$n"); do
  "$acmesim" run "$here/taxonomy.yaml" -q --seed "$s" -o "$out/seed$s" "$@"
  printf 'seed %s: ' "$s"
  "$acmesim" failures "$out/seed$s/jobs.csv" | grep '^without Unknown'
done
"$acmesim" failures "$out"/seed*/jobs.csv
