// Kineto / Chrome trace JSON to TraceEvents: the event reader (fields of one event object), the
// one-pass and the sliced walk over the document, the top-level fields, the boundary scanner.
#include "traceeventtokenizer.h"

#include "exacttime.h"
#include "importedtrace.h"
#include "importerror.h"

#include <simdjson.h>

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <memory>
#include <mutex>
#include <sys/mman.h>
#include <thread>
#include <unistd.h>

namespace wt::interop {

namespace od = simdjson::ondemand;

namespace {

using Id = TraceEvent::Id;

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

// A bad field value; becomes an ImportError naming the event (or the file, outside events).
struct FieldError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

std::string quoted(std::string_view text)
{
    return "'" + std::string(text.substr(0, 40)) + (text.size() > 40 ? "...'" : "'");
}

bool isSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

}  // namespace

// Reads the fields of one event object. Strings come back as views into the original text
// (setBase() maps the parsed copy's addresses back to it) or, for strings with escapes, into
// `arena`. A bad value inside an event is kept on the event (TraceEvent::problem, reported by
// the parser); number() elsewhere throws FieldError.
class TraceEventTokenizer::Reader {
public:
    explicit Reader(std::deque<std::string>& arena) : m_arena(arena) {}
    // Text being parsed starts at `copy`; the same bytes of the original text start at `original`.
    void setBase(const char* copy, const char* original)
    {
        m_copy = copy;
        m_original = original;
    }

    void readEvent(od::object obj, TraceEvent& e);
    void readFields(od::object obj, TraceEvent& e);
    void readArgs(od::object args, TraceEvent& e);
    void readDeviceProperties(od::array arr, std::vector<DeviceInfo>& out);
    // One slice parsed as "[" + its bytes + "]" in `buf`, a private padded copy.
    bool readSlice(Slice& s, const char* json, od::parser& parser, std::string& buf);

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
    // A string value as a view (see the class comment).
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

void TraceEventTokenizer::Reader::readArgs(od::object args, TraceEvent& e)
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
        else if (k == "name" && v.type() == od::json_type::string)
            e.argName = str(v);
    }
}

void TraceEventTokenizer::Reader::readEvent(od::object obj, TraceEvent& e)
{
    try {
        readFields(obj, e);
    } catch (const FieldError& error) {
        // The rest of the event is skipped; the parser reports it with the event's number.
        m_arena.emplace_back(error.what());
        e.problem = &m_arena.back();
    }
}

void TraceEventTokenizer::Reader::readFields(od::object obj, TraceEvent& e)
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

// One slice of the traceEvents array, parsed on either thread, handed on in file order.
struct TraceEventTokenizer::Slice {
    size_t begin = 0, end = 0;               // byte range of the events in the original text
    std::vector<TraceEvent> events;
    bool parsed = false;
    bool ok = false;
    size_t arrayEnd = 0;                     // when the array closed inside: offset just past its ']'
};

void TraceEventTokenizer::Reader::readDeviceProperties(od::array arr, std::vector<DeviceInfo>& out)
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
                d.id = int32_t(number(v, "device id"));
                hasId = true;
            } else if (k == "name" && v.type() == od::json_type::string)
                d.name = std::string(v.get_string().value());
        }
        if (!hasId)
            continue;
        if (d.name.empty())
            d.name = "GPU " + std::to_string(d.id);
        d.propertiesJson = std::string(raw);
        out.push_back(d);
    }
}

TraceEventTokenizer::TraceEventTokenizer(std::string file) : m_file(std::move(file)), m_reader(std::make_unique<Reader>(m_arena)) {}

TraceEventTokenizer::~TraceEventTokenizer() = default;

void TraceEventTokenizer::fail(const std::string& what) const { throw ImportError(m_file, what); }

void TraceEventTokenizer::tokenize(const char* json, size_t size, size_t capacity, TraceEventSink& sink)
{
    if (capacity < size + simdjson::SIMDJSON_PADDING) {
        // simdjson reads up to 64 bytes past the end: a padded copy, kept (the views point into it).
        m_padded.reserve(size + simdjson::SIMDJSON_PADDING);
        m_padded.assign(json, size);
        m_padded.append(simdjson::SIMDJSON_PADDING, '\0');
        json = m_padded.data();
        capacity = m_padded.size();
    }
    m_reader->setBase(json, json);
    parseDocument(json, size, capacity, sink);
}

