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
#include <functional>
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
        // The token runs to the next structural character (strings hold none), so it ends in
        // the closing quote and whitespace; without a backslash, that quote closes the string.
        // memchr instead of a byte loop: kernel names run to hundreds of bytes.
        size_t end = raw.size();
        while (end > 1 && isSpace(raw[end - 1]))
            --end;
        if (end >= 2 && raw[end - 1] == '"' && !std::memchr(raw.data() + 1, '\\', end - 2))
            return std::string_view(m_original + (raw.data() + 1 - m_copy), end - 2);
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
        int64_t quick = 0;
        if (quickMicrosToNs(text, quick) && quick <= kMaxTimeNs)   // >= 0: no sign
            return quick;
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
        // By length first: a kernel's args hold a dozen keys, most of them not read.
        switch (k.size()) {
        case 4:
            if (k == "grid")
                triple(v, e.config.grid);
            else if (k == "name" && v.type() == od::json_type::string)
                e.argName = str(v);
            break;
        case 5:
            if (k == "bytes")
                e.bytes = number(v, "bytes");
            else if (k == "block")
                triple(v, e.config.block);
            else if (k == "level" && v.type() == od::json_type::string)
                e.level = str(v);
            break;
        case 6:
            if (k == "device") {
                e.device = number(v, "device");
                e.hasDevice = true;
            } else if (k == "stream") {
                e.stream = number(v, "stream");
                e.hasStream = true;
            }
            break;
        case 8:
            if (k == "wt_scope")
                e.wtScope = number(v, "wt_scope");
            break;
        case 9:
            if (k == "wt_parent")
                e.wtParent = number(v, "wt_parent");
            break;
        case 11:
            if (k == "correlation")
                e.correlation = number(v, "correlation");
            else if (k == "External id" || k == "external id")
                e.externalId = number(v, "External id");
            else if (k == "wt_instance")
                e.wtInstance = number(v, "wt_instance");
            break;
        case 13:
            if (k == "shared memory" && !e.hasSmemSplit)
                e.config.staticSmem = int32_t(number(v, "shared memory"));
            break;
        case 20:
            if (k == "registers per thread")
                e.config.registers = int32_t(number(v, "registers per thread"));
            else if (k == "static shared memory") {
                e.config.staticSmem = int32_t(number(v, "static shared memory"));
                e.hasSmemSplit = true;
            }
            break;
        case 21:
            if (k == "dynamic shared memory")
                e.config.dynamicSmem = int32_t(number(v, "dynamic shared memory"));
            break;
        default:
            break;
        }
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
                if (!keptPhase(e.ph))
                    return;   // the rest unread (traceevent.h)
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
    size_t begin = 0, end = 0;               // byte range of the events in the text (a stream: offsets from its start)
    // A stream's slice owns its bytes: "[" + the events + "]" + simdjson's padding (a mapped
    // text is copied so by readSlice()).
    std::string text;
    std::vector<TraceEvent> events;
    bool produced = false;                   // begin, end (and text) set by the cutter
    bool last = false;                       // the cutter had no more text: no slice here
    bool parsed = false;
    bool ok = false;
    size_t arrayEnd = 0;                     // when the array closed inside: offset just past its ']'
    size_t sourceDone = 0;                   // the source read up to here when it was cut (Cutter::size())
};

// Cuts traceEvents into slices lazily, as the threads take them, so only the slices in
// flight are touched: cutting the whole text up front mapped a large folio of the file per
// cut (846 MB of a 2 GB file's pages resident at once). Called in slice order, one call at a
// time.
class TraceEventTokenizer::Cutter {
public:
    virtual ~Cutter() = default;
    // The next slice (begin, end and, for a stream, text); false at the end of the text.
    virtual bool next(Slice& s, std::string spareText) = 0;
    // The original text under a slice's views (nullptr: the views point into Slice::text).
    virtual const char* original() const = 0;
    // The source's size when known, else 0 (a stream's source: TextStream::sourceSize()).
    virtual size_t size() const = 0;
    // The text after the array's ']', which closed at `arrayEnd` in slice `k` of `slices`.
    virtual std::string tail(std::deque<Slice>& slices, size_t k, size_t arrayEnd) = 0;
};

