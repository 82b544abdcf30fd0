#include "traceeventimporter.h"

#include "exacttime.h"
#include "importerror.h"

#include <simdjson.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <ctime>
#include <deque>
#include <mutex>
#include <sys/mman.h>
#include <unistd.h>
#include <optional>
#include <thread>
#include <unordered_map>
#include <vector>

namespace wt::interop {

namespace od = simdjson::ondemand;

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

// pid/tid: a number, or a string such as "stream 7", "25738" or "Traces".
struct Id {
    int64_t num = 0;
    bool numeric = true;
};

Id parseIdText(std::string_view s)
{
    Id id;
    // Trailing integer ("stream 7" -> 7, "25738" -> 25738); otherwise a stable hash.
    size_t e = s.size();
    size_t b = e;
    while (b > 0 && s[b - 1] >= '0' && s[b - 1] <= '9')
        --b;
    if (b < e && e - b <= 18) {
        int64_t v = 0;
        for (size_t i = b; i < e; ++i)
            v = v * 10 + (s[i] - '0');
        id.num = (b > 0 && s[b - 1] == '-') ? -v : v;
        id.numeric = b == 0 || (b == 1 && s[0] == '-');
        if (!id.numeric && b > 0 && s[b - 1] == ' ')
            id.numeric = false;
        return id;
    }
    uint64_t h = 1469598103934665603ull;
    for (char c : s)
        h = (h ^ uint8_t(c)) * 1099511628211ull;
    id.num = int64_t(h >> 33) | (int64_t(1) << 40);
    id.numeric = false;
    return id;
}

std::string_view trimToken(std::string_view s)
{
    while (!s.empty() && (s.back() == ' ' || s.back() == '\n' || s.back() == '\r' || s.back() == '\t'))
        s.remove_suffix(1);
    return s;
}

// The JSON text of any value (objects and arrays whole).
std::string rawJson(od::value v)
{
    switch (v.type().value()) {
    case od::json_type::object:
        return std::string(trimToken(v.get_object().value().raw_json().value()));
    case od::json_type::array:
        return std::string(trimToken(v.get_array().value().raw_json().value()));
    default:
        return std::string(trimToken(v.raw_json_token()));
    }
}

struct Event {
    char ph = 0;
    std::string_view cat, name;
    Id pid, tid;
    bool hasTs = false, hasDur = false;
    int64_t ts = 0, dur = 0;                 // ns
    // args
    int64_t correlation = 0, externalId = 0;
    bool hasDevice = false, hasStream = false;
    int64_t device = 0, stream = 0, bytes = 0;
    LaunchConfig config;
    bool hasSmemSplit = false;
    int64_t wtScope = 0, wtInstance = 0, wtParent = 0;
    std::string_view level;
    // A field that could not be read: reported by Parser::handle(), which knows the event's
    // place in the file and its name (set by the reader; text in the reader's arena).
    const std::string* problem = nullptr;
};

// A bad field value; becomes an ImportError naming the event (or the file, outside events).
struct FieldError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

std::string quoted(std::string_view text)
{
    return "'" + std::string(text.substr(0, 40)) + (text.size() > 40 ? "...'" : "'");
}


// Reads the fields of one event object. Strings come back as views that stay valid for the
// whole import: into the original text (`delta` maps the parsed copy's addresses back to it)
// or, for strings with escapes, into `arena`. A bad value inside an event is kept on the event
// (Event::problem, reported by Parser::handle()); number() elsewhere throws FieldError.
class EventReader {
public:
    explicit EventReader(std::deque<std::string>& arena) : m_arena(arena) {}
    // Text being parsed starts at `copy`; the same bytes of the original text start at `original`.
    void setBase(const char* copy, const char* original)
    {
        m_copy = copy;
        m_original = original;
    }

    void readEvent(od::object obj, Event& e);
    void readFields(od::object obj, Event& e);
    void readArgs(od::object args, Event& e);

