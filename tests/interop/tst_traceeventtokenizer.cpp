// interop/traceeventtokenizer: Kineto / Chrome JSON bytes to TraceEvents, tested without the
// parser. The boundary scanner directly, against brute-force oracles, on texts built to fool it
// (strings holding braces, brackets, escaped quotes, backslashes at slice ends, nested
// objects, a boundary inside a string, truncated texts); the event fields and the header as
// read; the string views (into the input, not a copy); the errors; and the sliced walk, which
// hands the sink the same events in the same order as the one pass, or says it could not.
#include "interop/importerror.h"
#include "interop/traceeventtokenizer.h"
#include "tests/support/testsupport.h"

#include <QTest>

#include <algorithm>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

using namespace wt::interop;

namespace {

constexpr size_t npos = std::string::npos;

bool space(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

// (No raw string literals here: moc (Qt 6.4) misreads their quotes and loses the class.)

// --- oracles ------------------------------------------------------------------------------
// nextBoundary() by its definition, position by position: the first ',' at or after `from`
// with only whitespace between it and a '}' that is itself at or after `from`, and only
// whitespace between it and a following '{'.
size_t boundaryOracle(const std::string& t, size_t from)
{
    for (size_t c = from; c < t.size(); ++c) {
        if (t[c] != ',')
            continue;
        size_t j = c;
        while (j > from && space(t[j - 1]))
            --j;
        if (j == from || t[j - 1] != '}')
            continue;
        size_t k = c + 1;
        while (k < t.size() && space(t[k]))
            ++k;
        if (k < t.size() && t[k] == '{')
            return c;
    }
    return npos;
}

// JSON lexical state, one byte at a time: inside a string (and after its backslash), and the
// nesting depth outside strings.
struct State {
    bool inString = false;
    int depth = 0;
    bool escaped = false;
    void step(char c)
    {
        if (inString) {
            if (escaped)
                escaped = false;
            else if (c == '\\')
                escaped = true;
            else if (c == '"')
                inString = false;
        } else if (c == '"') {
            inString = true;
        } else if (c == '{' || c == '[') {
            ++depth;
        } else if (c == '}' || c == ']') {
            --depth;
        }
    }
};
// The state before byte p, recomputed from the start of the text (brute force).
State stateAt(const std::string& t, size_t p)
{
    State s;
    for (size_t i = 0; i < p; ++i)
        s.step(t[i]);
    return s;
}

// findEventsArray() by its definition: an array document starts at its '['; in an object
// document, the first key at depth 1, outside strings, spelled exactly "traceEvents" and
// followed by ':' and '[' (whitespace allowed), before the object closes and before a string
// that never closes.
size_t eventsArrayOracle(const std::string& t, size_t& keyBegin)
{
    keyBegin = npos;
    size_t i = 0;
    while (i < t.size() && space(t[i]))
        ++i;
    if (i < t.size() && t[i] == '[')
        return i;
    if (i >= t.size() || t[i] != '{')
        return npos;
    const std::string key = "\"traceEvents\"";
    State s;
    s.depth = 1;   // inside the top-level object
    for (size_t p = i + 1; p < t.size(); s.step(t[p++])) {
        if (s.depth <= 0 && !s.inString)
            return npos;   // the top-level object closed
        if (s.inString || s.depth != 1 || t.compare(p, key.size(), key) != 0)
            continue;
        size_t j = p + key.size();
        while (j < t.size() && space(t[j]))
            ++j;
        if (j >= t.size() || t[j] != ':')
            continue;
        ++j;
        while (j < t.size() && space(t[j]))
            ++j;
        if (j < t.size() && t[j] == '[') {
            keyBegin = p;
            return j;
        }
    }
    return npos;
}
// The true event boundaries of a text whose traceEvents array starts at `arrayBegin`: commas
// outside strings at the array's own depth.
std::vector<size_t> trueBoundaries(const std::string& t, size_t arrayBegin)
{
    std::vector<size_t> out;
    State s = stateAt(t, arrayBegin + 1);
    const int depth = s.depth;
    for (size_t i = arrayBegin + 1; i < t.size(); s.step(t[i++])) {
        if (s.inString)
            continue;
        if (t[i] == ',' && s.depth == depth)
            out.push_back(i);
        if (t[i] == ']' && s.depth == depth)
            break;   // the array closed
    }
    return out;
}

// --- generated texts ----------------------------------------------------------------------
struct Rng {
    uint64_t state;
    uint64_t operator()(uint64_t n)
    {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        return state % n;
    }
};

// String contents (JSON-escaped already) chosen to look like structure.
const char* kTricky[] = {"}, {", "},{", "} ,\n {", "[{", "}]", "{", "}", "[", "]", ",", "\\\"", "\\\"}, {\\\"", "\\\\",
                         "\\\\\\\\", "\\\\\\\"", "\\u007d", "x", " ", "\\n", "traceEvents", "\\\"traceEvents\\\": ["};

std::string trickyString(Rng& rnd)
{
    std::string s = "\"";
    for (uint64_t i = 0, n = rnd(5); i < n; ++i)
        s += kTricky[rnd(std::size(kTricky))];
    // A string that ends in an escaped backslash: the byte before the closing quote is '\'.
    if (rnd(4) == 0)
        s += "\\\\";
    return s + "\"";
}

std::string ws(Rng& rnd)
{
    const char* w[] = {"", "", " ", "\n", " \t\r\n "};
    return w[rnd(std::size(w))];
}

std::string nested(Rng& rnd, int depth)
{
    switch (depth > 2 ? rnd(3) : rnd(6)) {
    case 0:
        return trickyString(rnd);
    case 1:
        return std::to_string(rnd(1000));
    case 2:
        return "null";
    case 3: {
        std::string a = "[";
        for (uint64_t i = 0, n = rnd(3); i < n; ++i)
            a += (i ? "," + ws(rnd) : "") + nested(rnd, depth + 1);
        return a + "]";
    }
    default: {
        std::string o = "{";
        for (uint64_t i = 0, n = rnd(3); i < n; ++i)
            o += (i ? "," + ws(rnd) : "") + trickyString(rnd) + ":" + ws(rnd) + nested(rnd, depth + 1);
        return o + "}";
    }
    }
}

std::string event(Rng& rnd, int k)
{
    std::string e = "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":" + trickyString(rnd) + ",\"pid\":0,\"tid\":" +
                    std::to_string(k % 3) + ",\"ts\":" + std::to_string(k) + ".5,\"dur\":1";
    if (rnd(2))
        e += ",\"args\":{\"correlation\":" + std::to_string(k) + ",\"nested\":" + nested(rnd, 0) + "}";
    if (rnd(3) == 0)
        e += ",\"other\":" + nested(rnd, 0);
    return e + "}";
}

std::string document(Rng& rnd, int events, bool arrayDocument)
{
    std::string body;
    for (int k = 0; k < events; ++k)
        body += (k ? ws(rnd) + "," + ws(rnd) : "") + event(rnd, k);
    if (arrayDocument)
        return ws(rnd) + "[" + ws(rnd) + body + ws(rnd) + "]" + ws(rnd);
    std::string before;
    for (uint64_t i = 0, n = rnd(3); i < n; ++i) {
        // Keys before the array: a nested "traceEvents" that must not match, tricky strings.
        if (rnd(3) == 0)
            before += "\"meta\":{\"traceEvents\":[{\"x\":1}]},";
        else
            before += trickyString(rnd) + ":" + ws(rnd) + nested(rnd, 0) + ",";
    }
    return "{" + ws(rnd) + before + ws(rnd) + "\"traceEvents\"" + ws(rnd) + ":" + ws(rnd) + "[" + body + "]" + "," +
           "\"after\":" + nested(rnd, 0) + "}";
}

// --- the sink of the tests: events written out, field by field ---------------------------
std::string describe(const TraceEvent& e)
{
    std::ostringstream o;
    o << e.ph << '|' << e.cat << '|' << e.name << '|' << e.pid.num << ',' << e.pid.numeric << '|' << e.tid.num << ','
      << e.tid.numeric << '|' << e.hasTs << ',' << e.ts << '|' << e.hasDur << ',' << e.dur << '|' << e.correlation << ','
      << e.externalId << '|' << e.hasDevice << ',' << e.device << '|' << e.hasStream << ',' << e.stream << '|' << e.bytes
      << '|' << e.config.grid[0] << ',' << e.config.grid[1] << ',' << e.config.grid[2] << '|' << e.config.block[0] << ','
      << e.config.registers << ',' << e.config.staticSmem << ',' << e.config.dynamicSmem << '|' << e.wtScope << ','
      << e.wtInstance << ',' << e.wtParent << '|' << e.level << '|' << (e.problem ? *e.problem : "");
    return o.str();
}

struct Recorder : TraceEventSink {
    std::vector<std::string> lines;
    std::vector<TraceEvent> events;   // views as handed over (valid: no releaseText here)
    std::function<void(const TraceEvent&)> check;
    void event(TraceEvent& e) override
    {
        if (check)
            check(e);
        lines.push_back(describe(e));
        events.push_back(e);
    }
};

std::string padded(const std::string& text) { return text + std::string(64, ' '); }

// One pass over `text`: the events, or the error.
std::vector<std::string> whole(const std::string& text, std::string* error = nullptr)
{
    std::string buf = padded(text);
    TraceEventTokenizer t("t.json");
    Recorder r;
    try {
        t.tokenize(buf.data(), text.size(), buf.size(), r);
    } catch (const ImportError& e) {
        if (error)
            *error = e.what();
        return {};
    }
    return r.lines;
}

}  // namespace

class TestTraceEventTokenizer : public QObject {
    Q_OBJECT

private slots:
    // --- boundary scanner: nextBoundary --------------------------------------------------
    void nextBoundaryCases_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<int>("from");
        QTest::addColumn<int>("expected");   // -1: none
        QTest::newRow("plain") << QByteArray("{},{}") << 0 << 2;
        QTest::newRow("whitespace around the comma") << QByteArray("{} \n,\t {}") << 0 << 4;
        QTest::newRow("from past the brace") << QByteArray("{},{}") << 2 << -1;
        QTest::newRow("from at the brace") << QByteArray("{},{}") << 1 << 2;
        QTest::newRow("no opening brace after") << QByteArray("{},[{}]") << 0 << -1;
        QTest::newRow("two braces before") << QByteArray("{{}},{}") << 0 << 4;
        QTest::newRow("brace, space, brace") << QByteArray("} }, {") << 0 << 3;
        QTest::newRow("comma then a brace-comma") << QByteArray("},}, {") << 0 << 3;
        QTest::newRow("inside a string (a candidate only)") << QByteArray("{\"n\":\"a}, {b\"}") << 0 << 8;
        QTest::newRow("after an escaped quote") << QByteArray("{\"n\":\"\\\"}, {\\\"\"}") << 0 << 9;
        QTest::newRow("nested array of objects") << QByteArray("{\"a\":[{},{}]},{}") << 0 << 8;
        QTest::newRow("truncated after the comma") << QByteArray("{},") << 0 << -1;
        QTest::newRow("truncated after the brace") << QByteArray("{}") << 0 << -1;
        QTest::newRow("empty") << QByteArray("") << 0 << -1;
        QTest::newRow("from at the end") << QByteArray("{},{}") << 5 << -1;
    }
    void nextBoundaryCases()
    {
        QFETCH(QByteArray, text);
        QFETCH(int, from);
        QFETCH(int, expected);
        const size_t got = TraceEventTokenizer::nextBoundary(text.constData(), size_t(text.size()), size_t(from));
        QCOMPARE(got == npos ? -1 : int(got), expected);
        QCOMPARE(got, boundaryOracle(text.toStdString(), size_t(from)));
    }