// A text in memory (a mapping or a buffer): slices are byte ranges of it.
class TraceEventTokenizer::TextCutter final : public TraceEventTokenizer::Cutter {
public:
    TextCutter(const char* json, size_t size, size_t bodyBegin, size_t sliceBytes)
        : m_json(json), m_size(size), m_pos(bodyBegin), m_sliceBytes(sliceBytes) {}
    bool next(Slice& s, std::string) override
    {
        if (m_pos >= m_size)
            return false;
        size_t cut = m_pos + m_sliceBytes < m_size ? nextBoundary(m_json, m_size, m_pos + m_sliceBytes) : std::string_view::npos;
        s.begin = m_pos;
        s.end = cut == std::string_view::npos ? m_size : cut;
        s.sourceDone = s.end;
        m_pos = cut == std::string_view::npos ? m_size : cut + 1;
        return true;
    }
    const char* original() const override { return m_json; }
    size_t size() const override { return m_size; }
    std::string tail(std::deque<Slice>&, size_t, size_t arrayEnd) override { return std::string(m_json + arrayEnd, m_size - arrayEnd); }

private:
    const char* m_json;
    size_t m_size, m_pos, m_sliceBytes;
};

// A stream: each slice is read into its own buffer. A slice is filled to sliceBytes plus a
// look-ahead, cut at the first boundary after sliceBytes, and the bytes after the cut carry
// over into the next slice's buffer.
class TraceEventTokenizer::StreamCutter final : public TraceEventTokenizer::Cutter {
public:
    static constexpr size_t kLookahead = 64 << 10;

    StreamCutter(TextStream& in, size_t sliceBytes) : m_in(in), m_sliceBytes(sliceBytes) {}

    // Reads up to the '[' of traceEvents: the text before the key into `head`, keyBegin as
    // findEventsArray() says. false when the text has no such array (or is not JSON).
    bool start(std::string& head, size_t& keyBegin)
    {
        std::string text;
        size_t scanned = 0;
        for (;;) {
            size_t arrayBegin = findEventsArray(text.data(), text.size(), keyBegin);
            if (arrayBegin != std::string_view::npos) {
                head.assign(text, 0, keyBegin == std::string_view::npos ? 0 : keyBegin);
                m_carry.assign(text, arrayBegin + 1);
                m_offset = arrayBegin + 1;
                return true;
            }
            // Not found: truncated so far (read more), or not there at all (a text of more than
            // a few slices before the events is not worth streaming).
            if (m_ended || text.size() > 4 * m_sliceBytes + kLookahead)
                return false;
            scanned = text.size();
            text.resize(scanned + kLookahead);
            size_t n = fill(text.data() + scanned, kLookahead);
            text.resize(scanned + n);
        }
    }

