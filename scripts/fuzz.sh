#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz/) in the sanitizer build, build-asan/ (clang,
# AddressSanitizer and UBSan: ./setup.sh --sanitize, which builds them with the tests), makes each
# a seed corpus from traces/ and configs/, and runs each target for SECONDS (default 60), or for
# RUNS executions with --runs. A crash leaves its input in build-asan/findings/ and fails the
# script. See tests/fuzz/README.md.
#
#   scripts/fuzz.sh [SECONDS]            every target for SECONDS each (CI: 30)
#   scripts/fuzz.sh --runs N [TARGET]    N executions of every target (or one), the long run
#   scripts/fuzz.sh --no-install ...     skip the package check
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=60
runs=""
only=""
install=1
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs="$2"; shift 2 ;;
    --no-install) install=0; shift ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    fuzz_*) only="$1"; shift ;;
    *[!0-9]*) echo "fuzz.sh: unknown argument '$1' (see scripts/fuzz.sh --help)" >&2; exit 2 ;;
    *) seconds="$1"; shift ;;
  esac
done

# The sanitizer build's one configuration (setup.sh), its fuzz targets only: nothing to do when
# ./setup.sh --sanitize has built them.
setup=(--sanitize --target fuzz)
[ "$install" = 1 ] || setup+=(--no-install)
./setup.sh "${setup[@]}"
build=build-asan

# Seed corpora: the heads of the bundled traces (plain and gzip), every bundled YAML, the
# regression inputs of earlier findings.
seeds="$build/seeds"
rm -rf "$seeds"
mkdir -p "$seeds"/{fuzz_trace,fuzz_scenario,fuzz_config_files,fuzz_node_events}
for trace in traces/*.csv traces/*.csv.gz; do
  name=$(basename "$trace")
  if [[ "$trace" == *.gz ]]; then
    (zcat "$trace" || true) | head -n 40 > "$seeds/fuzz_trace/$name.head"  # zcat ends on SIGPIPE
  else
    head -n 40 "$trace" > "$seeds/fuzz_trace/$name.head"
  fi
  gzip -c "$seeds/fuzz_trace/$name.head" > "$seeds/fuzz_trace/$name.head.gz"
done
for scenario in configs/*.yaml configs/failures/*.yaml; do
  cp "$scenario" "$seeds/fuzz_scenario/$(basename "$scenario")"
done
printf '%s\n%%%%\nscheduler=acme\nscheduler.quota_share={Pretrain: 0.9}\nseed=7\n' "$(cat configs/seren.yaml)" \
  > "$seeds/fuzz_scenario/seren-with-overrides.yaml"
i=0
for file in configs/profiles/*.yaml configs/eval/opencompass63.yaml configs/eval/acme_week*.yaml \
  configs/reference/*.yaml configs/sweeps/*.yaml; do
  case "$file" in
    configs/sweeps/*) selector='\x04' ;;
    configs/profiles/*) selector='\x00' ;;
    configs/eval/opencompass63.yaml) selector='\x01' ;;
    configs/eval/*) selector='\x02' ;;
    *) selector='\x03' ;;
  esac
  { printf "$selector"; cat "$file"; } > "$seeds/fuzz_config_files/$i-$(basename "$file")"
  i=$((i + 1))
done
printf '\x04base: {trace: t.csv, cluster: {nodes: 10}}\naxes:\n  cluster.nodes: {from: 2, to: 8, step: 2}\n  scheduler: [fifo, acme]\nzip:\n  - {recovery.name: [manual, auto], recovery.mode: [sync, async]}\nseeds: [1, 5]\n' \
  > "$seeds/fuzz_config_files/inline-sweep.yaml"
printf 'time_s,node,event,reason\n600,0,fail,NVLinkError\n2400,0,repair,\n3000,3,fail,\n' \
  > "$seeds/fuzz_node_events/events.csv"
for target in fuzz_trace fuzz_scenario fuzz_config_files fuzz_node_events; do
  if [ -d "tests/fuzz/regressions/$target" ]; then cp tests/fuzz/regressions/$target/* "$seeds/$target/" 2>/dev/null || true; fi
done

mkdir -p "$build/findings" "$build/corpus"
# The long run records no allocation stacks (AddressSanitizer still finds every error; a finding
# is re-run with them): storing one per allocation was over a third of an execution of the YAML
# targets, and the stack store grew without bound.
if [ -n "$runs" ] && [ -z "${ASAN_OPTIONS:-}" ]; then export ASAN_OPTIONS=malloc_context_size=0; fi
status=0
for target in fuzz_trace fuzz_scenario fuzz_config_files fuzz_node_events; do
  [ -n "$only" ] && [ "$only" != "$target" ] && continue
  corpus="$build/corpus/$target"
  mkdir -p "$corpus"
  limit=(-max_total_time="$seconds")
  [ -n "$runs" ] && limit=(-runs="$runs")
  echo "fuzz.sh: $target (${runs:+$runs runs}${runs:-$seconds s})"
  # -max_len 65536: room for a few hundred trace rows; -rss_limit_mb: a 24 GiB machine runs two.
  if ! "$build/tests/fuzz/$target" "${limit[@]}" -max_len=65536 -rss_limit_mb=4096 -timeout=20 \
    -artifact_prefix="$build/findings/$target-" -print_final_stats=1 "$corpus" "$seeds/$target" \
    > "$build/$target.log" 2>&1; then
    status=1
    echo "fuzz.sh: $target FOUND A CRASH; input in $build/findings/, log in $build/$target.log" >&2
    tail -n 40 "$build/$target.log" >&2
  fi
  grep -E "^stat::number_of_executed_units|^stat::peak_rss_mb|^Done" "$build/$target.log" | sed "s/^/  /" || true
done
exit "$status"
