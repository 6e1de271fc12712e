#!/usr/bin/env bash
# End-to-end figures of `acmesim run`, the whole process, per phase, on workloads the script
# generates itself with `acmesim synth` (docs/performance.md, "End to end"):
#
#   seren        the calibrated full Seren trace: 1,031,550 jobs over 184 days (plain and gzip)
#   seren-over   the same trace on 200 of Seren's 286 nodes: the queue grows for months
#   helios-75k   75,000 jobs over 30 days (the shape of a Helios month), Seren's cluster
#   backlog-25k  25,000 jobs submitted in one day (4.5x Seren's daily load): a backlogged day
#
# For each case and scheduler it runs `acmesim run` REPEATS times (after one warm-up run) and
# prints the median of each figure: wall time and peak memory (/usr/bin/time), and the phases
# `--log-level debug` reports (read, set-up, event loop, summaries, write), jobs/s and events/s.
#
#   bench/end_to_end.sh                                  every case, fifo, 5 repeats
#   bench/end_to_end.sh --cases seren --schedulers all   every scheduler of the catalog
#   bench/end_to_end.sh --repeats 3 --work /tmp/e2e --build build
#   bench/end_to_end.sh --cases seren --floor            each run paired with bench/floor.cpp
#
# With --floor, every run is followed by the floor (bench/floor.cpp: the least work any replay
# of the plain trace into a jobs.csv must do, with the run's own number of events), and each row
# is followed by the floor's median and the median and range of the ratio run / floor per pair.
set -euo pipefail
cd "$(dirname "$0")/.."

build=build
work=${TMPDIR:-/tmp}/acmesim-end-to-end
repeats=5
cases="seren seren-over helios-75k backlog-25k"
schedulers=fifo
floor=0
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build="$2"; shift 2 ;;
    --work) work="$2"; shift 2 ;;
    --repeats) repeats="$2"; shift 2 ;;
    --cases) cases="$2"; shift 2 ;;
    --schedulers) schedulers="$2"; shift 2 ;;
    --floor) floor=1; shift ;;
    -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
    *) echo "end_to_end.sh: unknown argument '$1' (see bench/end_to_end.sh --help)" >&2; exit 2 ;;
  esac
done
acmesim="$build/acmesim"
[ -x "$acmesim" ] || { echo "end_to_end.sh: $acmesim not found: build first (README.md)" >&2; exit 2; }
if [ "$floor" = 1 ] && [ ! -x "$build/bench/acmesim_floor" ]; then
  echo "end_to_end.sh: $build/bench/acmesim_floor not found: build first (README.md)" >&2; exit 2
fi
[ -x /usr/bin/time ] || { echo "end_to_end.sh: needs /usr/bin/time (apt-get install time)" >&2; exit 2; }
if [ "$schedulers" = all ]; then
  schedulers=$("$acmesim" policies | awk '/^scheduler:/{on=1; next} /^[a-z]/{on=0} on {print $1}' | tr '\n' ' ')
fi
mkdir -p "$work"

# The traces, generated once (a trace already there is reused: delete WORK to regenerate).
trace_of() {
  case "$1" in
    seren|seren-over) echo "$work/seren_full.csv" ;;
    seren-gz) echo "$work/seren_full.csv.gz" ;;
    helios-75k) echo "$work/helios_75k.csv" ;;
    backlog-25k) echo "$work/backlog_25k.csv" ;;
  esac
}
generate() {
  local file="$1"; shift
  [ -s "$file" ] && return 0
  echo "generating $file" >&2
  "$acmesim" synth --profile seren "$@" -o "$file.partial.csv" -q && mv "$file.partial.csv" "$file"
}
for c in $cases; do
  case "$c" in
    seren|seren-over) generate "$(trace_of seren)" ;;
    helios-75k) generate "$(trace_of helios-75k)" --jobs 75000 --days 30 ;;
    backlog-25k) generate "$(trace_of backlog-25k)" --jobs 25000 --days 1 ;;
    *) echo "end_to_end.sh: unknown case '$c'" >&2; exit 2 ;;
  esac
done
if [[ " $cases " == *" seren "* ]] && [ ! -s "$(trace_of seren-gz)" ]; then
  gzip -6 -c "$(trace_of seren)" > "$(trace_of seren-gz)"
fi

