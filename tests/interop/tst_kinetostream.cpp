// Large Kineto traces stream (issue 29, item 4): the fast paths of the import give the same run
// as the plain ones. The quick timestamp parser against the exact one; the sliced parse on 1, 2
// and 3 threads against one pass, on the shared Kineto traces and on a generated file of many
// copies of one, compared field by field in memory and table by table once stored.
#include "interop/exacttime.h"
#include "interop/importer.h"
#include "interop/traceeventimporter.h"
#include "storage/database.h"
#include "tests/support/tabledump.h"
#include "tests/support/testsupport.h"

#include <QFile>
#include <QTest>

#include <sqlite3.h>
#include <zlib.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

using namespace wt;
using namespace wt::interop;

namespace {

// Every field of a parsed trace as text: two traces are the same when these are.
std::string describe(const ImportedTrace& t)
{
    std::ostringstream o;
    o << t.format << " base " << t.clockBaseNs << " zero " << t.zeroAtClockBase << " epoch " << t.epochClock << "\n";
    for (const auto& d : t.devices)
        o << "device " << d.id << " " << d.name << " " << d.propertiesJson << "\n";
    for (const auto& [k, v] : t.metadata)
        o << "meta " << k << "=" << v << "\n";
    for (size_t i = 0; i < t.strings.size(); ++i)
        o << "string " << i << " " << t.strings.at(uint32_t(i)) << "\n";
    for (const auto& a : t.activities)
        o << "activity " << a.startNs << " " << a.endNs << " " << a.device << " " << a.stream << " " << int(a.kind) << " " << a.name << " "
          << a.correlationId << " " << a.config.grid[0] << "," << a.config.grid[1] << "," << a.config.grid[2] << " " << a.config.block[0]
          << "," << a.config.block[1] << "," << a.config.block[2] << " " << a.config.registers << " " << a.config.staticSmem << " "
          << a.config.dynamicSmem << " " << a.bytes << " " << a.range << "\n";
    for (const auto& c : t.calls)
        o << "call " << c.startNs << " " << c.endNs << " " << c.thread << " " << c.name << " " << c.correlationId << " " << c.osThread << "\n";
    for (const auto& r : t.ranges)
        o << "range " << r.startNs << " " << r.endNs << " " << r.thread << " " << r.name << " " << r.level << " " << r.onGpu << " "
          << r.parent << " " << r.parentGiven << "\n";
    std::vector<std::tuple<int64_t, int64_t, int64_t, std::string, std::string>> threads;
    for (const auto& [k, th] : t.threads)
        threads.emplace_back(k, th.pid, th.tid, th.name, th.processName);
    std::sort(threads.begin(), threads.end());
    for (const auto& [k, pid, tid, name, process] : threads)
        o << "thread " << k << " " << pid << " " << tid << " " << name << " " << process << "\n";
    const auto& n = t.counts;
    o << "counts " << n.kernels << " " << n.memcpys << " " << n.memsets << " " << n.runtimeCalls << " " << n.ranges << " " << n.gpuAnnotations
      << " " << n.skippedRanges << "\n";
    return o.str();
}

using wt::test::dumpTables;

// The text of traceEvents' elements (between its brackets) and where they are.
bool eventsBody(const std::string& text, size_t& begin, size_t& end)
{
    size_t key = 0;
    size_t open = TraceEventTokenizer::findEventsArray(text.data(), text.size(), key);
    if (open == std::string::npos)
        return false;
    int depth = 0;
    for (size_t i = open; i < text.size(); ++i) {
        char c = text[i];
        if (c == '"') {
            for (++i; i < text.size() && text[i] != '"'; ++i)
                if (text[i] == '\\')
                    ++i;
        } else if (c == '[' || c == '{') {
            ++depth;
        } else if ((c == ']' || c == '}') && --depth == 0) {
            begin = open + 1;
            end = i;
            return true;
        }
    }
    return false;
}

}  // namespace

