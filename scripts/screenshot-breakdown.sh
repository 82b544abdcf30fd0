#!/usr/bin/env bash
# Regenerates the breakdown images in docs/images/ from a CPU capture of the bundled GCN (its
# softmax layer is the one the paper is about), rendered offscreen:
#   breakdown.png          main window, breakdown below the timeline (chart and table side by side), drilled into softmax
#   breakdown-bars.png     the same as sorted bars
#   report-pie-layer.png   the layer pie of the headless report (wheretime-gui --report)
#
#   scripts/screenshot-breakdown.sh [FILE[:RUN]]      env: BUILD=build/report  OUTDIR=docs/images
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$root/build/report}
outdir=${OUTDIR:-$root/docs/images}
gui=$build/app/gui/wheretime-gui
cli=$build/app/cli/wheretime
[ -x "$gui" ] || { echo "screenshot-breakdown.sh: $gui not built (cmake --build $build --target wheretime-gui)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
input=${1:-}
if [ -z "$input" ]; then
    [ -x "$cli" ] || { echo "screenshot-breakdown.sh: give FILE[:RUN] or build $cli" >&2; exit 1; }
    "$cli" capture --workload gcn --preset tiny --backend cpu --name screenshot -o "$work/capture.wt" >/dev/null
    input=$work/capture.wt
fi
mkdir -p "$outdir"
export QT_QPA_PLATFORM=offscreen
"$gui" --screenshot "$outdir/breakdown.png" --size 1700x950 --drill softmax "$input"
"$gui" --screenshot "$outdir/breakdown-bars.png" --size 1700x950 --bars "$input"
"$gui" --report "$work/report" "$input" >/dev/null
cp "$work/report/pie-layer.png" "$outdir/report-pie-layer.png"
echo "$outdir: breakdown.png breakdown-bars.png report-pie-layer.png"