    [[noreturn]] void fail(const std::string& what) const { throw FieldError(what); }

    // The key's text without unescaping when it has no escapes (all real traces).
    static bool key(od::field& field, std::string_view& out)
    {
        const char* p = reinterpret_cast<const char*>(field.key().raw());
        const char* q = p;
        while (*q != '"' && *q != '\\')
            ++q;
        if (*q == '"') {
            out = std::string_view(p, size_t(q - p));
            return true;
        }
        auto k = field.unescaped_key();
        if (k.error())
            return false;
        out = k.value_unsafe();
        return true;
    }
    // A string value as a view valid for the whole import (see the class comment).
    std::string_view str(od::value v)
    {
        std::string_view raw = v.raw_json_token();
        if (raw.empty() || raw[0] != '"')
            return {};
        // The token runs to the next structural character, so the closing quote is inside it.
        size_t close = 1;
        while (close < raw.size() && raw[close] != '"' && raw[close] != '\\')
            ++close;
        if (close < raw.size() && raw[close] == '"')
            return std::string_view(m_original + (raw.data() + 1 - m_copy), close - 1);
        std::string_view u = v.get_string().value();
        m_arena.emplace_back(u);
        return m_arena.back();
    }
    int64_t number(od::value v, const char* what)
    {
        int64_t x = 0;
        if (v.get_int64().get(x) == simdjson::SUCCESS)
            return x;
        std::string_view text;
        if (v.type() == od::json_type::string)
            text = v.get_string().value();
        else
            text = trimToken(v.raw_json_token());
        auto ns = parseScaledDecimal(text, 0);
        if (!ns)
            fail(std::string("invalid number for ") + what + ": '" + std::string(text.substr(0, 40)) + "'");
        return *ns;
    }
    // ts and dur: a JSON number of microseconds, >= 0 (ts) and at most kMaxTimeNs once in ns.
    // A string is refused even when it holds digits: no real trace writes one, and a tool
    // that does has likely mixed up its fields.
    int64_t micros(od::value v, const char* what)
    {
        std::string_view text = trimToken(v.raw_json_token());
        if (!text.empty() && text[0] == '"')
            fail(std::string("invalid ") + what + " " + quoted(text) + ": a string, not a number of microseconds");
        auto ns = microsToNs(text);
        if (!ns)
            fail(std::string("invalid ") + what + " " + quoted(text) + (text.empty() || text[0] == '-' || (text[0] >= '0' && text[0] <= '9')
                                                                     ? " (out of range)"
                                                                     : " (a number of microseconds expected)"));
        if (*ns < 0 && what[0] == 't')
            fail(std::string("negative ") + what + " " + quoted(text));
        if (*ns > kMaxTimeNs || *ns < -kMaxTimeNs)
            fail(std::string("invalid ") + what + " " + quoted(text) + " (out of range: over " + std::to_string(kMaxTimeNs / 1000000000 / 86400 / 365) + " years)");
        return *ns;
    }
    Id id(od::value v)
    {
        std::string_view raw = v.raw_json_token();
        if (!raw.empty() && raw[0] == '"')
            return parseIdText(v.get_string().value());
        if (v.type() == od::json_type::number)
            return Id{number(v, "id"), true};
        return Id{0, false};
    }
    void triple(od::value v, int32_t out[3])
    {
        if (v.type() != od::json_type::array)
            return;
        int i = 0;
        for (auto x : v.get_array()) {
            if (i < 3)
                out[i] = int32_t(number(x.value(), "grid/block"));
            ++i;
        }
    }

private:
    std::deque<std::string>& m_arena;
    const char* m_copy = nullptr;
    const char* m_original = nullptr;
};

void EventReader::readArgs(od::object args, Event& e)
{
    for (auto fieldResult : args) {
        od::field field;
        if (auto err = std::move(fieldResult).get(field))
            throw simdjson::simdjson_error(err);
        std::string_view k;
        if (!key(field, k))
            fail("invalid key in args");
        od::value v = field.value();
        if (k == "correlation")
            e.correlation = number(v, "correlation");
        else if (k == "External id" || k == "external id")
            e.externalId = number(v, "External id");
        else if (k == "device") {
            e.device = number(v, "device");
            e.hasDevice = true;
        } else if (k == "stream") {
            e.stream = number(v, "stream");
            e.hasStream = true;
        } else if (k == "bytes")
            e.bytes = number(v, "bytes");
        else if (k == "grid")
            triple(v, e.config.grid);
        else if (k == "block")
            triple(v, e.config.block);
        else if (k == "registers per thread")
            e.config.registers = int32_t(number(v, "registers per thread"));
        else if (k == "shared memory") {
            if (!e.hasSmemSplit)
                e.config.staticSmem = int32_t(number(v, "shared memory"));
        } else if (k == "static shared memory") {
            e.config.staticSmem = int32_t(number(v, "static shared memory"));
            e.hasSmemSplit = true;
        } else if (k == "dynamic shared memory")
            e.config.dynamicSmem = int32_t(number(v, "dynamic shared memory"));
        else if (k == "wt_scope")
            e.wtScope = number(v, "wt_scope");
        else if (k == "wt_instance")
            e.wtInstance = number(v, "wt_instance");
        else if (k == "wt_parent")
            e.wtParent = number(v, "wt_parent");
        else if (k == "level" && v.type() == od::json_type::string)
            e.level = str(v);
    }
}

void EventReader::readEvent(od::object obj, Event& e)
{
    try {
        readFields(obj, e);
    } catch (const FieldError& error) {
        // The rest of the event is skipped; handle() reports it with the event's number.
        m_arena.emplace_back(error.what());
        e.problem = &m_arena.back();
    }
}

void EventReader::readFields(od::object obj, Event& e)
{
    for (auto fieldResult : obj) {
        od::field field;
        if (auto err = std::move(fieldResult).get(field))
            throw simdjson::simdjson_error(err);
        std::string_view k;
        if (!key(field, k))
            fail("invalid key in an event");
        od::value v = field.value();
        switch (k.size()) {
        case 2:
            if (k == "ph") {
                std::string_view ph = v.get_string().value();
                e.ph = ph.empty() ? 0 : ph[0];
            } else if (k == "ts") {
                e.ts = micros(v, "timestamp");
                e.hasTs = true;
            }
            break;
        case 3:
            if (k == "cat") {
                if (v.type() == od::json_type::string)
                    e.cat = str(v);
            } else if (k == "pid")
                e.pid = id(v);
            else if (k == "tid")
                e.tid = id(v);
            else if (k == "dur") {
                e.dur = micros(v, "duration");
                e.hasDur = true;
            }
            break;
        case 4:
            if (k == "name") {
                if (v.type() == od::json_type::string)
                    e.name = str(v);
            } else if (k == "args") {
                if (v.type() == od::json_type::object)
                    readArgs(v.get_object().value(), e);
            }
            break;
        default:
            break;
        }
    }
}

// One slice of the traceEvents array, parsed on either thread, handled in file order.
struct Slice {
    size_t begin = 0, end = 0;               // byte range of the events in the original text
    std::vector<Event> events;
    bool parsed = false;
    bool ok = false;
    size_t arrayEnd = 0;                     // when the array closed inside: offset just past its ']'
};

class Parser {
public:
    Parser(const std::string& file) : m_file(file), m_reader(m_arena) {}

