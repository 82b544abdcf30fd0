#!/usr/bin/env bash
# Regenerates docs/images/multirank.png: the two ranks of the shared HTA trace pair
# (../shared/traces/kineto-hta_2ranks_rank-{0,1}.json.gz) imported as ONE run
# (`wheretime import --one-run`) and opened in the main window: a device group per rank on one
# timeline, the per-rank step table in the details. Rendered offscreen, or under Xvfb with
# XVFB=1 (the real window, grabbed by the app itself).
#
#   scripts/screenshot-multirank.sh [TRACES_DIR]      env: BUILD=build/asan  OUTDIR=docs/images  XVFB=
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$root/build/asan}
outdir=${OUTDIR:-$root/docs/images}
traces=${1:-$root/../shared/traces}
gui=$build/app/gui/wheretime-gui
cli=$build/app/cli/wheretime
for exe in "$gui" "$cli"; do
    [ -x "$exe" ] || { echo "screenshot-multirank.sh: $exe not built (cmake --build $build --target wheretime wheretime-gui)" >&2; exit 1; }
done
for r in 0 1; do
    [ -f "$traces/kineto-hta_2ranks_rank-$r.json.gz" ] || { echo "screenshot-multirank.sh: missing $traces/kineto-hta_2ranks_rank-$r.json.gz" >&2; exit 1; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
"$cli" import "$traces/kineto-hta_2ranks_rank-0.json.gz" "$traces/kineto-hta_2ranks_rank-1.json.gz" --one-run \
    --name "HTA job: ranks 0 and 1" -o "$work/ranks.wt"
mkdir -p "$outdir"
if [ -n "${XVFB:-}" ]; then
    xvfb-run -a -s "-screen 0 1700x1000x24" "$gui" --screenshot "$outdir/multirank.png" --size 1600x900 --panels "${PANELS:-beside}" "$work/ranks.wt"
else
    QT_QPA_PLATFORM=offscreen "$gui" --screenshot "$outdir/multirank.png" --size 1600x900 --panels "${PANELS:-beside}" "$work/ranks.wt"
fi
echo "$outdir/multirank.png"
