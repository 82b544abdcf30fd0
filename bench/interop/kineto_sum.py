#!/usr/bin/env python3
"""Baseline for bench_interop: the Python standard-library way to read a Kineto trace.
Loads the whole JSON with json.load (gzip when the name ends in .gz) and sums kernel time
per kernel name. Prints the number of kernels and the total kernel time in microseconds."""
import collections
import gzip
import json
import sys


def main(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        trace = json.load(f)
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    per_name = collections.defaultdict(float)
    kernels = 0
    for e in events:
        if e.get("ph") == "X" and e.get("cat") in ("kernel", "Kernel"):
            per_name[e.get("name")] += e.get("dur", 0)
            kernels += 1
    print(kernels, round(sum(per_name.values()), 3), len(per_name))


if __name__ == "__main__":
    main(sys.argv[1])