    // The whole document in one simdjson pass (small files, and the fallback of the sliced path).
    ImportedTrace runWhole(const char* json, size_t size, size_t capacity);
    // traceEvents in slices on two threads; nullopt when the text does not split cleanly (any
    // error included): the caller then runs runWhole() on a fresh parser for the exact error.
    std::optional<ImportedTrace> runSliced(const char* json, size_t size, size_t sliceBytes, bool releaseText);

private:
    [[noreturn]] void fail(const std::string& what) const { throw ImportError(m_file, what); }
    // "event 12 ('volta_sgemm_128x64_nn')": the event's place among all events, and its name.
    std::string eventLabel(const Event& e) const
    {
        return "event " + std::to_string(m_events) + " ('" + std::string(e.name.substr(0, 60)) + (e.name.size() > 60 ? "...')" : "')");
    }

    void parseDocument(const char* json, size_t size, size_t capacity);
    bool parseSlices(const char* json, size_t size, size_t bodyBegin, size_t sliceBytes, size_t& tailBegin);
    static bool parseSlice(Slice& s, const char* json, od::parser& parser, std::string& buf, EventReader& reader);
    void handle(Event& e);
    void dispatch(Event& e);
    void readDeviceProperties(od::array arr);
    void finish();

    static int64_t threadKey(const Id& pid, const Id& tid) { return int64_t((uint64_t(pid.num) << 32) ^ uint64_t(uint32_t(tid.num))); }

