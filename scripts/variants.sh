#!/usr/bin/env bash
# Captures every softmax variant of the default workload (gcn) on this machine into one file,
# prints `wheretime variants` over them, then opens the GUI's variants view; with no display it
# writes the variants report instead (the GUI's `--report OUTDIR FILE --variants`).
#
#   scripts/variants.sh [--preset P] [--workload W] [--steps N] [--backend B] [-o FILE] [--report DIR]
#       --preset   default: paper on a GPU, small on the CPU (capture's own default)
#       -o FILE    default out/variants-<workload>.wt (appended to; the newest runs are shown)
#       --report   where the report goes without a display (default out/variants-report)
#   env: BUILD=build/release (else build/asan, build/dev) for the binaries
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
preset= workload=gcn steps=3 backend=auto file= report=
while [ $# -gt 0 ]; do
    case "$1" in
        --preset) preset=$2; shift 2 ;;
        --workload) workload=$2; shift 2 ;;
        --steps) steps=$2; shift 2 ;;
        --backend) backend=$2; shift 2 ;;
        -o) file=$2; shift 2 ;;
        --report) report=$2; shift 2 ;;
        -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "variants.sh: unknown option '$1' (--help)" >&2; exit 2 ;;
    esac
done
if [ -n "${BUILD:-}" ]; then
    build=$BUILD
else
    build=
    for b in release dev asan; do
        if [ -x "$root/build/$b/app/cli/wheretime" ]; then build=$root/build/$b; break; fi
    done
    [ -n "$build" ] || { echo "variants.sh: no build found (cmake --preset release && cmake --build build/release)" >&2; exit 1; }
fi
cli=$build/app/cli/wheretime
gui=$build/app/gui/wheretime-gui
[ -x "$cli" ] || { echo "variants.sh: $cli not built" >&2; exit 1; }
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
file=${file:-$root/out/variants-$workload.wt}
report=${report:-$root/out/variants-report}
mkdir -p "$(dirname "$file")"

variants=$("$cli" workloads --json | python3 -c 'import json,sys; print(",".join(v["name"] for v in json.load(sys.stdin)["variants"]))')
[ -n "$variants" ] || { echo "variants.sh: no softmax variants listed" >&2; exit 1; }
args=(capture --workload "$workload" --backend "$backend" --steps "$steps" --sweep "variant=$variants" -o "$file")
[ -z "$preset" ] || args+=(--preset "$preset")
echo "variants.sh: $cli ${args[*]}"
"$cli" "${args[@]}"
echo
"$cli" variants "$file" --workload "$workload"

if [ "${VARIANTS_NO_GUI:-}" = 1 ]; then
    exit 0
fi
if [ ! -x "$gui" ]; then
    echo "variants.sh: $gui not built; the table above is the variants view's" >&2
    exit 0
fi
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
    exec "$gui" "$file" --variants
fi
echo "variants.sh: no display: writing the variants report to $report"
QT_QPA_PLATFORM=${QT_QPA_PLATFORM:-offscreen} "$gui" --report "$report" "$file" --variants
echo "variants.sh: $report/index.html"
