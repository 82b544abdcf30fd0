// Kineto / Chrome TraceEvents to an ImportedTrace: categories, B/E pairing, GPU annotations,
// plain Chrome slices and wheretime's own export.
#include "traceeventparser.h"

#include "importerror.h"

#include <algorithm>
#include <cctype>
#include <cstring>

namespace wt::interop {

namespace {

enum class Cat { Other, Kernel, Memcpy, Memset, Runtime, CpuOp, UserAnnotation, GpuAnnotation, Skip, Scope };

bool iequals(std::string_view a, std::string_view b)
{
    if (a.size() != b.size())
        return false;
    for (size_t i = 0; i < a.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i])))
            return false;
    return true;
}

Cat classify(std::string_view cat)
{
    // Exact spellings first: this runs for every event.
    if (cat == "kernel" || cat == "Kernel")
        return Cat::Kernel;
    if (cat == "cpu_op" || cat == "Operator")
        return Cat::CpuOp;
    if (cat == "cuda_runtime" || cat == "Runtime")
        return Cat::Runtime;
    if (cat.empty())
        return Cat::Other;
    if (iequals(cat, "kernel"))
        return Cat::Kernel;
    if (iequals(cat, "gpu_memcpy") || iequals(cat, "memcpy"))
        return Cat::Memcpy;
    if (iequals(cat, "gpu_memset") || iequals(cat, "memset"))
        return Cat::Memset;
    if (iequals(cat, "cuda_runtime") || iequals(cat, "runtime") || iequals(cat, "cuda_driver"))
        return Cat::Runtime;
    if (iequals(cat, "cpu_op") || iequals(cat, "operator"))
        return Cat::CpuOp;
    if (iequals(cat, "user_annotation"))
        return Cat::UserAnnotation;
    if (iequals(cat, "gpu_user_annotation"))
        return Cat::GpuAnnotation;
    if (cat == "scope")
        return Cat::Scope;
    if (iequals(cat, "trace") || iequals(cat, "python_function") || iequals(cat, "overhead") || iequals(cat, "cpu_instant_event"))
        return Cat::Skip;
    return Cat::Other;
}

}  // namespace

TraceEventParser::TraceEventParser(std::string file, bool copyStrings) : m_file(std::move(file)), m_copyStrings(copyStrings)
{
    m_levelOp = m_t.strings.intern("op");
    m_levelAnnotation = m_t.strings.intern("annotation");
}

void TraceEventParser::fail(const std::string& what) const { throw ImportError(m_file, what); }

std::string TraceEventParser::eventLabel(const TraceEvent& e) const
{
    return "event " + std::to_string(m_events) + " ('" + std::string(e.name.substr(0, 60)) + (e.name.size() > 60 ? "...')" : "')");
}

size_t TraceEventParser::NameHash::operator()(std::string_view s) const noexcept
{
    auto word = [&](size_t at) {
        uint64_t w = 0;
        std::memcpy(&w, s.data() + at, 8);
        return w;
    };
    uint64_t h = 0x9E3779B97F4A7C15ull ^ s.size();
    auto mix = [&](uint64_t w) { h = (h ^ w) * 0xFF51AFD7ED558CCDull; h ^= h >> 29; };
    const size_t n = s.size();
    if (n < 8) {
        uint64_t w = 0;
        if (n > 0)   // an empty name's data() may be null: memcpy's pointers must not be
            std::memcpy(&w, s.data(), n);
        mix(w);
    } else if (n <= 48) {
        for (size_t i = 0; i + 8 <= n; i += 8)
            mix(word(i));
        mix(word(n - 8));
    } else {
        for (size_t at : {size_t(0), size_t(8), n / 2 - 8, n / 2, n - 16, n - 8})
            mix(word(at));
    }
    return size_t(h);
}

void TraceEventParser::progress(size_t done, size_t total)
{
    if (m_reserved || total == 0 || done < total / 64 || done == 0)
        return;
    m_reserved = true;
    // 5% over the density so far; a denser rest grows the vectors as before.
    const double scale = double(total) / double(done) * 1.05;
    auto reserve = [&](auto& v) { v.reserve(size_t(double(v.size()) * scale) + 16); };
    reserve(m_t.activities);
    reserve(m_t.calls);
    reserve(m_t.ranges);
}

