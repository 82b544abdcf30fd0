#!/usr/bin/env bash
# CTest driver of `scripts/gpu-check.sh --dry-run`: the GPU check's plumbing on the CPU.
#  1. a full dry run passes, its table has one row per workload and variant with a loss check,
#     and captures.wt holds those runs;
#  2. a capture that fails mid-check stops it at once: exit 1, one "gpu-check: FAILED at stage"
#     line naming the failing run, and a table that says FAILED.
#     Its roofline section has one row per capture (against this CPU's calibration).
# Needs WHERETIME (the CLI) and TST_CAPTURE_GPU; OUT: a scratch folder.
set -uo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:?set OUT}
rm -rf "$out"
mkdir -p "$out"
die() { echo "FAIL: $*" >&2; exit 1; }

bash "$src/scripts/gpu-check.sh" --dry-run "$out/ok" >"$out/ok.log" 2>&1 || { tail -20 "$out/ok.log"; die "the dry run failed"; }
md="$out/ok/gpu-check.md"
grep -q 'Status: \*\*passed\*\*' "$md" || die "the table does not say passed"
variants=$("$WHERETIME" workloads --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["variants"]))')
rows=$(grep -cE '^\| (gcn|transformer) \|' "$md")
[ "$rows" = $((2 * variants)) ] || die "$rows table rows, expected $((2 * variants))"
checked=$(grep -E '^\| (gcn|transformer) \|' "$md" | grep -cE '\| [0-9.]+ vs CPU [0-9.]+ \|$')
[ "$checked" = "$rows" ] || die "$checked of $rows rows have a loss check"
grep -q 'pytorch: skipped in the dry run' "$md" || grep -q 'pytorch:' "$md" || die "no PyTorch stage line"
runs=$("$WHERETIME" runs "$out/ok/captures.wt" --json | python3 -c 'import json,sys; print(sum(r["status"] == "complete" for r in json.load(sys.stdin)))')
[ "$runs" = "$rows" ] || die "captures.wt holds $runs complete runs, expected $rows"
# The scaling stage: one softmax series per variant, 2 hidden sizes each.
python3 - "$out/ok/scaling-gcn.json" "$variants" <<'PY' || die "scaling-gcn.json is not one series per variant with 2 points"
import json, sys
t = json.load(open(sys.argv[1]))
assert t["x_key"] == "hidden" and t["x_values"] == ["8", "16"], t["x_values"]
series = {}
for r in (r for r in t["rows"] if r["source"] == "measured"):
    series.setdefault(r["series"], []).append(r)
assert len(series) == int(sys.argv[2]), len(series)
assert all(len(p) == 2 and all(r["layer"] == "softmax" for r in p) for p in series.values())
PY
grep -q '^- scaling: gcn tiny' "$md" || die "no scaling line in the table's notes"
# The roofline stage: one row per capture, against this CPU's calibration, with a finite x bound.
grep -q '^## Roofline (cpu:' "$md" || die "no roofline section against the CPU's calibration"
roof=$(grep -cE '^\| (gcn|transformer)/[a-z0-9_]+ \| [0-9.]+ ms \| [0-9.]+ ms \| [0-9.]+x \|' "$md")
[ "$roof" = "$rows" ] || die "$roof roofline rows, expected $rows"
! grep -q '^- roofline' "$md" || die "a roofline failed: $(grep '^- roofline' "$md")"
echo "dry run: passed, $rows rows, $runs runs"

# A CLI that fails like a device error on the fused variant's CUDA-side run of the numbers stage.
cat >"$out/failing-cli" <<SH
#!/usr/bin/env bash
case " \$* " in
  *" --variant fused "*"--backend cpu"*"--no-trace"*|*" --variant fused "*"--no-trace"*"--backend cpu"*)
    if [ -f "$out/failed-once" ]; then
      echo "wheretime: CUDA error in fused_logsoftmax_loss_grad: an illegal memory access was encountered" >&2; exit 1
    fi
    touch "$out/failed-once" ;;
esac
exec "$WHERETIME" "\$@"
SH
chmod +x "$out/failing-cli"
WHERETIME="$out/failing-cli" bash "$src/scripts/gpu-check.sh" --dry-run "$out/bad" >"$out/bad.log" 2>"$out/bad.err"
rc=$?
[ "$rc" = 1 ] || die "a failing capture gave exit $rc, expected 1"
[ "$(grep -c '^gpu-check: FAILED' "$out/bad.err")" = 1 ] || die "expected one FAILED line, got: $(cat "$out/bad.err")"
grep -q '^gpu-check: FAILED at stage numbers: .*--variant fused.*illegal memory access' "$out/bad.err" ||
  die "the FAILED line does not name the run and the error: $(cat "$out/bad.err")"
grep -q 'Status: \*\*FAILED at stage numbers\*\*' "$out/bad/gpu-check.md" || die "the table does not say FAILED"
! grep -q 'capture gcn/' "$out/bad.log" || die "the check went on after the failure"
echo "failure: stopped at once with: $(cat "$out/bad.err")"
