#!/usr/bin/env bash
# Regenerates the compare images in docs/images/ from two CPU captures of the bundled GCN that
# differ only in the softmax variant (adaptive = BASE, full = OTHER), rendered headless:
#   compare.png            the compare window: grouped bars, delta chart and table by layer
#   compare-timelines.png  the synchronized timelines, aligned at step 2, softmax marked in both
#
#   scripts/screenshot-compare.sh         env: BUILD=build/asan  OUTDIR=docs/images
# Under a display server (e.g. xvfb-run -s '-screen 0 1600x1000x24') or QT_QPA_PLATFORM=offscreen.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$root/build/asan}
outdir=${OUTDIR:-$root/docs/images}
gui=$build/app/gui/wheretime-gui
cli=$build/app/cli/wheretime
for exe in "$gui" "$cli"; do
    [ -x "$exe" ] || { echo "screenshot-compare.sh: $exe not built" >&2; exit 1; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for variant in adaptive full; do
    "$cli" capture --workload gcn --preset tiny --variant "$variant" --backend cpu --steps 5 --name "$variant" -o "$work/variants.wt" >/dev/null
done
mkdir -p "$outdir"
[ -n "${DISPLAY:-}" ] || export QT_QPA_PLATFORM=${QT_QPA_PLATFORM:-offscreen}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
"$gui" --screenshot "$outdir/compare.png" --size 1600x1000 --compare "$work/variants.wt:full" "$work/variants.wt:adaptive"
"$gui" --screenshot "$outdir/compare-timelines.png" --size 1600x1000 --timelines --compare "$work/variants.wt:full" "$work/variants.wt:adaptive"
echo "$outdir: compare.png compare-timelines.png"
