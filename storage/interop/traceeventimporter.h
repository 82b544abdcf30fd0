// PyTorch profiler (Kineto) traces and plain Chrome trace JSON (X events, B/E pairs) into an
// ImportedTrace, in one streaming pass over the events (simdjson On-Demand: no DOM).
// Kineto categories of 2021 and later are understood (kernel/Kernel, cuda_runtime/Runtime,
// cpu_op/Operator, gpu_memcpy/Memcpy, gpu_memset/Memset, user_annotation, gpu_user_annotation);
// timestamps are parsed from the number text, exact to the nanosecond.
#pragma once

#include "importedtrace.h"

#include <string>
#include <string_view>

namespace wt::interop {

class TraceEventImporter {
public:
    // `json` must stay alive and be followed by at least 64 readable bytes (simdjson padding);
    // `file` names the source in errors. Throws ImportError.
    static ImportedTrace parse(const std::string& file, const char* json, size_t size, size_t capacity);
};

}  // namespace wt::interop