    // Every start position of many generated texts (and of every cut of them: truncated input,
    // slice ends after a backslash or inside a string): the scanner is its oracle.
    void nextBoundaryAgainstOracle()
    {
        Rng rnd{0x9E3779B97F4A7C15ull};
        size_t checked = 0;
        for (int round = 0; round < 300; ++round) {
            std::string t = document(rnd, 1 + int(rnd(6)), rnd(3) == 0);
            if (rnd(3) == 0)
                t.resize(rnd(t.size() + 1));
            for (size_t from = 0; from <= t.size(); ++from, ++checked) {
                const size_t got = TraceEventTokenizer::nextBoundary(t.data(), t.size(), from);
                const size_t want = boundaryOracle(t, from);
                if (got != want)
                    QFAIL(qPrintable(QStringLiteral("from %1: %2, oracle %3 in %4")
                                         .arg(from)
                                         .arg(qint64(got))
                                         .arg(qint64(want))
                                         .arg(QString::fromStdString(t))));
            }
        }
        QVERIFY(checked > 10000);
    }

    // Against the texts' real structure: every true event boundary is found (from just past the
    // previous one), none is skipped, and what the scanner finds that is not one lies inside a
    // string or a nested value, where the slice parse refuses it.
    void nextBoundaryNeverSkipsAnEvent()
    {
        Rng rnd{0xD1B54A32D192ED03ull};
        int falseCandidates = 0;
        for (int round = 0; round < 300; ++round) {
            const std::string t = document(rnd, 2 + int(rnd(6)), rnd(2) == 0);
            size_t key = 0;
            const size_t array = TraceEventTokenizer::findEventsArray(t.data(), t.size(), key);
            QVERIFY(array != npos);
            const std::vector<size_t> truth = trueBoundaries(t, array);
            size_t from = array + 1;
            for (size_t b : truth) {
                // Candidates before the true boundary are false ones (strings, nested values).
                size_t c = TraceEventTokenizer::nextBoundary(t.data(), t.size(), from);
                while (c != npos && c < b) {
                    const State s = stateAt(t, c);
                    QVERIFY(s.inString || s.depth > stateAt(t, array + 1).depth);
                    ++falseCandidates;
                    c = TraceEventTokenizer::nextBoundary(t.data(), t.size(), c + 1);
                }
                QCOMPARE(c, b);
                from = b + 1;
            }
        }
        QVERIFY(falseCandidates > 0);   // the texts did hold traps
    }