    std::string m_file;
    std::deque<std::string> m_arena;                                // unescaped strings (rare)
    std::deque<std::string> m_workerArena;                          // the same, from the second thread
    EventReader m_reader;
    ImportedTrace m_t;
    bool m_kinetoMarkers = false;
    bool m_wheretime = false;
    bool m_releaseText = false;                                     // pages of handled slices may be dropped
    std::vector<std::vector<Event>> m_spareEvents;                  // event buffers of handled slices, reused
    int64_t m_events = 0;
    std::unordered_map<int64_t, std::vector<Event>> m_open;        // B events by thread
    std::vector<Event> m_other;                                     // plain Chrome slices, kept when not Kineto
    std::vector<Event> m_gpuAnnotations;
    std::unordered_map<int64_t, int64_t> m_userAnnotationByExternal; // External id -> range index
    std::unordered_map<std::string_view, uint32_t> m_names;
    uint32_t m_levelOp = 0, m_levelAnnotation = 0;

    uint32_t name(std::string_view s)
    {
        auto it = m_names.find(s);
        if (it != m_names.end())
            return it->second;
        uint32_t id = m_t.strings.intern(s);
        if (m_releaseText) {
            // The text under `s` may be dropped once its slice is handled: key by a copy.
            m_arena.emplace_back(s);
            s = m_arena.back();
        }
        m_names.emplace(s, id);   // s points into the input text or m_arena, alive until parsing ends
        return id;
    }
    // An event kept past its slice (open B events, annotations, plain slices) owns its strings
    // when the text may be dropped.
    const Event& kept(Event& e)
    {
        if (m_releaseText)
            for (std::string_view* v : {&e.cat, &e.name, &e.level})
                if (!v->empty()) {
                    m_arena.emplace_back(*v);
                    *v = m_arena.back();
                }
        return e;
    }
};

void Parser::handle(Event& e)
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
    } else if (e.ph == 'E') {
        auto it = m_open.find(threadKey(e.pid, e.tid));
        if (it != m_open.end() && !it->second.empty() && e.hasTs) {
            Event b = it->second.back();
            it->second.pop_back();
            b.dur = std::max<int64_t>(0, e.ts - b.ts);
            b.hasDur = true;
            b.ph = 'X';
            dispatch(b);
        }
    }
}

void Parser::dispatch(Event& e)
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

void Parser::readDeviceProperties(od::array arr)
{
    for (auto item : arr) {
        od::object o = item.get_object().value();
        std::string_view raw = trimToken(o.raw_json().value());
        o.reset();
        DeviceInfo d;
        bool hasId = false;
        for (auto field : o) {
            std::string_view k = field.unescaped_key().value();
            od::value v = field.value().value();
            if (k == "id") {
                d.id = int32_t(m_reader.number(v, "device id"));
                hasId = true;
            } else if (k == "name" && v.type() == od::json_type::string)
                d.name = std::string(v.get_string().value());
        }
        if (!hasId)
            continue;
        if (d.name.empty())
            d.name = "GPU " + std::to_string(d.id);
        d.propertiesJson = std::string(raw);
        m_t.devices.push_back(d);
    }
}

