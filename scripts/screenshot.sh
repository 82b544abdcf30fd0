#!/usr/bin/env bash
# Regenerates docs/images/timeline.png: the timeline of a real run, rendered offscreen (or under
# Xvfb when XVFB=1). The run comes from, in order: the FILE[:RUN] argument; a CPU capture of the
# bundled transformer (`wheretime capture`, when the CLI has it); the imported Nsight trace in
# ../shared/traces (`wheretime import`); a synthetic run (bench_gui).
#
#   scripts/screenshot.sh [FILE[:RUN]]      env: BUILD=build/gui  OUT=docs/images/timeline.png
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$root/build/gui}
out=${OUT:-$root/docs/images/timeline.png}
size=${SIZE:-1600x900}   # the first window: timeline, breakdown below it, runs and details
gui=$build/app/gui/wheretime-gui
cli=$build/app/cli/wheretime
[ -x "$gui" ] || { echo "screenshot.sh: $gui not built (cmake --build $build --target wheretime-gui)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
args=()
input=${1:-}
if [ -z "$input" ] && [ -x "$cli" ] && "$cli" capture --help >/dev/null 2>&1; then
    # A real capture of the bundled transformer on the CPU tracer: step > phase > layer > op.
    if "$cli" capture --workload transformer --preset tiny --backend cpu --steps 2 --warmup 1 \
        --name screenshot -o "$work/capture.wt" >/dev/null; then
        input=$work/capture.wt
    fi
fi
if [ -z "$input" ] && [ -x "$cli" ] && "$cli" import --help >/dev/null 2>&1 \
    && [ -f "$root/../shared/traces/nsys-2026.2_h100x2_fastvideo-1s.sqlite" ]; then
    "$cli" import "$root/../shared/traces/nsys-2026.2_h100x2_fastvideo-1s.sqlite" -o "$work/import.wt" >/dev/null
    input=$work/import.wt
fi
if [ -z "$input" ]; then
    "$build/bench/gui/bench_gui" --kernels 20000 --file "$work/synthetic.wt" --write-only
    input=$work/synthetic.wt
fi
[ -n "${RANGE:-}" ] && args+=(--range "$RANGE")
mkdir -p "$(dirname "$out")"
if [ "${XVFB:-0}" = 1 ]; then
    xvfb-run -a -s "-screen 0 ${size}x24" "$gui" --screenshot "$out" --size "$size" "${args[@]}" "$input"
else
    QT_QPA_PLATFORM=offscreen "$gui" --screenshot "$out" --size "$size" "${args[@]}" "$input"
fi