class TestKinetoStream : public QObject {
    Q_OBJECT
private slots:
    void quickMicrosSameAsExact();
    void threadsGiveTheSameTrace_data();
    void threadsGiveTheSameTrace();
    void threadsStoreTheSameRun();
};

void TestKinetoStream::quickMicrosSameAsExact()
{
    // Where the quick path answers, it answers what the exact parser does; on the forms Kineto
    // writes it always answers.
    const char* fixed[] = {"0", "7", "1712195495505582.988", "4.928", "1.", "0.5", "63.81", "1623143093496523", "9999999999999999.999",
                           "12345678", "123456789", "00000000000000001.5", "1.0005", "-1.5", "1e3", "12a", "", ".5", "1.2.3",
                           "99999999999999999", "9223372036854775.807", "9223372036854775.808"};
    for (const char* s : fixed) {
        int64_t quick = 0;
        const bool ok = quickMicrosToNs(s, quick);
        auto exact = microsToNs(s);
        if (ok) {
            QVERIFY2(exact.has_value(), s);
            QCOMPARE(quick, *exact);
        }
    }
    uint64_t state = 0x9E3779B97F4A7C15ull;
    auto rnd = [&](uint64_t n) {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        return state % n;
    };
    const char alphabet[] = "0123456789012345678901234567890123456789.-e ";
    int answered = 0;
    for (int round = 0; round < 200000; ++round) {
        std::string s;
        if (rnd(2)) {   // Kineto's form: 1-16 digits, maybe a fraction of 0-3 digits
            for (uint64_t i = 0, n = 1 + rnd(16); i < n; ++i)
                s += char('0' + rnd(10));
            if (rnd(2)) {
                s += '.';
                for (uint64_t i = 0, n = rnd(4); i < n; ++i)
                    s += char('0' + rnd(10));
            }
            // Answered unless the nanoseconds pass int64 (16 integer digits from 9223372036854776).
            int64_t quick = 0;
            auto exact = microsToNs(s);
            QVERIFY2(quickMicrosToNs(s, quick) == exact.has_value(), s.c_str());
        } else {
            for (uint64_t i = 0, n = rnd(24); i < n; ++i)
                s += alphabet[rnd(sizeof alphabet - 1)];
        }
        int64_t quick = 0;
        if (quickMicrosToNs(s, quick)) {
            ++answered;
            auto exact = microsToNs(s);
            QVERIFY2(exact.has_value() && *exact == quick, s.c_str());
        }
    }
    QVERIFY(answered > 100000);
}

void TestKinetoStream::threadsGiveTheSameTrace_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("copies");
    for (const char* f : {"kineto_v100_ns-resolution.pt.trace.json.gz", "kineto-2021_v100_resnet50.pt.trace.json.gz",
                          "kineto-hta_2ranks_rank-0.json.gz", "kineto_a100_nccl_rank-0-of-2.json.gz"})
        QTest::newRow(f) << QString::fromLatin1(f) << 1;
    // A generated file: the events of one trace three times over (the copies nest into each
    // other, and their ranges, calls and kernels cross every slice boundary).
    QTest::newRow("ns-resolution x3") << QStringLiteral("kineto_v100_ns-resolution.pt.trace.json.gz") << 3;
}