void Parser::parseDocument(const char* json, size_t size, size_t capacity)
{
    od::parser parser;
    try {
        size_t i = 0;
        while (i < size && (json[i] == ' ' || json[i] == '\n' || json[i] == '\r' || json[i] == '\t'))
            ++i;
        if (i == size)
            fail("empty file (no JSON)");
        if (json[i] != '{' && json[i] != '[')
            fail("not JSON (expected '{' or '[' at the start)");
        od::document doc = parser.iterate(simdjson::padded_string_view(json, size, capacity));
        if (doc.type() == od::json_type::array) {
            for (auto ev : doc.get_array()) {
                Event e;
                m_reader.readEvent(ev.get_object().value(), e);
                handle(e);
            }
        } else {
            bool sawEvents = false;
            for (auto field : doc.get_object()) {
                std::string_view k = field.unescaped_key().value();
                od::value v = field.value().value();
                if (k == "traceEvents") {
                    sawEvents = true;
                    for (auto ev : v.get_array()) {
                        Event e;
                        m_reader.readEvent(ev.get_object().value(), e);
                        handle(e);
                    }
                } else if (k == "deviceProperties") {
                    m_kinetoMarkers = true;
                    if (v.type() == od::json_type::array)
                        readDeviceProperties(v.get_array().value());
                } else if (k == "baseTimeNanoseconds") {
                    m_kinetoMarkers = true;
                    m_t.clockBaseNs = m_reader.number(v, "baseTimeNanoseconds");
                    if (m_t.clockBaseNs < 0 || m_t.clockBaseNs > kMaxTimeNs)
                        fail("baseTimeNanoseconds " + std::to_string(m_t.clockBaseNs) + " is out of range (0 to " +
                             std::to_string(kMaxTimeNs) + " ns expected)");
                } else if (k == "schemaVersion" || k == "distributedInfo" || k == "traceName") {
                    m_kinetoMarkers = true;
                    if (k != "traceName")
                        m_t.metadata.emplace_back("kineto." + std::string(k), rawJson(v));
                } else if (k == "wheretime") {
                    m_wheretime = true;
                    if (v.type() == od::json_type::object)
                        for (auto f : v.get_object()) {
                            std::string_view mk = f.unescaped_key().value();
                            od::value mv = f.value().value();
                            if (mv.type() == od::json_type::string)
                                m_t.metadata.emplace_back("source." + std::string(mk), std::string(mv.get_string().value()));
                            else if (mk == "origin_ns") {   // our export: ts count from the run's time 0
                                m_t.clockBaseNs = m_reader.number(mv, "origin_ns");
                                if (m_t.clockBaseNs < -kMaxTimeNs || m_t.clockBaseNs > kMaxTimeNs)
                                    fail("origin_ns " + std::to_string(m_t.clockBaseNs) + " is out of range");
                                m_t.zeroAtClockBase = true;
                            }
                        }
                }
            }
            if (!sawEvents)
                fail("JSON has no traceEvents array (not a Chrome or Kineto trace)");
        }
        // One document only: a second one after it (two traces concatenated) is not read silently.
        if (doc.current_location().error() == simdjson::SUCCESS)
            fail("text after the end of the JSON document (two JSON documents concatenated?)");
    } catch (const FieldError& e) {
        fail(e.what());
    } catch (const simdjson::simdjson_error& e) {
        fail(std::string("invalid or truncated JSON (") + simdjson::error_message(e.error()) + ")");
    }
}