    bool next(Slice& s, std::string buf) override
    {
        if (m_ended && m_carry.empty())
            return false;
        constexpr size_t kPad = simdjson::SIMDJSON_PADDING;
        const size_t want = m_sliceBytes + std::min(m_sliceBytes, kLookahead);   // event bytes to hold before cutting
        // buf: '[' + carry + new bytes (the events' bytes start at buf[1]) + ']' + padding.
        size_t n = m_carry.size();
        buf.resize(std::min(want, size_t(8) << 20) + n + 2 + kPad);
        buf[0] = '[';
        std::memcpy(buf.data() + 1, m_carry.data(), n);
        m_carry.clear();
        auto readMore = [&](size_t max) {   // grows buf as it fills (a huge sliceBytes reads a huge slice, not a huge buffer)
            size_t step = std::min(max, size_t(8) << 20);
            if (buf.size() < 1 + n + step + 1 + kPad)
                buf.resize(1 + n + step + 1 + kPad);
            n += fill(buf.data() + 1 + n, step);
        };
        while (n < want && !m_ended)
            readMore(want - n);
        size_t cut = std::string_view::npos;
        for (;;) {
            if (n > m_sliceBytes)
                cut = nextBoundary(buf.data() + 1, n, m_sliceBytes);
            if (cut != std::string_view::npos || m_ended)
                break;
            readMore(kLookahead);   // no boundary in the look-ahead (a huge event): read further
        }
        m_cut = cut != std::string_view::npos;
        const size_t len = m_cut ? cut : n;
        if (m_cut)
            m_carry.assign(buf.data() + 1 + cut + 1, n - cut - 1);
        s.begin = m_offset;
        s.end = m_offset + len;
        m_offset += len + 1;   // the comma of the cut
        buf[1 + len] = ']';
        std::memset(buf.data() + 2 + len, ' ', kPad);
        buf.resize(2 + len + kPad);
        s.text = std::move(buf);
        s.sourceDone = m_in.sourceRead();
        return true;
    }
    const char* original() const override { return nullptr; }
    size_t size() const override { return m_in.sourceSize(); }
    std::string tail(std::deque<Slice>& slices, size_t k, size_t arrayEnd) override
    {
        // The rest of slice k, the later slices already read, the carry, and what the stream
        // still holds; each cut dropped the comma between two of them.
        const Slice& s = slices[k];
        std::string out(s.text.data() + 1 + (arrayEnd - s.begin), s.end - arrayEnd);
        for (size_t j = k + 1; j < slices.size() && slices[j].produced && !slices[j].last; ++j)
            out.append(",").append(slices[j].text.data() + 1, slices[j].end - slices[j].begin);
        if (m_cut)
            out.append(",").append(m_carry);
        m_carry.clear();
        for (char buf[1 << 16]; !m_ended;)
            out.append(buf, fill(buf, sizeof buf));
        return out;
    }

private:
    size_t fill(char* dst, size_t max)
    {
        size_t got = 0;
        while (got < max && !m_ended) {
            size_t n = m_in.read(dst + got, max - got);
            got += n;
            m_ended = n == 0;
        }
        return got;
    }