// The document's events go to the sink, its other top-level fields into m_header.
void TraceEventTokenizer::parseDocument(const char* json, size_t size, size_t capacity, TraceEventSink& sink)
{
    Reader& reader = *m_reader;
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
                TraceEvent e;
                reader.readEvent(ev.get_object().value(), e);
                sink.event(e);
            }
        } else {
            bool sawEvents = false;
            for (auto field : doc.get_object()) {
                std::string_view k = field.unescaped_key().value();
                od::value v = field.value().value();
                if (k == "traceEvents") {
                    sawEvents = true;
                    for (auto ev : v.get_array()) {
                        TraceEvent e;
                        reader.readEvent(ev.get_object().value(), e);
                        sink.event(e);
                    }
                } else if (k == "deviceProperties") {
                    m_header.kineto = true;
                    if (v.type() == od::json_type::array)
                        reader.readDeviceProperties(v.get_array().value(), m_header.devices);
                } else if (k == "baseTimeNanoseconds") {
                    m_header.kineto = true;
                    m_header.clockBaseNs = reader.number(v, "baseTimeNanoseconds");
                    if (m_header.clockBaseNs < 0 || m_header.clockBaseNs > kMaxTimeNs)
                        fail("baseTimeNanoseconds " + std::to_string(m_header.clockBaseNs) + " is out of range (0 to " +
                             std::to_string(kMaxTimeNs) + " ns expected)");
                } else if (k == "schemaVersion" || k == "distributedInfo" || k == "traceName") {
                    m_header.kineto = true;
                    if (k != "traceName")
                        m_header.metadata.emplace_back("kineto." + std::string(k), rawJson(v));
                } else if (k == "wheretime") {
                    m_header.wheretime = true;
                    if (v.type() == od::json_type::object)
                        for (auto f : v.get_object()) {
                            std::string_view mk = f.unescaped_key().value();
                            od::value mv = f.value().value();
                            if (mv.type() == od::json_type::string)
                                m_header.metadata.emplace_back("source." + std::string(mk), std::string(mv.get_string().value()));
                            else if (mk == "origin_ns") {   // our export: ts count from the run's time 0
                                m_header.clockBaseNs = reader.number(mv, "origin_ns");
                                if (m_header.clockBaseNs < -kMaxTimeNs || m_header.clockBaseNs > kMaxTimeNs)
                                    fail("origin_ns " + std::to_string(m_header.clockBaseNs) + " is out of range");
                                m_header.zeroAtClockBase = true;
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

size_t TraceEventTokenizer::findEventsArray(const char* json, size_t size, size_t& keyBegin)
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

size_t TraceEventTokenizer::nextBoundary(const char* json, size_t size, size_t from)
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

// One slice parsed as "[" + its bytes + "]" in a private padded copy, so the structural index
// covers the slice only. Fails on any error, including a cut that was not an event boundary
// (then one of the two slices around it is not a valid array of objects).
bool TraceEventTokenizer::Reader::readSlice(Slice& s, const char* json, od::parser& parser, std::string& buf)
{
    size_t n = s.end - s.begin;
    if (buf.size() < n + 2 + simdjson::SIMDJSON_PADDING)
        buf.resize(n + 2 + simdjson::SIMDJSON_PADDING + n / 8);
    buf[0] = '[';
    std::memcpy(buf.data() + 1, json + s.begin, n);
    buf[n + 1] = ']';
    std::memset(buf.data() + n + 2, ' ', simdjson::SIMDJSON_PADDING);
    setBase(buf.data(), json + s.begin - 1);
    s.arrayEnd = std::string_view::npos;
    try {
        od::document doc = parser.iterate(buf.data(), n + 2, buf.size());
        od::array arr = doc.get_array();
        s.events.reserve(n / 256);
        for (auto ev : arr) {
            TraceEvent e;
            readEvent(ev.get_object().value(), e);
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

bool TraceEventTokenizer::parseSlices(const char* json, size_t size, size_t bodyBegin, size_t sliceBytes, size_t& tailBegin,
                                      TraceEventSink& sink)
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
    // this thread hands their events to the sink in file order.
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
        Reader reader(m_workerArena);
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
            publish(k, reader.readSlice(slices[k], json, parser, buf));
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
    Reader& reader = *m_reader;
    for (;;) {
        std::unique_lock<std::mutex> lock(mu);
        if (handled >= slices.size())
            return false;   // the array never closed: truncated
        if (slices[handled].parsed) {
            Slice& s = slices[handled];
            lock.unlock();
            if (!s.ok)
                return false;
            for (TraceEvent& e : s.events)
                sink.event(e);
            s.events.clear();
            if (m_releaseText && s.arrayEnd == std::string_view::npos) {
                // The slice's whole pages are not needed any more: nothing points into them
                // (the sink copied what it keeps: see the header). The last slice holds the
                // text after the array, read later, and stays.
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
        publish(k, reader.readSlice(slices[k], json, parser, buf));
    }
}

bool TraceEventTokenizer::tokenizeSliced(const char* json, size_t size, size_t sliceBytes, bool releaseText,
                                         TraceEventSink& sink)
{
    m_releaseText = releaseText;
    size_t keyBegin = 0;
    size_t arrayBegin = findEventsArray(json, size, keyBegin);
    if (arrayBegin == std::string_view::npos || sliceBytes == 0)
        return false;
    size_t tail = 0;
    try {
        if (!parseSlices(json, size, arrayBegin + 1, sliceBytes, tail, sink))
            return false;
        if (keyBegin == std::string_view::npos) {
            // An array document: nothing but whitespace may follow.
            for (size_t i = tail; i < size; ++i)
                if (!isSpace(json[i]))
                    return false;
        } else {
            // The other top-level keys, with an empty traceEvents in place of the events.
            std::string rest(json, keyBegin);
            rest += "\"traceEvents\": []";
            rest.append(json + tail, size - tail);
            size_t n = rest.size();
            rest.append(simdjson::SIMDJSON_PADDING, ' ');
            m_reader->setBase(rest.data(), rest.data());
            parseDocument(rest.data(), n, rest.size(), sink);
        }
    } catch (...) {
        return false;
    }
    return true;
}

}  // namespace wt::interop
