#!/usr/bin/env bash
# Regenerates docs/images/variants-bert-groupbert.png: bert and groupbert captured on the CPU
# (PRESET, default small; 3 steps each; bert with norm=pre, GroupBERT's, so that the runs differ
# in the workload only) into one file, shown in the variants view with --setting workload.
#
#   scripts/screenshot-bert-variants.sh   env: BUILD=build/asan  OUTDIR=docs/images  PRESET=small  FILE=
# FILE: an existing file whose runs 1 and 2 are such captures (skips capturing).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$root/build/asan}
outdir=${OUTDIR:-$root/docs/images}
preset=${PRESET:-small}
gui=$build/app/gui/wheretime-gui
cli=$build/app/cli/wheretime
for exe in "$gui" "$cli"; do
    [ -x "$exe" ] || { echo "screenshot-bert-variants.sh: $exe not built" >&2; exit 1; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
file=${FILE:-}
if [ -z "$file" ]; then
    file=$work/bert.wt
    "$cli" capture --workload bert --preset "$preset" --variant full --set norm=pre --backend cpu --steps 3 --name bert -o "$file" >/dev/null
    "$cli" capture --workload groupbert --preset "$preset" --variant full --backend cpu --steps 3 --name groupbert -o "$file" >/dev/null
fi
mkdir -p "$outdir"
[ -n "${DISPLAY:-}" ] || export QT_QPA_PLATFORM=${QT_QPA_PLATFORM:-offscreen}
"$gui" --screenshot "$outdir/variants-bert-groupbert.png" --size 1600x1100 --variants --setting workload "$file:1"
echo "$outdir/variants-bert-groupbert.png"