    TextStream& m_in;
    size_t m_sliceBytes;
    std::string m_carry;   // bytes read past the last cut
    bool m_cut = false;    // the last slice ended at a cut (a comma lies before m_carry)
    size_t m_offset = 0;   // of m_carry's first byte in the stream
    bool m_ended = false;
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

// One slice parsed as "[" + its bytes + "]" in a private padded copy (a stream's slice is
// one already), so the structural index covers the slice only. Fails on any error, including
// a cut that was not an event boundary (then one of the two slices around it is not a valid
// array of objects).
bool TraceEventTokenizer::Reader::readSlice(Slice& s, const char* json, od::parser& parser, std::string& buf)
{
    size_t n = s.end - s.begin;
    const char* text = s.text.data();
    size_t capacity = s.text.size();
    if (json) {
        if (buf.size() < n + 2 + simdjson::SIMDJSON_PADDING)
            buf.resize(n + 2 + simdjson::SIMDJSON_PADDING + n / 8);
        buf[0] = '[';
        std::memcpy(buf.data() + 1, json + s.begin, n);
        buf[n + 1] = ']';
        std::memset(buf.data() + n + 2, ' ', simdjson::SIMDJSON_PADDING);
        text = buf.data();
        capacity = buf.size();
        setBase(text, json + s.begin - 1);
    } else {
        setBase(text, text);
    }
    s.arrayEnd = std::string_view::npos;
    try {
        od::document doc = parser.iterate(text, n + 2, capacity);
        od::array arr = doc.get_array();
        s.events.reserve(n / 256);
        for (auto ev : arr)
            readEvent(ev.get_object().value(), s.events.emplace_back());   // in place: no copy of the event
        // At the end: the array closed at our ']'. Otherwise it closed inside this slice (the
        // last one), and what follows starts at the next token.
        auto loc = doc.current_location();
        if (loc.error() == simdjson::SUCCESS)
            s.arrayEnd = std::min(s.end, s.begin + size_t(loc.value_unsafe() - text) - 1);
        return true;
    } catch (...) {
        return false;
    }
}

bool TraceEventTokenizer::parseSlices(Cutter& cutter, std::string& tail, TraceEventSink& sink)
{
    // All m_threads threads take slices (at most kWindow ahead of the handled ones, to bound memory),
    // cut them in order under cutMu (a stream is read there), and parse them; this thread hands
    // their events to the sink in file order.
    const size_t kWindow = std::max<size_t>(6, 3 * size_t(m_threads));
    std::deque<Slice> slices;
    std::mutex mu, cutMu;
    std::condition_variable cv;
    size_t next = 0, handled = 0, produced = 0;
    bool stop = false, ended = false;
    const char* json = cutter.original();
    // Under mu: the index of a slice to parse, npos when none may be taken now.
    auto take = [&]() -> size_t {
        if (stop || ended || next >= handled + kWindow)
            return std::string_view::npos;
        slices.emplace_back();
        return next++;
    };
    auto publish = [&](size_t k, bool ok) {
        std::lock_guard<std::mutex> lock(mu);
        slices[k].parsed = true;
        slices[k].ok = ok;
        cv.notify_all();
    };
    // Outside mu: cuts every slice up to k (another thread may hold an earlier index), then
    // parses slice k. References into a deque stay valid while it grows at the back.
    auto work = [&](size_t k, Reader& reader, od::parser& parser, std::string& buf) {
        bool ok = true;
        {
            std::lock_guard<std::mutex> cutLock(cutMu);
            while (produced <= k) {
                Slice* s;
                std::string spare;
                {
                    std::lock_guard<std::mutex> lock(mu);
                    s = &slices[produced];
                    if (!m_spareTexts.empty()) {
                        spare = std::move(m_spareTexts.back());
                        m_spareTexts.pop_back();
                    }
                }
                bool more = false;
                try {
                    more = cutter.next(*s, std::move(spare));
                } catch (...) {
                    ok = false;
                }
                std::lock_guard<std::mutex> lock(mu);
                s->produced = true;
                s->last = !more;
                if (!more)
                    ended = true;
                ++produced;
                if (!ok)
                    break;
            }
        }
        Slice* sp;
        {
            std::lock_guard<std::mutex> lock(mu);   // the other thread may be growing the deque
            sp = &slices[k];
        }
        Slice& s = *sp;
        if (!ok || s.last) {
            publish(k, ok);
            return;
        }
        publish(k, reader.readSlice(s, json, parser, buf));
    };
    // threads - 1 workers, each with its own parser, buffer and arena (the deque keeps the
    // arenas in place as it grows).
    auto runWorker = [&](std::deque<std::string>& arena) {
        od::parser parser;
        std::string buf;
        Reader reader(arena);
        for (;;) {
            size_t k;
            {
                std::unique_lock<std::mutex> lock(mu);
                cv.wait(lock, [&] { return stop || ended || next < handled + kWindow; });
                k = take();
                if (k == std::string_view::npos)
                    return;
                if (!m_spareEvents.empty()) {
                    slices[k].events = std::move(m_spareEvents.back());
                    m_spareEvents.pop_back();
                }
            }
            work(k, reader, parser, buf);
        }
    };
    std::vector<std::thread> workers;
    struct Joiner {
        std::vector<std::thread>& threads;
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
            for (auto& t : threads)
                t.join();
        }
    } joiner{workers, mu, cv, stop};
    for (int i = 1; i < m_threads; ++i) {
        m_workerArenas.emplace_back();
        workers.emplace_back(runWorker, std::ref(m_workerArenas.back()));
    }