    // --- boundary scanner: findEventsArray -----------------------------------------------
    void findEventsArrayCases_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<int>("array");   // -1: none
        QTest::addColumn<int>("key");     // -1: none (an array document)
        QTest::newRow("array document") << QByteArray("  [{}]") << 2 << -1;
        QTest::newRow("object") << QByteArray("{\"traceEvents\":[]}") << 15 << 1;
        QTest::newRow("spaces") << QByteArray("{ \"traceEvents\" :\n [ ] }") << 19 << 2;
        QTest::newRow("after other keys") << QByteArray("{\"a\":\"}{[\",\"traceEvents\":[]}") << 25 << 11;
        QTest::newRow("nested key skipped") << QByteArray("{\"m\":{\"traceEvents\":[1]},\"traceEvents\":[]}") << 39 << 25;
        QTest::newRow("key inside a string") << QByteArray("{\"s\":\"\\\"traceEvents\\\":[\",\"traceEvents\":[]}") << 39 << 25;
        QTest::newRow("escaped backslash before the quote") << QByteArray("{\"s\":\"\\\\\",\"traceEvents\":[]}") << 24 << 10;
        QTest::newRow("escaped key is not the key") << QByteArray("{\"trace\\u0045vents\":[]}") << -1 << -1;
        QTest::newRow("value not an array") << QByteArray("{\"traceEvents\":{},\"traceEvents\":[]}") << 32 << 18;
        QTest::newRow("object closes first") << QByteArray("{\"a\":1} \"traceEvents\":[]") << -1 << -1;
        QTest::newRow("truncated in a string") << QByteArray("{\"a\":\"x") << -1 << -1;
        QTest::newRow("truncated before the array") << QByteArray("{\"traceEvents\":") << -1 << -1;
        QTest::newRow("not JSON") << QByteArray("x") << -1 << -1;
        QTest::newRow("empty") << QByteArray("") << -1 << -1;
    }
    void findEventsArrayCases()
    {
        QFETCH(QByteArray, text);
        QFETCH(int, array);
        QFETCH(int, key);
        size_t keyBegin = 0;
        const size_t got = TraceEventTokenizer::findEventsArray(text.constData(), size_t(text.size()), keyBegin);
        QCOMPARE(got == npos ? -1 : int(got), array);
        if (got != npos)
            QCOMPARE(keyBegin == npos ? -1 : int(keyBegin), key);
        size_t oracleKey = 0;
        QCOMPARE(got, eventsArrayOracle(text.toStdString(), oracleKey));
    }

    void findEventsArrayAgainstOracle()
    {
        Rng rnd{0x94D049BB133111EBull};
        for (int round = 0; round < 200; ++round) {
            const std::string full = document(rnd, 1 + int(rnd(3)), rnd(4) == 0);
            // The whole text and every cut of it.
            for (size_t n = 0; n <= full.size(); n += 1 + rnd(3)) {
                const std::string t = full.substr(0, n);
                size_t key = 0, oracleKey = 0;
                const size_t got = TraceEventTokenizer::findEventsArray(t.data(), t.size(), key);
                const size_t want = eventsArrayOracle(t, oracleKey);
                if (got != want || (got != npos && key != oracleKey))
                    QFAIL(qPrintable(QStringLiteral("%1 (key %2), oracle %3 (key %4) in %5")
                                         .arg(qint64(got))
                                         .arg(qint64(key))
                                         .arg(qint64(want))
                                         .arg(qint64(oracleKey))
                                         .arg(QString::fromStdString(t))));
            }
        }
    }

    // --- reading events -----------------------------------------------------------------
    void fields()
    {
        const std::string text =
            "{\"traceEvents\":["
            "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\\u00e9\",\"pid\":\"25738\",\"tid\":\"stream 7\",\"ts\":1700000000123456.789,\"dur\":2.5,"
            "\"args\":{\"correlation\":\"42\",\"External id\":7,\"device\":1,\"stream\":7,\"grid\":[2,3,4],\"block\":[128,1,1],"
            "\"registers per thread\":32,\"shared memory\":99,\"static shared memory\":16,\"dynamic shared memory\":8,\"bytes\":1024}},"
            "{\"ph\":\"B\",\"name\":\"r\",\"pid\":-3,\"tid\":\"Traces\",\"ts\":5,\"args\":{\"wt_scope\":4,\"wt_instance\":5,\"wt_parent\":6,\"level\":\"step\"}}"
            "]}";
        std::string buf = padded(text);
        TraceEventTokenizer t("t.json");
        Recorder r;
        t.tokenize(buf.data(), text.size(), buf.size(), r);
        QCOMPARE(r.events.size(), size_t(2));
        const TraceEvent& k = r.events[0];
        QCOMPARE(k.ph, 'X');
        QCOMPARE(k.cat, std::string_view("kernel"));
        QCOMPARE(std::string(k.name), std::string("k\xC3\xA9"));   // unescaped
        QCOMPARE(k.pid.num, int64_t(25738));
        QVERIFY(k.pid.numeric);
        QCOMPARE(k.tid.num, int64_t(7));
        QVERIFY(!k.tid.numeric);
        QVERIFY(k.hasTs && k.hasDur);
        QCOMPARE(k.ts, int64_t(1700000000123456789));   // exact, no double
        QCOMPARE(k.dur, int64_t(2500));
        QCOMPARE(k.correlation, int64_t(42));
        QCOMPARE(k.externalId, int64_t(7));
        QVERIFY(k.hasDevice && k.hasStream);
        QCOMPARE(k.device, int64_t(1));
        QCOMPARE(k.stream, int64_t(7));
        QCOMPARE(k.bytes, int64_t(1024));
        QCOMPARE(k.config.grid[2], 4);
        QCOMPARE(k.config.block[0], 128);
        QCOMPARE(k.config.registers, 32);
        QCOMPARE(k.config.staticSmem, 16);   // the split wins over "shared memory"
        QCOMPARE(k.config.dynamicSmem, 8);
        QVERIFY(k.problem == nullptr);
        const TraceEvent& b = r.events[1];
        QCOMPARE(b.ph, 'B');
        QCOMPARE(b.pid.num, int64_t(-3));
        QVERIFY(!b.tid.numeric);
        QVERIFY(b.tid.num >= (int64_t(1) << 40));   // a hash, apart from small numbers
        QVERIFY(!b.hasDur);
        QCOMPARE(b.wtScope, int64_t(4));
        QCOMPARE(b.wtInstance, int64_t(5));
        QCOMPARE(b.wtParent, int64_t(6));
        QCOMPARE(b.level, std::string_view("step"));
        // Strings without escapes are views into the input itself (no copy); escaped ones are
        // the tokenizer's copies.
        auto inInput = [&](std::string_view v) { return v.data() >= buf.data() && v.data() + v.size() <= buf.data() + text.size(); };
        QVERIFY(inInput(k.cat));
        QVERIFY(!inInput(k.name));
        QVERIFY(inInput(b.name));
        QVERIFY(inInput(b.level));
    }

    // A field that cannot be read skips the rest of its event and is kept on it for the parser;
    // the next events read normally.
    void problemsStayOnTheEvent_data()
    {
        QTest::addColumn<QByteArray>("field");
        QTest::addColumn<QString>("problem");
        QTest::newRow("ts as a string") << QByteArray("\"ts\":\"12\"") << "invalid timestamp '\"12\"': a string";
        QTest::newRow("negative ts") << QByteArray("\"ts\":-1") << "negative timestamp '-1'";
        QTest::newRow("ts out of range") << QByteArray("\"ts\":1e300") << "invalid timestamp '1e300' (out of range";
        QTest::newRow("bad correlation") << QByteArray("\"args\":{\"correlation\":\"x\"}") << "invalid number for correlation: 'x'";
        QTest::newRow("bad grid") << QByteArray("\"args\":{\"grid\":[1,\"y\"]}") << "invalid number for grid/block: 'y'";
    }
    void problemsStayOnTheEvent()
    {
        QFETCH(QByteArray, field);
        QFETCH(QString, problem);
        const std::string text = "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"bad\"," + field.toStdString() +
                                 ",\"dur\":3},{\"ph\":\"X\",\"name\":\"good\",\"ts\":1}]}";
        std::string buf = padded(text);
        TraceEventTokenizer t("t.json");
        Recorder r;
        t.tokenize(buf.data(), text.size(), buf.size(), r);
        QCOMPARE(r.events.size(), size_t(2));
        QVERIFY(r.events[0].problem);
        QVERIFY2(QString::fromStdString(*r.events[0].problem).startsWith(problem), r.events[0].problem->c_str());
        QVERIFY(!r.events[0].hasDur);   // skipped after the bad field
        QVERIFY(!r.events[1].problem);
        QCOMPARE(r.events[1].ts, int64_t(1000));
    }

    // An event of a phase the parser does not read (flow s/f, instant i, counter C) is handed
    // on with its ph alone: the fields after ph are skipped unread, bad ones included; a field
    // before ph is still read (the phase is not known yet).
    void otherPhasesSkippedAfterPh()
    {
        const std::string text =
            "{\"traceEvents\":["
            "{\"ph\":\"f\",\"id\":1,\"pid\":9,\"tid\":9,\"ts\":\"bad\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"bp\":\"e\"},"
            "{\"ph\":\"i\",\"name\":\"mark\",\"ts\":-5,\"args\":{\"correlation\":\"x\"}},"
            "{\"ph\":\"C\",\"name\":\"mem\",\"ts\":7,\"args\":{\"bytes\":[1,{\"n\":2}]}},"
            "{\"pid\":4,\"ts\":\"bad\",\"ph\":\"s\"},"
            "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":1,\"tid\":2,\"ts\":3,\"dur\":4}"
            "]}";
        std::string buf = padded(text);
        TraceEventTokenizer t("t.json");
        Recorder r;
        t.tokenize(buf.data(), text.size(), buf.size(), r);
        QCOMPARE(r.events.size(), size_t(5));
        for (int i = 0; i < 3; ++i) {
            const TraceEvent& e = r.events[size_t(i)];
            QCOMPARE(e.ph, "fiC"[i]);
            QVERIFY(!e.problem);
            QVERIFY(!e.hasTs);
            QVERIFY(e.name.empty());
            QCOMPARE(e.pid.num, int64_t(0));
            QCOMPARE(e.correlation, int64_t(0));
        }
        QVERIFY(r.events[3].problem);   // "ts" came before "ph"
        QCOMPARE(r.events[3].pid.num, int64_t(4));
        const TraceEvent& k = r.events[4];
        QCOMPARE(k.ph, 'X');
        QVERIFY(!k.problem);
        QCOMPARE(k.name, std::string_view("k"));
        QCOMPARE(k.ts, int64_t(3000));
        QCOMPARE(k.dur, int64_t(4000));
        QCOMPARE(k.tid.num, int64_t(2));
        QVERIFY(keptPhase('X') && keptPhase('B') && keptPhase('E') && keptPhase('M'));
        QVERIFY(!keptPhase('s') && !keptPhase('f') && !keptPhase('i') && !keptPhase('C') && !keptPhase(0));
    }

    void header()
    {
        const std::string text =
            "{\"schemaVersion\":1,\"deviceProperties\":[{\"id\":0,\"name\":\"A100\",\"smCount\":108},{\"name\":\"no id\"},{\"id\":3}],"
            "\"distributedInfo\":{\"rank\":1, \"world_size\":2},\"traceName\":\"x\",\"baseTimeNanoseconds\":1700000000000000000,"
            "\"traceEvents\":[],\"wheretime\":{\"version\":\"0.9\",\"origin_ns\":12345,\"run\":\"r\"}}";
        std::string buf = padded(text);
        TraceEventTokenizer t("t.json");
        Recorder r;
        t.tokenize(buf.data(), text.size(), buf.size(), r);
        const TraceHeader& h = t.header();
        QVERIFY(h.kineto);
        QVERIFY(h.wheretime);
        QCOMPARE(h.clockBaseNs, int64_t(12345));   // origin_ns comes later in the text
        QVERIFY(h.zeroAtClockBase);
        QCOMPARE(h.devices.size(), size_t(2));
        QCOMPARE(h.devices[0].name, std::string("A100"));
        QCOMPARE(h.devices[0].propertiesJson, std::string("{\"id\":0,\"name\":\"A100\",\"smCount\":108}"));
        QCOMPARE(h.devices[1].id, 3);
        QCOMPARE(h.devices[1].name, std::string("GPU 3"));
        std::vector<std::pair<std::string, std::string>> meta = {{"kineto.schemaVersion", "1"},
                                                                 {"kineto.distributedInfo", "{\"rank\":1, \"world_size\":2}"},
                                                                 {"source.version", "0.9"},
                                                                 {"source.run", "r"}};
        QVERIFY(h.metadata == meta);

        TraceEventTokenizer plain("p.json");
        const std::string chrome = "[{\"ph\":\"X\",\"name\":\"a\",\"ts\":1}]";
        std::string pbuf = padded(chrome);
        plain.tokenize(pbuf.data(), chrome.size(), pbuf.size(), r);
        QVERIFY(!plain.header().kineto && !plain.header().wheretime && plain.header().metadata.empty());
    }

    void errors_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QString>("needle");
        QTest::newRow("empty") << QByteArray(" \n") << "t.json: empty file (no JSON)";
        QTest::newRow("not JSON") << QByteArray("hello") << "not JSON (expected '{' or '[' at the start)";
        QTest::newRow("truncated") << QByteArray("{\"traceEvents\":[{\"ph\":\"X\"") << "invalid or truncated JSON";
        QTest::newRow("event not an object") << QByteArray("{\"traceEvents\":[1]}") << "invalid or truncated JSON";
        QTest::newRow("no traceEvents") << QByteArray("{\"a\":1}") << "no traceEvents array";
        QTest::newRow("two documents") << QByteArray("{\"traceEvents\":[]} {\"traceEvents\":[]}") << "two JSON documents concatenated";
        QTest::newRow("base time out of range") << QByteArray("{\"baseTimeNanoseconds\":-1,\"traceEvents\":[]}")
                                                << "baseTimeNanoseconds -1 is out of range";
        QTest::newRow("bad device id") << QByteArray("{\"deviceProperties\":[{\"id\":\"x\"}],\"traceEvents\":[]}")
                                       << "invalid number for device id: 'x'";
    }
    void errors()
    {
        QFETCH(QByteArray, text);
        QFETCH(QString, needle);
        std::string error;
        whole(text.toStdString(), &error);
        QVERIFY2(QString::fromStdString(error).contains(needle), error.c_str());
    }

    // What the sink throws stops the walk and reaches the caller unchanged.
    void sinkErrorsPassThrough()
    {
        const std::string text = "[{\"ph\":\"X\",\"ts\":1},{\"ph\":\"X\",\"ts\":2}]";
        std::string buf = padded(text);
        TraceEventTokenizer t("t.json");
        Recorder r;
        r.check = [&](const TraceEvent&) {
            if (!r.lines.empty())
                throw ImportError("t.json", "stop");
        };
        QVERIFY_THROWS_EXCEPTION(ImportError, t.tokenize(buf.data(), text.size(), buf.size(), r));
        QCOMPARE(r.lines.size(), size_t(1));
    }

    // Without padding the tokenizer copies the text (once) and its views point into that copy.
    void unpaddedText()
    {
        const std::string text = "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"k\",\"ts\":1}]}";
        std::vector<char> exact(text.begin(), text.end());
        TraceEventTokenizer t("t.json");
        Recorder r;
        t.tokenize(exact.data(), exact.size(), exact.size(), r);
        QCOMPARE(r.events.size(), size_t(1));
        QCOMPARE(r.events[0].name, std::string_view("k"));
        QVERIFY(r.lines == whole(text));
    }

    // --- the sliced walk ----------------------------------------------------------------
    // Every slice size over generated texts: the same events in the same order as one pass, or
    // false (a cut inside a string or nested value, a truncated text). A text whose only
    // candidates are true boundaries always splits.
    void slicedSameAsWhole()
    {
        Rng rnd{0xBF58476D1CE4E5B9ull};
        int splits = 0, refusals = 0;
        for (int round = 0; round < 120; ++round) {
            std::string text = document(rnd, 1 + int(rnd(8)), rnd(3) == 0);
            const bool truncated = rnd(6) == 0;
            if (truncated)
                text.resize(rnd(text.size()));
            std::string error;
            const std::vector<std::string> one = whole(text, &error);
            size_t key = 0;
            const size_t array = TraceEventTokenizer::findEventsArray(text.data(), text.size(), key);
            for (size_t slice = 1; slice <= text.size(); slice += 1 + slice / 8) {
                TraceEventTokenizer t("t.json");
                Recorder r;
                const std::vector<char> input(text.begin(), text.end());   // no padding: the slices copy
                r.check = [&](const TraceEvent& e) {
                    // Views point into the caller's text, not into the reused slice buffers
                    // (only strings that had escapes are the tokenizer's copies).
                    for (std::string_view v : {e.cat, e.name})
                        QVERIFY(v.empty() || (v.data() >= input.data() && v.data() + v.size() <= input.data() + input.size()) ||
                                text.find('\\') != npos);
                };
                if (t.tokenizeSliced(input.data(), input.size(), slice, false, r)) {
                    ++splits;
                    QVERIFY2(error.empty(), text.c_str());
                    if (r.lines != one)
                        QFAIL(qPrintable(QStringLiteral("slice %1: events differ in %2").arg(slice).arg(QString::fromStdString(text))));
                } else {
                    ++refusals;
                    // Refused only with a reason: a false candidate at a cut, or a bad text.
                    bool falseCut = false;
                    if (array != npos) {
                        const auto truth = trueBoundaries(text, array);
                        for (size_t pos = array + 1; pos < text.size();) {
                            size_t cut = pos + slice < text.size() ? TraceEventTokenizer::nextBoundary(text.data(), text.size(), pos + slice) : npos;
                            if (cut == npos)
                                break;
                            if (std::find(truth.begin(), truth.end(), cut) == truth.end())
                                falseCut = true;
                            pos = cut + 1;
                        }
                    }
                    QVERIFY2(falseCut || !error.empty(), qPrintable(QStringLiteral("slice %1 refused %2").arg(slice).arg(QString::fromStdString(text))));
                }
            }
        }
        QVERIFY(splits > 0 && refusals > 0);
    }

    void slicedRefusesABoundaryInsideAString()
    {
        // The only candidate is inside the first name: the cut there cannot pass.
        const std::string text = "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a}, {b\",\"ts\":1},{\"ph\":\"X\",\"name\":\"c\",\"ts\":2}]}";
        const size_t cut = TraceEventTokenizer::nextBoundary(text.data(), text.size(), 20);
        QCOMPARE(cut, text.find("}, {b") + 1);
        TraceEventTokenizer t("t.json");
        Recorder r;
        QVERIFY(!t.tokenizeSliced(text.data(), text.size(), 10, false, r));
        QCOMPARE(whole(text).size(), size_t(2));
        // A slice size that starts the search past it: the true boundary is the cut.
        const size_t body = text.find('[') + 1, trueCut = text.find("},{") + 1;
        const size_t slice = cut + 1 - body;
        QCOMPARE(TraceEventTokenizer::nextBoundary(text.data(), text.size(), body + slice), trueCut);
        TraceEventTokenizer t2("t.json");
        Recorder r2;
        QVERIFY(t2.tokenizeSliced(text.data(), text.size(), slice, false, r2));
        QVERIFY(r2.lines == whole(text));
    }

    void slicedHeaderAsWhole()
    {
        const std::string text = "{\"schemaVersion\":1,\"traceEvents\":[{\"ph\":\"X\",\"ts\":1},{\"ph\":\"X\",\"ts\":2},{\"ph\":\"X\",\"ts\":3}],"
                                 "\"deviceProperties\":[{\"id\":0,\"name\":\"G\"}],\"baseTimeNanoseconds\":7}";
        std::string buf = padded(text);
        TraceEventTokenizer a("t.json"), b("t.json");
        Recorder ra, rb;
        a.tokenize(buf.data(), text.size(), buf.size(), ra);
        QVERIFY(b.tokenizeSliced(text.data(), text.size(), 8, false, rb));
        QVERIFY(rb.lines == ra.lines);
        QCOMPARE(rb.lines.size(), size_t(3));
        QCOMPARE(b.header().clockBaseNs, a.header().clockBaseNs);
        QVERIFY(b.header().metadata == a.header().metadata);
        QCOMPARE(b.header().devices.size(), size_t(1));
        QVERIFY(b.header().kineto);
    }

    void slicedSharedTrace()
    {
        WT_REQUIRE_TRACE(path, "kineto_v100_ns-resolution.pt.trace.json.gz");
        const std::string text = wt::test::gunzipped(path.toStdString());
        QVERIFY(text.size() > 1000000);
        const std::vector<std::string> one = whole(text);
        QVERIFY(one.size() > 10000);
        for (size_t slice : {size_t(4096), size_t(100003), size_t(1) << 20}) {
            TraceEventTokenizer t("t.json");
            Recorder r;
            QVERIFY(t.tokenizeSliced(text.data(), text.size(), slice, false, r));
            QVERIFY(r.lines == one);
        }
    }
};

QTEST_GUILESS_MAIN(TestTraceEventTokenizer)
#include "tst_traceeventtokenizer.moc"