uint32_t TraceEventParser::name(std::string_view s)
{
    auto it = m_names.find(s);
    if (it != m_names.end())
        return it->second;
    uint32_t id = m_t.strings.intern(s);
    if (m_copyStrings) {
        // The text under `s` may be dropped once its slice is handled: key by a copy.
        m_arena.emplace_back(s);
        s = m_arena.back();
    }
    m_names.emplace(s, id);   // s: the event's text (alive until finish(): see the header) or m_arena
    return id;
}

const TraceEvent& TraceEventParser::kept(TraceEvent& e)
{
    if (m_copyStrings)
        for (std::string_view* v : {&e.cat, &e.name, &e.level})
            if (!v->empty()) {
                m_arena.emplace_back(*v);
                *v = m_arena.back();
            }
    return e;
}

void TraceEventParser::event(TraceEvent& e)
{
    ++m_events;
    if (e.problem)
        fail(eventLabel(e) + ": " + *e.problem);
    if (e.ph == 'X') {
        if (!e.hasTs)
            fail(eventLabel(e) + " has no ts");
        dispatch(e);
    } else if (e.ph == 'B') {
        if (e.hasTs)
            m_open[threadKey(e.pid, e.tid)].push_back(kept(e));
    } else if (e.ph == 'M') {
        // thread_name / process_name: the names of the host threads' rows.
        if (e.name == "thread_name" && !e.argName.empty())
            m_threadNames[threadKey(e.pid, e.tid)] = std::string(e.argName);
        else if (e.name == "process_name" && !e.argName.empty())
            m_processNames[e.pid.num] = std::string(e.argName);
    } else if (e.ph == 'E') {
        auto it = m_open.find(threadKey(e.pid, e.tid));
        if (it != m_open.end() && !it->second.empty() && e.hasTs) {
            TraceEvent b = it->second.back();
            it->second.pop_back();
            b.dur = std::max<int64_t>(0, e.ts - b.ts);
            b.hasDur = true;
            b.ph = 'X';
            dispatch(b);
        }
    }
}

void TraceEventParser::seeThread(const TraceEvent& e, int64_t key)
{
    // Events of one thread come in runs: one lookup per change of thread.
    if (m_anyThread && key == m_lastThreadKey)
        return;
    m_anyThread = true;
    m_lastThreadKey = key;
    m_t.threads.try_emplace(key, ImportedTrace::Thread{e.pid.num, e.tid.num, {}, {}});
}

void TraceEventParser::dispatch(TraceEvent& e)
{
    Cat cat = classify(e.cat);
    int64_t end = e.ts + std::max<int64_t>(0, e.dur);
    switch (cat) {
    case Cat::Kernel:
    case Cat::Memcpy:
    case Cat::Memset: {
        ImportedTrace::Activity a;
        a.kind = cat == Cat::Kernel ? ActivityKind::Kernel : cat == Cat::Memcpy ? ActivityKind::Memcpy : ActivityKind::Memset;
        a.startNs = e.ts;
        a.endNs = end;
        a.device = int32_t(e.hasDevice ? e.device : e.pid.numeric ? e.pid.num : 0);
        a.stream = e.hasStream ? e.stream : e.tid.num;
        a.name = name(e.name);
        a.correlationId = e.correlation;
        a.config = e.config;
        a.bytes = e.bytes;
        a.range = e.wtScope ? -2 - e.wtScope : -1;   // resolved in finish()
        m_t.activities.push_back(a);
        if (cat == Cat::Kernel)
            ++m_t.counts.kernels;
        else if (cat == Cat::Memcpy)
            ++m_t.counts.memcpys;
        else
            ++m_t.counts.memsets;
        break;
    }
    case Cat::Runtime:
        m_kinetoMarkers = m_kinetoMarkers || e.cat != "cuda_runtime";
        m_t.calls.push_back(ImportedTrace::Call{e.ts, end, threadKey(e.pid, e.tid), name(e.name), e.correlation, e.tid.num});
        seeThread(e, m_t.calls.back().thread);
        ++m_t.counts.runtimeCalls;
        break;
    case Cat::CpuOp:
    case Cat::UserAnnotation: {
        m_kinetoMarkers = true;
        ImportedTrace::Range r;
        r.startNs = e.ts;
        r.endNs = end;
        r.thread = threadKey(e.pid, e.tid);
        r.name = name(e.name);
        r.level = cat == Cat::CpuOp ? m_levelOp : m_levelAnnotation;
        seeThread(e, r.thread);
        if (cat == Cat::UserAnnotation && e.externalId)
            m_userAnnotationByExternal.emplace(e.externalId, int64_t(m_t.ranges.size()));
        m_t.ranges.push_back(r);
        ++m_t.counts.ranges;
        break;
    }
    case Cat::GpuAnnotation:
        m_kinetoMarkers = true;
        m_gpuAnnotations.push_back(kept(e));
        ++m_t.counts.gpuAnnotations;
        break;
    case Cat::Scope:
    case Cat::Other:
        m_other.push_back(kept(e));
        break;
    case Cat::Skip:
        break;
    }
}