ImportedTrace Parser::runWhole(const char* json, size_t size, size_t capacity)
{
    m_levelOp = m_t.strings.intern("op");
    m_levelAnnotation = m_t.strings.intern("annotation");
    m_reader.setBase(json, json);
    parseDocument(json, size, capacity);
    finish();
    return std::move(m_t);
}

namespace {

bool isSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

// Where the traceEvents array starts: the offset of its '[' (of the document itself when it is
// an array), and in keyBegin the offset of the "traceEvents" key (npos for an array document).
// Scans only the text before the array, tracking strings and depth, so the key is found at the
// top level only. npos when not found.
size_t findEventsArray(const char* json, size_t size, size_t& keyBegin)
{
    size_t i = 0;
    while (i < size && isSpace(json[i]))
        ++i;
    keyBegin = std::string_view::npos;
    if (i < size && json[i] == '[')
        return i;
    if (i >= size || json[i] != '{')
        return std::string_view::npos;
    int depth = 0;
    for (; i < size; ++i) {
        char c = json[i];
        if (c == '"') {
            size_t open = i;
            for (++i; i < size && json[i] != '"'; ++i)
                if (json[i] == '\\')
                    ++i;
            if (i >= size)
                return std::string_view::npos;
            if (depth == 1 && std::string_view(json + open + 1, i - open - 1) == "traceEvents") {
                size_t j = i + 1;
                while (j < size && isSpace(json[j]))
                    ++j;
                if (j < size && json[j] == ':') {
                    ++j;
                    while (j < size && isSpace(json[j]))
                        ++j;
                    if (j < size && json[j] == '[') {
                        keyBegin = open;
                        return j;
                    }
                }
            }
        } else if (c == '{' || c == '[') {
            ++depth;
        } else if (c == '}' || c == ']') {
            if (--depth <= 0)
                return std::string_view::npos;
        }
    }
    return std::string_view::npos;
}

// The first likely event boundary at or after `from`: the ',' of "} , {" (whitespace allowed).
// Only a guess (the bytes could sit inside a string or a nested array); parseSlices() checks it.
size_t nextBoundary(const char* json, size_t size, size_t from)
{
    while (from < size) {
        const void* hit = std::memchr(json + from, '}', size - from);
        if (!hit)
            return std::string_view::npos;
        size_t i = size_t(static_cast<const char*>(hit) - json) + 1;
        while (i < size && isSpace(json[i]))
            ++i;
        if (i < size && json[i] == ',') {
            size_t comma = i++;
            while (i < size && isSpace(json[i]))
                ++i;
            if (i < size && json[i] == '{')
                return comma;
        }
        from = i;
    }
    return std::string_view::npos;
}

}  // namespace

// One slice parsed as "[" + its bytes + "]" in a private padded copy, so the structural index
// covers the slice only. Fails on any error, including a cut that was not an event boundary
// (then one of the two slices around it is not a valid array of objects).
bool Parser::parseSlice(Slice& s, const char* json, od::parser& parser, std::string& buf, EventReader& reader)
{
    size_t n = s.end - s.begin;
    if (buf.size() < n + 2 + simdjson::SIMDJSON_PADDING)
        buf.resize(n + 2 + simdjson::SIMDJSON_PADDING + n / 8);
    buf[0] = '[';
    std::memcpy(buf.data() + 1, json + s.begin, n);
    buf[n + 1] = ']';
    std::memset(buf.data() + n + 2, ' ', simdjson::SIMDJSON_PADDING);
    reader.setBase(buf.data(), json + s.begin - 1);
    s.arrayEnd = std::string_view::npos;
    try {
        od::document doc = parser.iterate(buf.data(), n + 2, buf.size());
        od::array arr = doc.get_array();
        s.events.reserve(n / 256);
        for (auto ev : arr) {
            Event e;
            reader.readEvent(ev.get_object().value(), e);
            s.events.push_back(e);
        }
        // At the end: the array closed at our ']'. Otherwise it closed inside this slice (the
        // last one), and what follows starts at the next token.
        auto loc = doc.current_location();
        if (loc.error() == simdjson::SUCCESS)
            s.arrayEnd = std::min(s.end, s.begin + size_t(loc.value_unsafe() - buf.data()) - 1);
        return true;
    } catch (...) {
        return false;
    }
}

