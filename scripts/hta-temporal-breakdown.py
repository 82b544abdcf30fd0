#!/usr/bin/env python3
"""HTA's temporal breakdown of a Kineto trace, recomputed from the raw JSON with the standard
library only: the reference that tests/interop/tst_steprecognition.cpp (kinetoAgainstHta) and
docs/definitions.md compare wheretime's busy, idle and compute against.

Holistic Trace Analysis (hta/analyzers/breakdown_analysis.py, get_temporal_breakdown) takes
the GPU events of a rank (every event with a stream: kernels, memcpy, memset), and counts
  span        = last end - first start of those events ("kernel_time" in HTA's columns)
  idle        = span - the union of the events
  compute     = the union of the events that are neither communication (name has nccl or
                gloo) nor memory (name has Memcpy or Memset)
  non-compute = span - compute - idle
Before that, by default, its trace loader (Trace._filter_irrelevant_gpu_kernels) keeps only
the GPU events whose correlation id belongs to a CPU event that started before the last
ProfilerStep did (include_last_profiler_step=False); with True, those started before the last
ProfilerStep ended. Both are printed.

  scripts/hta-temporal-breakdown.py TRACE.json[.gz] ...

Times in ns (Kineto's microseconds with their fractions, read exactly).
"""
import gzip
import json
import sys
from decimal import Decimal


def ns(us):
    return int(Decimal(us) * 1000)


def union_length(intervals):
    total, end, start = 0, None, None
    for s, e in sorted(intervals):
        if end is None or s > end:
            if end is not None:
                total += end - start
            start, end = s, e
        else:
            end = max(end, e)
    return total + (end - start if end is not None else 0)


def kind(name):
    low = name.lower()
    if "nccl" in low or "gloo" in low:
        return "communication"
    if "Memcpy" in name or "Memset" in name:
        return "memory"
    return "compute"


def breakdown(events):
    iv = [(ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])) for e in events]
    if not iv:
        return None
    span = max(b for _, b in iv) - min(a for a, _ in iv)
    idle = span - union_length(iv)
    compute = union_length([(ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])) for e in events if kind(e["name"]) == "compute"])
    return {"events": len(events), "span_ns": span, "idle_ns": idle, "compute_ns": compute,
            "non_compute_ns": span - compute - idle, "idle_pct": round(100 * idle / span, 2),
            "compute_pct": round(100 * compute / span, 2),
            "non_compute_pct": round(100 * (span - compute - idle) / span, 2)}


def main(paths):
    for path in paths:
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rt") as f:
            trace = json.load(f, parse_float=Decimal)
        complete = [e for e in trace["traceEvents"] if e.get("ph") == "X"]
        on_gpu = lambda e: e.get("args", {}).get("stream", -1) != -1
        gpu = [e for e in complete if on_gpu(e)]
        cpu = [e for e in complete if not on_gpu(e)]
        steps = [e for e in cpu if "ProfilerStep" in e["name"]]
        for include_last in (False, True):
            kept = gpu
            if len(steps) > 1:   # HTA filters only with two or more steps
                last_start = max(ns(e["ts"]) for e in steps)
                last_end = max(ns(e["ts"]) + ns(e["dur"]) for e in steps)
                launched = {e["args"]["correlation"] for e in cpu if "correlation" in e.get("args", {})
                            and (ns(e["ts"]) <= last_end if include_last else ns(e["ts"]) < last_start)}
                kept = [e for e in gpu if e["args"].get("correlation") in launched]
            row = breakdown(kept)
            print(json.dumps({"trace": path.rsplit("/", 1)[-1], "include_last_profiler_step": include_last, **(row or {})}))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