    od::parser parser;
    std::string buf;
    Reader& reader = *m_reader;
    const uintptr_t page = uintptr_t(sysconf(_SC_PAGESIZE));
    for (;;) {
        std::unique_lock<std::mutex> lock(mu);
        if (handled < slices.size() && slices[handled].parsed) {
            Slice& s = slices[handled];
            lock.unlock();
            if (!s.ok || s.last)
                return false;   // a slice that is not an array of events, or the array never closed (truncated)
            for (TraceEvent& e : s.events)
                sink.event(e);
            s.events.clear();
            ++m_slices;
            if (cutter.size() > 0)
                sink.progress(s.sourceDone, cutter.size());
            if (s.arrayEnd != std::string_view::npos) {
                // Nothing more is taken, and no slice is being cut while the tail is read.
                {
                    std::lock_guard<std::mutex> stopLock(mu);
                    stop = true;
                }
                cv.notify_all();
                std::lock_guard<std::mutex> cutLock(cutMu);
                tail = cutter.tail(slices, handled, s.arrayEnd);
                return true;
            }
            if (json && m_releaseText) {
                // The slice's whole pages are not needed any more: nothing points into them
                // (the sink copied what it keeps: see the header).
                uintptr_t from = (uintptr_t(json + s.begin) + page - 1) & ~(page - 1);
                uintptr_t to = uintptr_t(json + s.end) & ~(page - 1);
                if (to > from)
                    madvise(reinterpret_cast<void*>(from), to - from, MADV_DONTNEED);
            }
            lock.lock();
            m_spareEvents.push_back(std::move(s.events));
            if (!s.text.empty())
                m_spareTexts.push_back(std::move(s.text));
            s.text = std::string();
            ++handled;
            cv.notify_all();
            continue;
        }
        size_t k = take();
        if (k == std::string_view::npos) {
            cv.wait(lock, [&] { return handled < slices.size() && slices[handled].parsed; });
            continue;
        }
        if (!m_spareEvents.empty()) {
            slices[k].events = std::move(m_spareEvents.back());
            m_spareEvents.pop_back();
        }
        lock.unlock();
        work(k, reader, parser, buf);
    }
}

void TraceEventTokenizer::parseHeadAndTail(std::string head, const std::string& tail, TraceEventSink& sink)
{
    // The other top-level keys, with an empty traceEvents in place of the events.
    head += "\"traceEvents\": []";
    head += tail;
    size_t n = head.size();
    head.append(simdjson::SIMDJSON_PADDING, ' ');
    m_reader->setBase(head.data(), head.data());
    parseDocument(head.data(), n, head.size(), sink);
}

bool TraceEventTokenizer::tokenizeSliced(const char* json, size_t size, size_t sliceBytes, bool releaseText,
                                         TraceEventSink& sink)
{
    m_releaseText = releaseText;
    size_t keyBegin = 0;
    size_t arrayBegin = findEventsArray(json, size, keyBegin);
    if (arrayBegin == std::string_view::npos || sliceBytes == 0)
        return false;
    try {
        TextCutter cutter(json, size, arrayBegin + 1, sliceBytes);
        std::string tail;
        if (!parseSlices(cutter, tail, sink))
            return false;
        if (keyBegin == std::string_view::npos) {
            // An array document: nothing but whitespace may follow.
            for (char c : tail)
                if (!isSpace(c))
                    return false;
        } else {
            parseHeadAndTail(std::string(json, keyBegin), tail, sink);
        }
    } catch (...) {
        return false;
    }
    return true;
}

bool TraceEventTokenizer::tokenizeStream(TextStream& in, size_t sliceBytes, TraceEventSink& sink)
{
    m_releaseText = true;
    if (sliceBytes == 0)
        return false;
    try {
        StreamCutter cutter(in, sliceBytes);
        std::string head, tail;
        size_t keyBegin = 0;
        if (!cutter.start(head, keyBegin))
            return false;
        if (!parseSlices(cutter, tail, sink))
            return false;
        if (keyBegin == std::string_view::npos) {
            for (char c : tail)
                if (!isSpace(c))
                    return false;
        } else {
            parseHeadAndTail(std::move(head), tail, sink);
        }
    } catch (...) {
        return false;
    }
    return true;
}

}  // namespace wt::interop
