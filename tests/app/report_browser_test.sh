#!/bin/sh
# `acmesim report` in a real browser. Makes an output folder of KIND (run: the bundled default;
# compare: fifo against sjf on it; sweep: configs/sweeps/smoke.yaml), writes its report, has
# headless Chromium render the page and checks what the page's own script recorded on <body>:
# data-report-status="ok" and data-charts = the number of charts the command wrote. Chromium's
# log (--enable-logging=stderr) must hold no console line at all: an uncaught error, a Vega
# warning or a console.error would be one. Leaves OUT/report-KIND.png, a screenshot of the page.
#
#   report_browser_test.sh ACMESIM SOURCE_DIR OUT_DIR KIND
# Exit 0 pass, 1 fail, 77 skip (no Chromium).
set -eu
acmesim=$1
source_dir=$2
out_dir=$3
kind=$4

browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
  echo "SKIP: chromium is not installed (setup.sh installs it)"
  exit 77
fi

work="$out_dir/report-$kind"
rm -rf "$work"
mkdir -p "$work"
dir="$work/out"
case "$kind" in
  run) "$acmesim" run -q -o "$dir" ;;
  compare) "$acmesim" compare -q --schedulers fifo,sjf -o "$dir" ;;
  sweep) "$acmesim" sweep -q "$source_dir/configs/sweeps/smoke.yaml" -o "$dir" ;;
  *) echo "unknown kind '$kind'"; exit 1 ;;
esac

"$acmesim" report "$dir" 2> "$work/report.log"
cat "$work/report.log"
charts=$(sed -n 's/.*(\([0-9][0-9]*\) charts, .*/\1/p' "$work/report.log")
if [ -z "$charts" ] || [ "$charts" -lt 5 ]; then
  echo "FAIL: the report of the $kind folder has '${charts}' charts (expected 5 or more)"
  exit 1
fi

# Each Chromium its own profile: the three tests may run at once.
chromium() {
  "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$work/profile" \
    --virtual-time-budget=20000 "$@"
}
page="file://$dir/report.html"
chromium --enable-logging=stderr --v=0 --dump-dom "$page" > "$work/dom.html" 2> "$work/chromium.log"
body=$(grep -o '<body[^>]*>' "$work/dom.html" || true)
echo "$body"
case "$body" in
  *'data-report-status="ok"'*) ;;
  *) echo "FAIL: the page did not record success: $body"; exit 1 ;;
esac
case "$body" in
  *"data-charts=\"$charts\""*) ;;
  *) echo "FAIL: the page drew a number of charts other than the $charts written: $body"; exit 1 ;;
esac
if grep -E ':CONSOLE|Uncaught' "$work/chromium.log"; then
  echo "FAIL: the page wrote to the console (above; Chromium's whole log: $work/chromium.log)"
  exit 1
fi

chromium --window-size=1400,5000 --screenshot="$out_dir/report-$kind.png" "$page" > /dev/null 2>&1
if [ ! -s "$out_dir/report-$kind.png" ]; then
  echo "FAIL: no screenshot at $out_dir/report-$kind.png"
  exit 1
fi
echo "ok: $charts charts; screenshot $out_dir/report-$kind.png"