void TestKinetoStream::threadsGiveTheSameTrace()
{
    QFETCH(QString, file);
    QFETCH(int, copies);
    WT_REQUIRE_TRACE(path, file);
    std::string text = wt::test::gunzipped(path.toStdString());
    QVERIFY(!text.empty());
    if (copies > 1) {
        size_t b = 0, e = 0;
        QVERIFY(eventsBody(text, b, e));
        const std::string body = text.substr(b, e - b);
        std::string many = text.substr(0, b);
        for (int i = 0; i < copies; ++i)
            many += (i ? "," : "") + body;
        many += text.substr(e);
        text = std::move(many);
    }
    const size_t n = text.size();
    const std::string name = file.toStdString();
    std::string padded = text + std::string(64, ' ');
    const std::string reference = describe(TraceEventImporter::parse(name, padded.data(), n, padded.size(), 0));
    QVERIFY(reference.find("activity ") != std::string::npos);
    // Slices of 64 KiB and of a prime size, each on 1, 2 and 3 threads; the text without padding
    // (the slices copy it) and, as the import does, given back page by page (releaseText).
    const std::tuple<size_t, int, bool> runs[] = {{size_t(64) << 10, 1, false}, {size_t(64) << 10, 2, true}, {size_t(64) << 10, 3, false},
                                                  {size_t(100003), 2, false}, {size_t(100003), 3, true}};
    for (const auto& [slice, threads, release] : runs) {
        std::string copy = text;   // releaseText drops the pages of this copy
        ImportedTrace t = TraceEventImporter::parse(name, copy.data(), n, n, slice, release, threads);
        QVERIFY2(t.slices >= int64_t(n / slice / 2), qPrintable(QStringLiteral("%1 slices").arg(t.slices)));
        const std::string got = describe(t);
        QVERIFY2(got == reference, qPrintable(QStringLiteral("slice %1, %2 threads, release %3 differs from one pass")
                                                  .arg(slice)
                                                  .arg(threads)
                                                  .arg(release)));
    }
}

void TestKinetoStream::threadsStoreTheSameRun()
{
    // What is stored: the generated many-copies file, plain (slices of its mapping) and gzipped
    // (a stream inflated slice by slice), imported on 1, 2 and 3 threads, gives the file that
    // one pass gives, table by table (the plain and the gzipped runs differ in the source name).
    const char* source = "kineto_v100_ns-resolution.pt.trace.json.gz";
    WT_REQUIRE_TRACE(path, source);
    const std::string text = wt::test::gunzipped(path.toStdString());
    size_t b = 0, e = 0;
    QVERIFY(eventsBody(text, b, e));
    std::string many = text.substr(0, b);
    for (int i = 0; i < 3; ++i)
        many += (i ? "," : "") + text.substr(b, e - b);
    many += text.substr(e);
    const std::string plain = wt::test::tempPath("copies.json"), gz = wt::test::tempPath("copies.json.gz");
    std::ofstream(plain, std::ios::binary) << many;
    {
        gzFile f = gzopen(gz.c_str(), "wb1");
        gzwrite(f, many.data(), unsigned(many.size()));
        gzclose(f);
    }
    auto import = [&](const std::string& input, size_t slice, int threads) {
        const std::string out = wt::test::tempPath("copies-" + std::to_string(slice) + "-" + std::to_string(threads) + ".wt");
        QFile::remove(QString::fromStdString(out));
        {
            Database db(out, OpenMode::ReadWrite);
            ImportOptions o;
            o.name = "copies";
            o.sliceBytes = slice;
            o.parseThreads = threads;
            ImportResult r = importTrace(db, input, o);
            if (r.written.kernels != 3 * 4350)
                return std::string("kernels: ") + std::to_string(r.written.kernels);
            if (slice < (size_t(1) << 40) && r.slices < int64_t(many.size() / slice / 2))
                return std::string("slices: ") + std::to_string(r.slices);
        }
        return dumpTables(out);
    };
    const std::string onePass = import(plain, size_t(1) << 40, 1);
    QVERIFY(onePass.find("table activity_chunks") != std::string::npos);
    const std::string oneStream = import(gz, size_t(1) << 40, 1);
    QVERIFY(oneStream.find("table activity_chunks") != std::string::npos);
    for (int threads : {1, 2, 3}) {
        QVERIFY2(import(plain, size_t(256) << 10, threads) == onePass, qPrintable(QStringLiteral("plain, %1 threads").arg(threads)));
        QVERIFY2(import(gz, size_t(256) << 10, threads) == oneStream, qPrintable(QStringLiteral("gzip, %1 threads").arg(threads)));
    }
}

QTEST_GUILESS_MAIN(TestKinetoStream)
#include "tst_kinetostream.moc"
