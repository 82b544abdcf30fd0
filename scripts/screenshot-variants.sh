#!/usr/bin/env bash
# Regenerates the variants and scaling images in docs/images/ from CPU captures of the bundled
# GCN, rendered by wheretime-gui:
#   variants.png  the variants view: every softmax variant of one preset side by side (softmax
#                 forward/backward with speedups against adaptive, ops stacked, share, step time)
#   scaling.png   the scaling view of a hidden x variant sweep: softmax time and share per
#                 variant against the hidden size (log axes)
#
#   scripts/screenshot-variants.sh   env: BUILD=build/asan  OUTDIR=docs/images  PRESET=small
#                                         VARIANTS_FILE=  SWEEP_FILE=  (existing captures to use)
# Without VARIANTS_FILE it captures every variant (PRESET, 3 steps); without SWEEP_FILE a sweep
# hidden=256,512,1024,2048 x every variant (PRESET small: minutes per run on a CPU; set
# SWEEP_HIDDEN=16,32,64 with PRESET=tiny for a quick one). The committed images came from
# gcn small captures on the CPU backend (docs/softmax-variants.md names the machine).
# Under a display server (e.g. xvfb-run -a -s '-screen 0 1700x1200x24' scripts/screenshot-variants.sh)
# or QT_QPA_PLATFORM=offscreen.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$root/build/asan}
outdir=${OUTDIR:-$root/docs/images}
preset=${PRESET:-small}
gui=$build/app/gui/wheretime-gui
cli=$build/app/cli/wheretime
for exe in "$gui" "$cli"; do
    [ -x "$exe" ] || { echo "screenshot-variants.sh: $exe not built" >&2; exit 1; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
variants=${VARIANTS_FILE:-}
if [ -z "$variants" ]; then
    variants=$work/variants.wt
    for variant in full adaptive bucketed fused; do
        "$cli" capture --workload gcn --preset "$preset" --variant "$variant" --backend cpu --steps 3 --name "$variant" -o "$variants" >/dev/null
    done
fi
sweep=${SWEEP_FILE:-}
if [ -z "$sweep" ]; then
    sweep=$work/sweep.wt
    "$cli" capture --workload gcn --preset "$preset" --backend cpu --steps 1 \
        --sweep "hidden=${SWEEP_HIDDEN:-256,512,1024,2048}" --sweep variant=full,adaptive,bucketed,fused -o "$sweep" >/dev/null
fi
mkdir -p "$outdir"
[ -n "${DISPLAY:-}" ] || export QT_QPA_PLATFORM=${QT_QPA_PLATFORM:-offscreen}
"$gui" --screenshot "$outdir/variants.png" --size 1600x1100 --variants "$variants"
"$gui" --screenshot "$outdir/scaling.png" --size 1600x800 --log --sweep newest "$sweep"
echo "$outdir: variants.png scaling.png"
