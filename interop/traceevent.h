// What the Kineto / Chrome trace tokenizer hands the parser (Perfetto's split: the tokenizer
// turns bytes into events, the parser turns events into an ImportedTrace):
//   TraceEvent      one event of the traceEvents array, the fields wheretime reads, times in ns;
//   TraceEventSink  the interface the tokenizer calls once per event, in file order;
//   TraceHeader     the document's other top-level fields (Kineto's and wheretime's own).
// Neither side knows the other: traceeventimporter.cpp connects them.
#pragma once

#include "storage/types.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace wt::interop {

struct TraceEvent {
    // pid/tid: a number, or a string such as "stream 7" (its trailing integer, numeric = false),
    // "25738" (25738) or "Traces" (a stable hash above 2^40, numeric = false).
    struct Id {
        int64_t num = 0;
        bool numeric = true;
    };

    char ph = 0;                            // first character of "ph"; 0 when absent
    // Views valid as traceeventtokenizer.h says (into the text, or the tokenizer's own copies of
    // strings that had escapes).
    std::string_view cat, name;
    Id pid, tid;
    bool hasTs = false, hasDur = false;
    int64_t ts = 0, dur = 0;                // ns (exact: parsed from the decimal text)
    // args
    int64_t correlation = 0, externalId = 0;
    bool hasDevice = false, hasStream = false;
    int64_t device = 0, stream = 0, bytes = 0;
    LaunchConfig config;
    bool hasSmemSplit = false;              // "static shared memory" given (wins over "shared memory")
    int64_t wtScope = 0, wtInstance = 0, wtParent = 0;   // wheretime's own export (wt_scope, ...)
    std::string_view level;
    std::string_view argName;               // args.name: a metadata event's thread or process name
    // A field that could not be read: the rest of the event was skipped. The parser reports it
    // with the event's place in the file and its name (which the tokenizer does not know).
    const std::string* problem = nullptr;
};

// The phases the parser reads: complete slices X, B/E pairs and metadata M. The tokenizer stops
// reading any other event at its "ph" (Kineto's flow events s/f are about a third of a trace's
// events, instants i up to a fifth): its later fields are skipped unread, so a bad value there
// does not fail the import. The sink still receives such an event, with only ph set.
constexpr bool keptPhase(char ph) { return ph == 'X' || ph == 'B' || ph == 'E' || ph == 'M'; }

class TraceEventSink {
public:
    virtual ~TraceEventSink() = default;
    // Every element of traceEvents, in file order, on the thread that called the tokenizer. The
    // sink may change `e` (it is the tokenizer's buffer) and may throw (ImportError) to stop.
    virtual void event(TraceEvent& e) = 0;
    // After the events of the first `done` of `total` bytes of the source (sliced walks over a
    // text of known size; a gzip stream counts its compressed bytes): lets the sink reserve for
    // the rest once. Order as event().
    virtual void progress(size_t /*done*/, size_t /*total*/) {}
};

// The top-level fields other than traceEvents, in document order where order matters.
struct TraceHeader {
    bool kineto = false;      // deviceProperties, baseTimeNanoseconds, schemaVersion, distributedInfo or traceName
    bool wheretime = false;   // a "wheretime" object: wheretime's own Chrome export
    int64_t clockBaseNs = 0;  // baseTimeNanoseconds, or wheretime.origin_ns (the later one in the text)
    bool zeroAtClockBase = false;          // wheretime.origin_ns given: raw time 0 is the run's time 0
    std::vector<DeviceInfo> devices;       // deviceProperties entries with an id
    std::vector<std::pair<std::string, std::string>> metadata;   // kineto.<key> (JSON text), source.<key>
};

}  // namespace wt::interop
