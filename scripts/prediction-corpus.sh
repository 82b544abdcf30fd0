#!/usr/bin/env bash
# Captures a prediction corpus on this machine (every bundled workload on the CPU backend at the
# tiny and small presets, a few sizes and softmax variants, 3 steps each), calibrates the CPU, and
# runs every evaluation on it: `wheretime predict --evaluate` held out per run, per workload
# (gcn, transformer, bert, groupbert, block-sparse bert), per preset and per variant, for the
# regression and the MLP, each as text and JSON (docs/prediction.md, "Measured: held out by ...").
# Captures about 1 minute per repeat on the loaded 2-core VM; the evaluations a few minutes (Release).
#
#   scripts/prediction-corpus.sh [-o DIR] [--repeat N] [--reduced] [--capture-only | --evaluate-only]
#       -o DIR           where the corpus and the results go (default out/prediction-corpus):
#                        DIR/corpus.wt, DIR/eval-<hold-out>-<model>.txt and .json
#       --repeat N       N captures of each configuration, going round the list (default 5:
#                        the evaluation compares with the median over repeats)
#       --reduced        one size per workload at the small preset (about a third of the time)
#       --capture-only   the captures and the calibration, no evaluations
#       --evaluate-only  no captures: the evaluations of an existing DIR/corpus.wt
#   env: BUILD=build/release (else build/rel, build/dev, build/h) for the binary;
#        OPENBLAS_NUM_THREADS (default 1: one BLAS thread, see below)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=$root/out/prediction-corpus repeat=5 reduced=0 evalonly=0 captureonly=0
while [ $# -gt 0 ]; do
    case "$1" in
        -o) dir=$2; shift 2 ;;
        --repeat) repeat=$2; shift 2 ;;
        --reduced) reduced=1; shift ;;
        --evaluate-only) evalonly=1; shift ;;
        --capture-only) captureonly=1; shift ;;
        -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "prediction-corpus.sh: unknown option '$1' (--help)" >&2; exit 2 ;;
    esac
done
case "$repeat" in ''|*[!0-9]*|0) echo "prediction-corpus.sh: --repeat takes a positive count, got '$repeat'" >&2; exit 2 ;; esac
if [ -n "${BUILD:-}" ]; then
    build=$BUILD
else
    build=
    for b in release rel dev h; do
        if [ -x "$root/build/$b/app/cli/wheretime" ]; then build=$root/build/$b; break; fi
    done
    [ -n "$build" ] || { echo "prediction-corpus.sh: no build found (cmake --preset release && cmake --build build/release)" >&2; exit 1; }
fi
cli=$build/app/cli/wheretime
[ -x "$cli" ] || { echo "prediction-corpus.sh: $cli not built" >&2; exit 1; }
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
# One BLAS thread: on a shared machine OpenBLAS's threads wait for each other whenever one is
# descheduled, and one GEMM then measures anywhere from 0.3 to 180 ms (docs/prediction.md); the
# calibration runs with the same setting, so the roofline and the features match the captures.
export OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-1}
mkdir -p "$dir"
file=$dir/corpus.wt
start=$(date +%s)

# One capture call per line: workload, preset, then capture options (sweeps, sets). The repeats
# go round the whole list (every configuration once, then again): a configuration's repeats are
# minutes apart, so a slow spell of the shared machine slows one repeat of many configurations
# instead of every repeat of one workload. predict --evaluate pools the runs of one configuration
# (same configuration JSON) as its repeats and compares with the median over their steps.
capture() {
    local w=$1 p=$2
    shift 2
    echo "== capture $w $p $* (repeat $r of $repeat, load $(cut -d' ' -f1 /proc/loadavg))"
    "$cli" capture --workload "$w" --preset "$p" --backend cpu --steps 3 --warmup 1 "$@" -o "$file" >/dev/null
}

if [ "$evalonly" = 0 ]; then
    [ ! -e "$file" ] || { echo "prediction-corpus.sh: $file exists (remove it, or --evaluate-only)" >&2; exit 1; }
    for r in $(seq 1 "$repeat"); do
        if [ "$reduced" = 1 ]; then
            capture gcn small --sweep variant=full,adaptive
            capture transformer small --set hidden=128 --sweep variant=full,adaptive
            capture bert small --set hidden=128 --sweep variant=full,adaptive
            capture groupbert small --set hidden=128 --sweep variant=full,adaptive
            capture bert small --set hidden=128 --set density=0.5 --set block=16 --sweep variant=full,adaptive
        else
            for w in gcn transformer bert groupbert; do
                capture $w tiny --sweep variant=full,adaptive
            done
            capture bert tiny --set density=0.5 --set block=4 --sweep variant=full,adaptive
            capture gcn small --sweep hidden=128,256,384 --sweep variant=full,adaptive,fused
            capture transformer small --sweep hidden=128,256 --sweep variant=full,adaptive
            capture bert small --sweep hidden=128,256 --sweep variant=full,adaptive
            capture groupbert small --sweep hidden=128,256 --sweep variant=full,adaptive
            capture bert small --set density=0.5 --set block=16 --sweep hidden=128,256 --sweep variant=full,adaptive
            capture bert small --set density=0.25 --set block=16 --set hidden=256 --sweep variant=full,adaptive
        fi
    done
    "$cli" calibrate "$file"
    echo "captured in $(( $(date +%s) - start )) s (load: $(cut -d' ' -f1-3 /proc/loadavg))"
fi
[ "$captureonly" = 0 ] || exit 0

for m in regression mlp; do
    for h in run workload preset variant; do
        echo "== predict --evaluate --hold-out $h --model $m"
        "$cli" predict --evaluate "$file" --hold-out "$h" --model "$m" > "$dir/eval-$h-$m.txt"
        "$cli" predict --evaluate "$file" --hold-out "$h" --model "$m" --json > "$dir/eval-$h-$m.json"
        # The MAPE table and the per-group rows: the figures docs/prediction.md quotes.
        sed -n '/^held-out /,/^$/p;/^MAPE /,$p' "$dir/eval-$h-$m.txt"
    done
done
echo "done in $(( $(date +%s) - start )) s: $dir"