ImportedTrace TraceEventParser::finish(const TraceHeader& header)
{
    bool kineto = (m_kinetoMarkers || header.kineto) && !header.wheretime;
    m_t.format = kineto ? "kineto" : "chrome";
    m_t.clockBaseNs = header.clockBaseNs;
    m_t.zeroAtClockBase = header.zeroAtClockBase;
    m_t.devices = header.devices;
    m_t.metadata = header.metadata;

    // GPU annotations: the GPU-side twin of a CPU user_annotation adds nothing to the scope
    // tree; one without a twin becomes a range on its stream (attribution by kernel time).
    for (const TraceEvent& g : m_gpuAnnotations) {
        if (g.externalId && m_userAnnotationByExternal.count(g.externalId))
            continue;
        ImportedTrace::Range r;
        r.startNs = g.ts;
        r.endNs = g.ts + std::max<int64_t>(0, g.dur);
        r.onGpu = true;
        int32_t device = int32_t(g.hasDevice ? g.device : g.pid.numeric ? g.pid.num : 0);
        r.thread = ImportedTrace::gpuLane(device, g.hasStream ? g.stream : g.tid.num);
        r.name = name(g.name);
        r.level = m_levelAnnotation;
        m_t.ranges.push_back(r);
        ++m_t.counts.ranges;
    }

    // Plain Chrome slices become scopes; wheretime's own export names instances and parents.
    std::unordered_map<int64_t, int64_t> byInstance;
    if (!kineto) {
        size_t first = m_t.ranges.size();
        for (const TraceEvent& o : m_other) {
            ImportedTrace::Range r;
            r.startNs = o.ts;
            r.endNs = o.ts + std::max<int64_t>(0, o.dur);
            r.thread = threadKey(o.pid, o.tid);
            r.name = name(o.name);
            r.level = o.level.empty() ? m_levelAnnotation : name(o.level);
            seeThread(o, r.thread);
            if (o.wtInstance)
                byInstance.emplace(o.wtInstance, int64_t(m_t.ranges.size()));
            m_t.ranges.push_back(r);
            ++m_t.counts.ranges;
        }
        for (size_t i = 0; i < m_other.size(); ++i) {
            const TraceEvent& o = m_other[i];
            if (!o.wtInstance)
                continue;
            auto& r = m_t.ranges[first + i];
            r.parentGiven = true;
            auto p = byInstance.find(o.wtParent);
            r.parent = o.wtParent && p != byInstance.end() ? p->second : -1;
        }
    } else {
        m_t.counts.skippedRanges += int64_t(m_other.size());
    }
    for (auto& a : m_t.activities) {
        if (a.range <= -2) {
            auto it = byInstance.find(-2 - a.range);
            a.range = it != byInstance.end() ? it->second : -1;
        }
    }
    for (auto& [k, open] : m_open)
        m_t.counts.skippedRanges += int64_t(open.size());

    for (auto& [key, th] : m_t.threads) {
        if (auto n = m_threadNames.find(key); n != m_threadNames.end())
            th.name = n->second;
        if (auto n = m_processNames.find(th.pid); n != m_processNames.end())
            th.processName = n->second;
    }
    if (m_t.activities.empty())
        fail(m_events == 0 ? "empty trace: no trace events" : "empty trace: no GPU kernels, memcpy or memset among " + std::to_string(m_events) + " events");
    // Absolute epoch clocks (Kineto: microseconds since 1970) give the start date.
    m_t.epochClock = true;
    return std::move(m_t);
}

}  // namespace wt::interop
