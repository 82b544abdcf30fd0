// Kineto / Chrome trace JSON bytes to TraceEvents (traceevent.h), with simdjson On-Demand (no
// DOM), in one pass or in slices parsed on two threads; and the boundary scanner that finds
// where the traceEvents array starts and where it may be cut between events.
//
// Contract:
// - Call tokenize() or tokenizeSliced() once per tokenizer, then read header().
// - The sink gets every event in file order, on the calling thread, both ways alike.
// - An event's string views point into the text or into this tokenizer's copies: they stay
//   valid while both live, except with releaseText, where the text under a slice may be given
//   back to the kernel once its events are handled: then they are valid during event() only.
// - Errors are ImportErrors naming `file`; a field of an event that cannot be read is not an
//   error here but TraceEvent::problem (the parser knows the event's place and name).
#pragma once

#include "traceevent.h"

#include <cstddef>
#include <deque>
#include <memory>
#include <string>
#include <vector>

namespace wt::interop {

// A document read once, front to back, without holding it whole (a gzip stream inflated as it
// is needed): tokenizeStream() cuts it into slices as it reads.
class TextStream {
public:
    virtual ~TextStream() = default;
    // Up to `max` next bytes into `dst`; 0 at the end. May throw: tokenizeStream() then
    // returns false.
    virtual size_t read(char* dst, size_t max) = 0;
    // How far into its source the stream has read, of how much (a gzip file: compressed
    // bytes); total 0 when not known. Lets the sink reserve for the whole (TraceEventSink::progress()).
    virtual size_t sourceRead() const { return 0; }
    virtual size_t sourceSize() const { return 0; }
};

class TraceEventTokenizer {
public:
    explicit TraceEventTokenizer(std::string file);
    ~TraceEventTokenizer();
    TraceEventTokenizer(const TraceEventTokenizer&) = delete;
    TraceEventTokenizer& operator=(const TraceEventTokenizer&) = delete;

    // The whole document in one simdjson pass. `capacity` (>= size): the bytes readable at
    // `json`; with less than size + 64 (simdjson's padding) the text is copied first. Throws ImportError with the exact reason (not JSON, truncated,
    // no traceEvents, a bad top-level field, a second document after the first), and passes on
    // what the sink throws.
    void tokenize(const char* json, size_t size, size_t capacity, TraceEventSink& sink);

    // traceEvents cut at nextBoundary() about every sliceBytes (> 0), each slice parsed as its own
    // array in a private padded copy (so `json` needs no padding and the structural index covers
    // one slice), on this thread and setThreads() - 1 more, at most a few slices ahead of the sink. The other
    // top-level fields come from a small document of the text around the array. false when the
    // text does not split cleanly or on any error, the sink's included: the sink has then seen
    // part of the events and is to be dropped, and tokenize() on a fresh tokenizer and sink
    // gives the exact error. releaseText: the whole pages of handled slices are given back to
    // the kernel (madvise DONTNEED; a private file mapping or a heap buffer).
    bool tokenizeSliced(const char* json, size_t size, size_t sliceBytes, bool releaseText, TraceEventSink& sink);

    // The same as tokenizeSliced() on a stream: it is read one slice at a time, as the two
    // threads need slices (at most a few ahead of the sink), so memory holds those slices and
    // the text before traceEvents, never the whole document. Event strings are valid during
    // event() only (as with releaseText). false as with tokenizeSliced(): the stream is then
    // partly read, and the caller reads the document again for tokenize().
    bool tokenizeStream(TextStream& in, size_t sliceBytes, TraceEventSink& sink);

    // Threads that parse slices in tokenizeSliced() / tokenizeStream(), the calling one
    // included (1: that one only); default 2. The events, their order and the sink's thread
    // are the same for any count.
    void setThreads(int threads) { m_threads = threads < 1 ? 1 : threads; }

    // The top-level fields other than traceEvents, after a successful call.
    const TraceHeader& header() const { return m_header; }
    // Slices parsed by the last tokenizeSliced() / tokenizeStream() (0 after tokenize()).
    int64_t slices() const { return m_slices; }

    // --- the boundary scanner (public for its tests) -------------------------------------
    // Where the traceEvents array starts: the offset of its '[' (of the document itself when
    // that is an array), and in keyBegin the offset of the key's opening quote (npos for an
    // array document). Scans only the text before the array, tracking strings (with escapes)
    // and depth, so only a top-level key matches. npos when not found (truncated text
    // included).
    static size_t findEventsArray(const char* json, size_t size, size_t& keyBegin);
    // The first likely event boundary at or after `from`: the offset of the ',' of '}' ',' '{'
    // (whitespace allowed around the comma) whose '}' is at or after `from`; npos when none.
    // Only a candidate: the bytes may sit inside a string or a nested array, which
    // tokenizeSliced() finds when it parses the two slices around the cut.
    static size_t nextBoundary(const char* json, size_t size, size_t from);

private:
    struct Slice;
    class Reader;
    class Cutter;
    class TextCutter;
    class StreamCutter;
    void parseDocument(const char* json, size_t size, size_t capacity, TraceEventSink& sink);
    // The slices of the cutter parsed on two threads, their events to the sink in order; `tail`:
    // the text after the array's ']'.
    bool parseSlices(Cutter& cutter, std::string& tail, TraceEventSink& sink);
    // The other top-level fields: `head` (the text before the traceEvents key) + `tail`.
    void parseHeadAndTail(std::string head, const std::string& tail, TraceEventSink& sink);
    [[noreturn]] void fail(const std::string& what) const;

    std::string m_file;
    TraceHeader m_header;
    bool m_releaseText = false;
    int64_t m_slices = 0;
    std::deque<std::string> m_arena;         // unescaped strings and problems read on this thread (rare)
    std::deque<std::deque<std::string>> m_workerArenas;   // the same, one per worker thread
    int m_threads = 2;
    std::unique_ptr<Reader> m_reader;        // this thread's (over m_arena)
    std::string m_padded;                    // tokenize(): the padded copy of a text without padding
    std::vector<std::vector<TraceEvent>> m_spareEvents;   // event buffers of handled slices, reused
    std::vector<std::string> m_spareTexts;                 // slice texts of handled slices (streams), reused
};

}  // namespace wt::interop
