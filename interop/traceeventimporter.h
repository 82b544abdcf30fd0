// PyTorch profiler (Kineto) traces and plain Chrome trace JSON (X events, B/E pairs) into an
// ImportedTrace: the entry that connects the two phases, TraceEventTokenizer (bytes to events:
// traceeventtokenizer.h) and TraceEventParser (events to the trace: traceeventparser.h), and
// picks one pass or slices on two threads.
// Kineto categories of 2021 and later are understood (kernel/Kernel, cuda_runtime/Runtime,
// cpu_op/Operator, gpu_memcpy/Memcpy, gpu_memset/Memset, user_annotation, gpu_user_annotation);
// timestamps are parsed from the number text, exact to the nanosecond.
#pragma once

#include "importedtrace.h"
#include "traceeventtokenizer.h"

#include <string>

namespace wt::interop {

class TraceEventImporter {
public:
    static constexpr size_t kSliceBytes = size_t(4) << 20;

    // `json` must stay alive; `capacity` (>= size) says how many bytes are readable from it:
    // with less than size + 64 (simdjson padding) a one-pass parse copies the text first.
    // `file` names the source in errors. Throws ImportError.
    // Texts of at least 2 x sliceBytes are parsed in slices of about sliceBytes on two threads
    // (the structural index then covers one slice, not the file); 0 = always in one pass.
    // Both ways give the same trace; a text that does not split cleanly falls back to one pass.
    // releaseText: the caller no longer needs the text; the whole pages of handled slices are
    // given back to the kernel (madvise DONTNEED: a private file mapping or a heap buffer).
    // threads: how many parse the slices (TraceEventTokenizer::setThreads()); the trace is the
    // same for any count.
    static ImportedTrace parse(const std::string& file, const char* json, size_t size, size_t capacity,
                               size_t sliceBytes = kSliceBytes, bool releaseText = false, int threads = 2);

    // A document read once from `in` in slices of about sliceBytes (TraceEventTokenizer::
    // tokenizeStream()): memory holds a few slices, never the whole text. false when it does not
    // split cleanly (or on any error): the caller then reads the document again and calls
    // parse(), which gives the same trace, or the exact error.
    static bool parseStream(const std::string& file, TextStream& in, ImportedTrace& out, size_t sliceBytes = kSliceBytes,
                            int threads = 2);
};

}  // namespace wt::interop
