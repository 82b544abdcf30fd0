// TraceEvents (traceevent.h) to an ImportedTrace: the Kineto / Chrome mapping rules of
// docs/interop.md. X events and completed B/E pairs are dispatched by category: kernels,
// memcpy and memset become activities, runtime calls become calls, CPU ops and user
// annotations become ranges, GPU annotations without a CPU twin become ranges on their stream,
// and plain Chrome slices become scopes (wheretime's own export names their parents).
//
// Contract:
// - event() once per event, in file order (a TraceEventSink: the tokenizer calls it), then
//   finish() once with the document's header. Throws ImportError naming `file` and the event
//   (its place among all events, its name): a field the tokenizer could not read, an X event
//   without ts; finish(): a trace without GPU activities.
// - copyStrings false: the events' string views must stay valid until finish() returns (the
//   parser keys names and kept events by them). true: they may die when event() returns; the
//   parser copies what it keeps (the sliced tokenizer with releaseText).
// No JSON here: the parser never sees the text.
#pragma once

#include "importedtrace.h"
#include "traceevent.h"

#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace wt::interop {

class TraceEventParser final : public TraceEventSink {
public:
    TraceEventParser(std::string file, bool copyStrings);

    void event(TraceEvent& e) override;
    // Once past the first percent or so of the text: the activities, calls and ranges reserved
    // for the whole of it at the density seen so far (one allocation each instead of doublings,
    // whose copies and fresh pages cost ~10% of a 2 GB import).
    void progress(size_t done, size_t total) override;
    // The trace: format "kineto" (Kineto markers in the header or the events, and not
    // wheretime's own export) or "chrome", the header's devices, clock and metadata.
    ImportedTrace finish(const TraceHeader& header);

    int64_t events() const { return m_events; }   // events seen so far

private:
    [[noreturn]] void fail(const std::string& what) const;
    // "event 12 ('volta_sgemm_128x64_nn')": the event's place among all events, and its name.
    std::string eventLabel(const TraceEvent& e) const;
    void dispatch(TraceEvent& e);
    uint32_t name(std::string_view s);
    // An event kept past its event() call (open B events, annotations, plain slices) owns its
    // strings when they may die.
    const TraceEvent& kept(TraceEvent& e);
    static int64_t threadKey(const TraceEvent::Id& pid, const TraceEvent::Id& tid)
    {
        return int64_t((uint64_t(pid.num) << 32) ^ uint64_t(uint32_t(tid.num)));
    }

    std::string m_file;
    bool m_copyStrings = false;
    ImportedTrace m_t;
    bool m_kinetoMarkers = false;                                    // seen in the events
    int64_t m_events = 0;
    std::deque<std::string> m_arena;                                 // copies of strings (copyStrings)
    std::unordered_map<int64_t, std::vector<TraceEvent>> m_open;     // B events by thread
    std::vector<TraceEvent> m_other;                                 // plain Chrome slices, kept when not Kineto
    std::vector<TraceEvent> m_gpuAnnotations;
    std::unordered_map<int64_t, int64_t> m_userAnnotationByExternal; // External id -> range index
    // Names by their text: a hash of the length and three 16-byte samples, not of every byte
    // (kernel names run to hundreds of bytes; equal names still compare whole).
    struct NameHash {
        size_t operator()(std::string_view s) const noexcept;
    };
    std::unordered_map<std::string_view, uint32_t, NameHash> m_names;
    bool m_reserved = false;
    // Host threads seen on ranges and calls, and the names of metadata events (ph "M").
    void seeThread(const TraceEvent& e, int64_t key);
    int64_t m_lastThreadKey = 0;
    bool m_anyThread = false;
    std::unordered_map<int64_t, std::string> m_threadNames;    // by thread key
    std::unordered_map<int64_t, std::string> m_processNames;   // by pid
    uint32_t m_levelOp = 0, m_levelAnnotation = 0;
};

}  // namespace wt::interop
