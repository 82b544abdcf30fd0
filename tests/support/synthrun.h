// Generator of realistic synthetic runs for benchmarks and tests: N kernels on S streams
// under a step > phase > layer > op scope tree, with kernel names from a realistic set
// (cuBLAS GEMMs, elementwise, reductions, softmax), written through the storage Writer.
// Deterministic for a given seed.
#pragma once

#include "storage/writer.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace wt::synth {

struct Options {
    int64_t kernels = 100000;       // kernel activities to write (exactly)
    int streams = 8;
    int layers = 12;                // transformer-like decoder layers between embedding and softmax
    uint64_t seed = 1;
    int64_t memcpyEvery = 500;      // one memcpy per this many kernels (0 = none)
    bool scopes = true;             // false: kernels without scope instances (raw insert rate)
    bool apiCalls = false;          // a launching call per kernel (700 ns, on host thread 1 or 2, joined by correlation id)
    std::string name = "synthetic";
    double durationScale = 1.0;     // every kernel's duration times this (a slower rank of a job)
    std::vector<std::pair<std::string, std::string>> metadata;   // run metadata, written before the run finishes
};

struct Result {
    int64_t runId = 0;
    int64_t kernels = 0;
    int64_t memcpys = 0;
    int64_t scopeInstances = 0;
    int64_t apiCalls = 0;
    int64_t kernelTimeNs = 0;       // sum of kernel durations, as generated
};

Result generate(Writer& writer, const Options& options);

}  // namespace wt::synth