median() { sort -g | awk '{v[NR]=$1} END {if (NR == 0) print "-"; else if (NR % 2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'; }

# One case: prints a row of medians.
measure() {
  local label="$1" trace="$2" scheduler="$3"; shift 3
  local log="$work/run.log" rows="$work/rows.txt"
  : > "$rows"
  : > "$work/pairs.txt"
  for i in $(seq 0 "$repeats"); do
    /usr/bin/time -f "time %e %M" -o "$work/time.txt" "$acmesim" run configs/default.yaml --set "trace=$trace" \
      --set "scheduler=$scheduler" "$@" -o "$work/out" --force --log-level debug > /dev/null 2> "$log"
    if [ "$floor" = 1 ]; then
      local events
      events=$(awk '/event loop:/ { for (i = 1; i < NF; i++) if ($i == "loop:") print $(i + 1) }' "$log")
      mkdir -p "$work/floor_out"
      /usr/bin/time -f "%e" -o "$work/floor_time.txt" "$build/bench/acmesim_floor" "${trace%.gz}" "$events" \
        "$work/floor_out" > /dev/null
      [ "$i" = 0 ] || echo "$(awk '{print $2}' "$work/time.txt") $(cat "$work/floor_time.txt")" >> "$work/pairs.txt"
    fi
    [ "$i" = 0 ] && continue  # the warm-up
    awk -v time="$(cat "$work/time.txt")" '
      /^read [0-9]+ jobs/ { jobs = $2; read = $(NF) }
      /set up the simulation/ { setup = $(NF) }
      /event loop:/ { for (i = 1; i < NF; i++) { if ($i == "loop:") events = $(i + 1); if ($i == "in") loop = $(i + 1) } }
      /summarized/ { for (i = 1; i < NF; i++) if ($i == "in") summ = $(i + 1) }
      /^wrote .* in / { write = $(NF) }
      END { split(time, t, " "); gsub("s", "", read); gsub("s", "", setup); gsub("s", "", loop); gsub("s", "", summ);
            gsub("s", "", write);
            # A phase an older acmesim does not report reads as "nan", so the columns stay aligned.
            if (setup == "") setup = "nan"; if (loop == "") loop = "nan"; if (summ == "") summ = "nan";
            if (events == "") events = 0;
            print t[2], t[3] / 1024, read, setup, loop, summ, write, jobs / t[2], (loop == "nan" ? "nan" : events / loop / 1e6), jobs, events }' \
      "$log" >> "$rows"
  done
  local cols=() k
  for k in 1 2 3 4 5 6 7 8 9; do cols+=("$(awk -v k=$k '{print $k}' "$rows" | median)"); done
  printf '%-12s %-22s %9s %11s %7.2f %8.0f %6.2f %6.2f %6.2f %6.2f %6.2f %9.0f %7.2f\n' "$label" "$scheduler" \
    "$(awk 'NR==1{print $10}' "$rows")" "$(awk 'NR==1{print $11}' "$rows")" "${cols[0]}" "${cols[1]}" "${cols[2]}" \
    "${cols[3]}" "${cols[4]}" "${cols[5]}" "${cols[6]}" "${cols[7]}" "${cols[8]}"
  if [ "$floor" = 1 ]; then
    local ratios
    ratios=$(awk '{printf "%.3f\n", $1 / $2}' "$work/pairs.txt" | sort -g)
    printf '%-12s floor %.2f s; run / floor %.2f (pairs %s-%s)\n' "" "$(awk '{print $2}' "$work/pairs.txt" | median)" \
      "$(echo "$ratios" | median)" "$(echo "$ratios" | head -1)" "$(echo "$ratios" | tail -1)"
  fi
}

printf '%-12s %-22s %9s %11s %7s %8s %6s %6s %6s %6s %6s %9s %7s\n' case scheduler jobs events "wall_s" "peak_MiB" \
  read setup loop summ write "jobs/s" "Mev/s"
for c in $cases; do
  for s in $schedulers; do
    case "$c" in
      seren)
        measure seren "$(trace_of seren)" "$s"
        measure seren.gz "$(trace_of seren-gz)" "$s" ;;
      seren-over) measure seren-over "$(trace_of seren)" "$s" --set cluster.nodes=200 ;;
      *) measure "$c" "$(trace_of "$c")" "$s" ;;
    esac
  done
done