bool Parser::parseSlices(const char* json, size_t size, size_t bodyBegin, size_t sliceBytes, size_t& tailBegin)
{
    std::vector<Slice> slices;
    for (size_t pos = bodyBegin; pos < size;) {
        size_t cut = pos + sliceBytes < size ? nextBoundary(json, size, pos + sliceBytes) : std::string_view::npos;
        Slice s;
        s.begin = pos;
        s.end = cut == std::string_view::npos ? size : cut;
        slices.push_back(std::move(s));
        pos = cut == std::string_view::npos ? size : cut + 1;
    }
    // Both threads parse slices (at most kWindow ahead of the handled ones, to bound memory);
    // the main thread handles them in file order.
    constexpr size_t kWindow = 6;
    std::mutex mu;
    std::condition_variable cv;
    size_t next = 0, handled = 0;
    bool stop = false;
    auto take = [&](std::unique_lock<std::mutex>& lock) -> size_t {
        if (stop || next >= slices.size() || next >= handled + kWindow)
            return std::string_view::npos;
        (void)lock;
        return next++;
    };
    auto publish = [&](size_t k, bool ok) {
        std::lock_guard<std::mutex> lock(mu);
        slices[k].parsed = true;
        slices[k].ok = ok;
        cv.notify_all();
    };
    std::thread worker([&] {
        od::parser parser;
        std::string buf;
        EventReader reader(m_workerArena);
        for (;;) {
            size_t k;
            {
                std::unique_lock<std::mutex> lock(mu);
                cv.wait(lock, [&] { return stop || next >= slices.size() || next < handled + kWindow; });
                k = take(lock);
                if (k == std::string_view::npos)
                    return;
                if (!m_spareEvents.empty()) {
                    slices[k].events = std::move(m_spareEvents.back());
                    m_spareEvents.pop_back();
                }
            }
            publish(k, parseSlice(slices[k], json, parser, buf, reader));
        }
    });
    struct Joiner {
        std::thread& t;
        std::mutex& mu;
        std::condition_variable& cv;
        bool& stop;
        ~Joiner()
        {
            {
                std::lock_guard<std::mutex> lock(mu);
                stop = true;
            }
            cv.notify_all();
            t.join();
        }
    } joiner{worker, mu, cv, stop};

    od::parser parser;
    std::string buf;
    EventReader& reader = m_reader;
    for (;;) {
        std::unique_lock<std::mutex> lock(mu);
        if (handled >= slices.size())
            return false;   // the array never closed: truncated
        if (slices[handled].parsed) {
            Slice& s = slices[handled];
            lock.unlock();
            if (!s.ok)
                return false;
            for (Event& e : s.events)
                handle(e);
            s.events.clear();
            if (m_releaseText && s.arrayEnd == std::string_view::npos) {
                // The slice's whole pages are not needed any more: nothing points into them
                // (names and kept events own copies). The last slice holds the text after the
                // array, read later, and stays.
                uintptr_t page = uintptr_t(sysconf(_SC_PAGESIZE));
                uintptr_t from = (uintptr_t(json + s.begin) + page - 1) & ~(page - 1);
                uintptr_t to = uintptr_t(json + s.end) & ~(page - 1);
                if (to > from)
                    madvise(reinterpret_cast<void*>(from), to - from, MADV_DONTNEED);
            }
            lock.lock();
            m_spareEvents.push_back(std::move(s.events));
            ++handled;
            cv.notify_all();
            if (s.arrayEnd != std::string_view::npos) {
                tailBegin = s.arrayEnd;
                return true;
            }
            continue;
        }
        size_t k = take(lock);
        if (k == std::string_view::npos) {
            cv.wait(lock, [&] { return slices[handled].parsed; });
            continue;
        }
        if (!m_spareEvents.empty()) {
            slices[k].events = std::move(m_spareEvents.back());
            m_spareEvents.pop_back();
        }
        lock.unlock();
        publish(k, parseSlice(slices[k], json, parser, buf, reader));
    }
}

std::optional<ImportedTrace> Parser::runSliced(const char* json, size_t size, size_t sliceBytes, bool releaseText)
{
    m_releaseText = releaseText;
    m_levelOp = m_t.strings.intern("op");
    m_levelAnnotation = m_t.strings.intern("annotation");
    size_t keyBegin = 0;
    size_t arrayBegin = findEventsArray(json, size, keyBegin);
    if (arrayBegin == std::string_view::npos)
        return std::nullopt;
    size_t tail = 0;
    try {
        if (!parseSlices(json, size, arrayBegin + 1, sliceBytes, tail))
            return std::nullopt;
        if (keyBegin == std::string_view::npos) {
            // An array document: nothing but whitespace may follow.
            for (size_t i = tail; i < size; ++i)
                if (!isSpace(json[i]))
                    return std::nullopt;
        } else {
            // The other top-level keys, with an empty traceEvents in place of the events.
            std::string rest(json, keyBegin);
            rest += "\"traceEvents\": []";
            rest.append(json + tail, size - tail);
            size_t n = rest.size();
            rest.append(simdjson::SIMDJSON_PADDING, ' ');
            m_reader.setBase(rest.data(), rest.data());
            parseDocument(rest.data(), n, rest.size());
        }
    } catch (...) {
        return std::nullopt;
    }
    finish();
    return std::move(m_t);
}

void Parser::finish()
{
    bool kineto = m_kinetoMarkers && !m_wheretime;
    m_t.format = kineto ? "kineto" : "chrome";

    // GPU annotations: the GPU-side twin of a CPU user_annotation adds nothing to the scope
    // tree; one without a twin becomes a range on its stream (attribution by kernel time).
    for (const Event& g : m_gpuAnnotations) {
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
        for (const Event& o : m_other) {
            ImportedTrace::Range r;
            r.startNs = o.ts;
            r.endNs = o.ts + std::max<int64_t>(0, o.dur);
            r.thread = threadKey(o.pid, o.tid);
            r.name = name(o.name);
            r.level = o.level.empty() ? m_levelAnnotation : name(o.level);
            if (o.wtInstance)
                byInstance.emplace(o.wtInstance, int64_t(m_t.ranges.size()));
            m_t.ranges.push_back(r);
            ++m_t.counts.ranges;
        }
        for (size_t i = 0; i < m_other.size(); ++i) {
            const Event& o = m_other[i];
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

    if (m_t.activities.empty())
        fail(m_events == 0 ? "empty trace: no trace events" : "empty trace: no GPU kernels, memcpy or memset among " + std::to_string(m_events) + " events");
    // Absolute epoch clocks (Kineto: microseconds since 1970) give the start date.
    m_t.epochClock = true;
}

}  // namespace

ImportedTrace TraceEventImporter::parse(const std::string& file, const char* json, size_t size, size_t capacity, size_t sliceBytes,
                                        bool releaseText)
{
    if (sliceBytes > 0 && size >= 2 * sliceBytes) {
        Parser p(file);
        if (auto t = p.runSliced(json, size, sliceBytes, releaseText))
            return std::move(*t);
    }
    if (capacity < size + simdjson::SIMDJSON_PADDING) {
        simdjson::padded_string padded(json, size);
        Parser p(file);
        return p.runWhole(padded.data(), size, size + simdjson::SIMDJSON_PADDING);
    }
    Parser p(file);
    return p.runWhole(json, size, capacity);
}

}  // namespace wt::interop
