// Interop: each shared trace imports with its reference numbers; exports read back to the same
// kernels and scopes; every kind of bad input gives a one-line error and leaves the output file
// as it was; timestamps are exact to the nanosecond.
#include "analysis/breakdown.h"
#include "tests/support/synthrun.h"
#include "storage/database.h"
#include "interop/chromeexporter.h"
#include "interop/csvexporter.h"
#include "interop/exacttime.h"
#include "interop/importer.h"
#include "interop/importerror.h"
#include "interop/multirank.h"
#include "analysis/rankstats.h"
#include "analysis/activityview.h"
#include "analysis/scopetree.h"
#include "interop/nsysimporter.h"
#include "interop/traceeventimporter.h"
#include "storage/reader.h"
#include "storage/storageerror.h"
#include "storage/writer.h"
#include "tests/support/tabledump.h"
#include "tests/support/testsupport.h"

#include <QDir>
#include <QFile>
#include <QTest>

#include <sqlite3.h>
#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

using namespace wt;
using namespace wt::interop;

namespace {

struct Numbers {
    int64_t kernels = 0, distinctNames = 0, memcpys = 0, memsets = 0, apiCalls = 0, scopeInstances = 0;
    int64_t kernelTimeNs = 0, busyNs = 0, spanNs = 0;
    std::set<std::pair<int32_t, int64_t>> kernelStreams;
    std::map<int32_t, int64_t> kernelsPerDevice;
    std::map<std::string, std::pair<int64_t, int64_t>> perName;   // count, time
};

Numbers numbersOf(Database& db, int64_t runId)
{
    Reader r(db);
    Numbers n;
    RunStats s = computeRunStats(r, runId, BreakdownOptions{});
    n.kernels = s.kernels;
    n.kernelTimeNs = s.kernelTimeNs;
    n.busyNs = s.kernelBusyNs;   // the stored summary: kernels only, the README's busy and span
    n.spanNs = s.kernelSpanNs;
    std::map<int64_t, const Track*> tracks;
    auto ts = r.tracks(runId);
    for (const auto& t : ts)
        tracks[t.id] = &t;
    std::set<uint32_t> names;
    r.forEachActivity(runId, [&](const Activity& a) {
        if (a.kind == ActivityKind::Kernel) {
            names.insert(a.nameId);
            n.kernelStreams.insert({tracks[a.trackId]->deviceId, tracks[a.trackId]->stream});
            ++n.kernelsPerDevice[tracks[a.trackId]->deviceId];
            auto& p = n.perName[r.string(a.nameId)];
            ++p.first;
            p.second += a.endNs - a.startNs;
        } else if (a.kind == ActivityKind::Memcpy) {
            ++n.memcpys;
        } else {
            ++n.memsets;
        }
        return true;
    });
    n.distinctNames = int64_t(names.size());
    n.apiCalls = int64_t(r.apiCalls(runId).size());
    n.scopeInstances = int64_t(r.scopeInstances(runId).size());
    return n;
}

std::string trace(const char* name)
{
    QString p = wt::test::sharedTrace(QString::fromLatin1(name));
    return p.toStdString();
}

void writeBytes(const std::string& path, const QByteArray& bytes)
{
    QFile f(QString::fromStdString(path));
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(bytes);
}

QByteArray gzipBytes(const QByteArray& data)
{
    std::string tmp = wt::test::tempPath("gz.gz");
    gzFile gz = gzopen(tmp.c_str(), "wb");
    gzwrite(gz, data.constData(), unsigned(data.size()));
    gzclose(gz);
    QFile f(QString::fromStdString(tmp));
    f.open(QIODevice::ReadOnly);
    return f.readAll();
}

QByteArray readAll(const std::string& path)
{
    QFile f(QString::fromStdString(path));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return f.readAll();
}

// Everything a parse produced, as text, so two parses can be compared whole.
std::string describe(const ImportedTrace& t)
{
    std::ostringstream o;
    o << t.format << ' ' << t.clockBaseNs << ' ' << t.epochClock << '\n';
    for (const auto& d : t.devices)
        o << "device " << d.id << ' ' << d.name << ' ' << d.propertiesJson << '\n';
    for (const auto& [k, v] : t.metadata)
        o << "meta " << k << '=' << v << '\n';
    for (const auto& r : t.ranges)
        o << "range " << r.startNs << ' ' << r.endNs << ' ' << r.thread << ' ' << t.strings.at(r.name) << ' '
          << t.strings.at(r.level) << ' ' << r.onGpu << ' ' << r.parent << ' ' << r.parentGiven << '\n';
    for (const auto& a : t.activities)
        o << "act " << a.startNs << ' ' << a.endNs << ' ' << a.device << ' ' << a.stream << ' ' << int(a.kind) << ' '
          << t.strings.at(a.name) << ' ' << a.correlationId << ' ' << a.config.grid[0] << ' ' << a.config.block[0] << ' '
          << a.config.registers << ' ' << a.config.staticSmem << ' ' << a.config.dynamicSmem << ' ' << a.bytes << ' ' << a.range
          << '\n';
    for (const auto& c : t.calls)
        o << "call " << c.startNs << ' ' << c.endNs << ' ' << c.thread << ' ' << t.strings.at(c.name) << ' ' << c.correlationId
          << ' ' << c.osThread << '\n';
    const auto& n = t.counts;
    o << n.kernels << ' ' << n.memcpys << ' ' << n.memsets << ' ' << n.runtimeCalls << ' ' << n.ranges << ' ' << n.gpuAnnotations
      << ' ' << n.skippedRanges << '\n';
    return o.str();
}

// A text handed out in pieces of at most `piece` bytes (a gzip stream hands out what it inflated).
class PieceStream final : public TextStream {
public:
    PieceStream(const std::string& text, size_t piece) : m_text(text), m_piece(piece) {}
    size_t read(char* dst, size_t max) override
    {
        size_t n = std::min({max, m_piece, m_text.size() - m_pos});
        std::memcpy(dst, m_text.data() + m_pos, n);
        m_pos += n;
        return n;
    }

private:
    const std::string& m_text;
    size_t m_piece;
    size_t m_pos = 0;
};

using wt::test::dumpTables;

// Parses `json` in one pass and in slices of `sliceBytes`: both must give the same trace, or
// the same error.
void compareSlicedWithWhole(const std::string& json, size_t sliceBytes)
{
    std::string buf = json + std::string(64, ' ');
    std::string whole, sliced, wholeError, slicedError;
    try {
        whole = describe(TraceEventImporter::parse("t.json", buf.data(), json.size(), buf.size(), 0));
    } catch (const ImportError& e) {
        wholeError = e.what();
    }
    try {
        sliced = describe(TraceEventImporter::parse("t.json", buf.data(), json.size(), buf.size(), sliceBytes));
    } catch (const ImportError& e) {
        slicedError = e.what();
    }
    QCOMPARE(slicedError, wholeError);
    QCOMPARE(sliced.size(), whole.size());
    QVERIFY(sliced == whole);
    // Read as a stream in pieces of odd sizes: where it does not refuse (and leave the text
    // to the one-pass parse), the same trace, and only where the whole text parses.
    for (size_t piece : {size_t(1), size_t(13), size_t(4096)}) {
        PieceStream in(json, piece);
        ImportedTrace streamed;
        bool ok = false;
        try {
            ok = TraceEventImporter::parseStream("t.json", in, streamed, sliceBytes);
        } catch (const ImportError& e) {
            // finish() of a trace without GPU activities: the same error as the whole text's.
            QCOMPARE(std::string(e.what()), wholeError);
            continue;
        }
        if (ok) {
            QVERIFY2(wholeError.empty(), wholeError.c_str());
            QVERIFY(describe(streamed) == whole);
        }
    }
}

// A wheretime file holding one synthetic run: the "earlier run" bad imports must not touch.
std::string fileWithOneRun()
{
    std::string path = wt::test::tempPath("earlier.wt");
    Database db(path, OpenMode::ReadWrite);
    Writer w(db);
    synth::Options o;
    o.kernels = 2000;
    o.name = "earlier";
    synth::generate(w, o);
    return path;
}

}  // namespace

class TestInterop : public QObject {
    Q_OBJECT

private slots:
    void exactTime_data();
    void exactTime();
    void nvtxNames();
    void referenceNumbers_data();
    void referenceNumbers();
    void nsysAttribution();
    void kinetoScopesAndCounts();
    void chromeRoundTrip();
    void chromeRoundTripOfImport();
    void csvExport();
    void plainChromeTrace();
    void slicedParse_data();
    void slicedParse();
    void slicedParseOfSharedTraces();
    void slicedParseRandomTexts();
    void streamedParseOfSharedTraces();
    void streamedImportSameRunInAnyWindow();
    void badInput_data();
    void badInput();
    void missingFile();
    void rangeErrorsSameWhenSliced();
    void nsysTimesOutOfRange();
    void longNamesAreCut();
    void cliImportExport();
    void fuzzRegressions();
    void multiRankPairAsOneRun();
    void multiRankRefused();
    void multiRankFileOrderAndDirectory();
};

void TestInterop::exactTime_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<qint64>("ns");
    QTest::addColumn<bool>("ok");
    QTest::newRow("kineto absolute") << "1712195495505583.987" << qint64(1712195495505583987LL) << true;
    QTest::newRow("integer") << "1623143093496523" << qint64(1623143093496523000LL) << true;
    QTest::newRow("fraction") << "63.813" << qint64(63813) << true;
    QTest::newRow("leading zeros") << "0.005" << qint64(5) << true;
    QTest::newRow("sub-ns rounds") << "1.0005" << qint64(1001) << true;
    QTest::newRow("exponent") << "1.5e3" << qint64(1500000) << true;
    QTest::newRow("negative exponent") << "2500e-3" << qint64(2500) << true;
    QTest::newRow("negative") << "-12.5" << qint64(-12500) << true;
    QTest::newRow("zero") << "0" << qint64(0) << true;
    QTest::newRow("overflow") << "99999999999999999999" << qint64(0) << false;
    QTest::newRow("garbage") << "12a" << qint64(0) << false;
    QTest::newRow("empty") << "" << qint64(0) << false;
    QTest::newRow("bad exponent") << "1e" << qint64(0) << false;
}

void TestInterop::exactTime()
{
    QFETCH(QString, text);
    QFETCH(qint64, ns);
    QFETCH(bool, ok);
    auto v = microsToNs(text.toStdString());
    QCOMPARE(v.has_value(), ok);
    if (ok) {
        QCOMPARE(qint64(*v), ns);
        if (ns >= 0)
            QCOMPARE(microsToNs(nsToMicrosText(*v)).value(), *v);
    }
    // A double cannot hold these nanoseconds: the reason this parser exists.
    QVERIFY(int64_t(1712195495505583.987 * 1000.0) != 1712195495505583987LL);
}

void TestInterop::nvtxNames()
{
    QCOMPARE(normalizeNvtxName("aten::view, op_id = 314290"), std::string("aten::view"));
    QCOMPARE(normalizeNvtxName("aten::mm, seq = 12, op_id = 7"), std::string("aten::mm"));
    QCOMPARE(normalizeNvtxName("forward"), std::string("forward"));
    QCOMPARE(normalizeNvtxName("x, op_id = abc"), std::string("x, op_id = abc"));
}

void TestInterop::referenceNumbers_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("format");
    QTest::addColumn<qint64>("kernels");
    QTest::addColumn<qint64>("names");
    QTest::addColumn<qint64>("sumNs");
    QTest::addColumn<qint64>("busyNs");
    QTest::addColumn<qint64>("spanNs");
    QTest::addColumn<qint64>("memcpys");
    QTest::addColumn<qint64>("memsets");
    QTest::addColumn<qint64>("apiCalls");
    QTest::addColumn<qint64>("scopeInstances");
    QTest::addColumn<QString>("streams");   // "device:stream ..." of the kernels

    // From ../shared/traces/README.md.
    QTest::newRow("nsys 2022.2 saxpy") << "nsys-2022.2_a100_saxpy-mpi.sqlite" << "nsys" << qint64(5) << qint64(1)
                                       << qint64(88573480) << qint64(88573480) << qint64(1040574391) << qint64(15)
                                       << qint64(0) << qint64(95) << qint64(22) << "0:7";
    QTest::newRow("nsys 2026.2 fastvideo") << "nsys-2026.2_h100x2_fastvideo-1s.sqlite" << "nsys" << qint64(3442) << qint64(41)
                                           << qint64(44829522) << qint64(29315386) << qint64(960485009) << qint64(904)
                                           << qint64(22) << qint64(5796) << qint64(16782) << "0:7 1:15";
    // Busy and span here are the exact values (integer ns from the decimal text: 468,153.602 us
    // and 480,029.179 us). The README's 468,173.250 / 480,029.250 us are what a double-based parse
    // gives (0.25 us steps at 1.7e15): the rounding this importer avoids. Kernel sum agrees.
    QTest::newRow("kineto ns-resolution") << "kineto_v100_ns-resolution.pt.trace.json.gz" << "kineto" << qint64(4350) << qint64(77)
                                          << qint64(468153602) << qint64(468153602) << qint64(480029179) << qint64(1600)
                                          << qint64(145) << qint64(15329) << qint64(-1) << "0:7";
    QTest::newRow("kineto 2021 resnet50") << "kineto-2021_v100_resnet50.pt.trace.json.gz" << "kineto" << qint64(8772) << qint64(67)
                                          << qint64(591209000) << qint64(591209000) << qint64(873968000) << qint64(12)
                                          << qint64(312) << qint64(11923) << qint64(-1) << "0:7";
}

void TestInterop::referenceNumbers()
{
    QFETCH(QString, file);
    QFETCH(QString, format);
    std::string path = trace(file.toLatin1().constData());
    if (path.empty())
        WT_MISSING_TRACE(file);
    std::string out = wt::test::tempPath("ref.wt");
    Database db(out, OpenMode::ReadWrite);
    ImportResult r = importTrace(db, path);
    QCOMPARE(QString::fromStdString(r.format), format);
    Numbers n = numbersOf(db, r.written.runId);
    QTEST(qint64(n.kernels), "kernels");
    QTEST(qint64(r.written.kernels), "kernels");
    QTEST(qint64(n.distinctNames), "names");
    QTEST(qint64(n.kernelTimeNs), "sumNs");
    QTEST(qint64(n.busyNs), "busyNs");
    QTEST(qint64(n.spanNs), "spanNs");
    QTEST(qint64(n.memcpys), "memcpys");
    QTEST(qint64(n.memsets), "memsets");
    QTEST(qint64(n.apiCalls), "apiCalls");
    QFETCH(qint64, scopeInstances);
    if (scopeInstances >= 0)
        QCOMPARE(qint64(n.scopeInstances), scopeInstances);
    QStringList streams;
    for (auto [d, s] : n.kernelStreams)
        streams << QStringLiteral("%1:%2").arg(d).arg(s);
    QTEST(streams.join(QLatin1Char(' ')), "streams");
    Reader reader(db);
    RunInfo run = reader.run(r.written.runId);
    QCOMPARE(run.backend, std::string("import"));
    QCOMPARE(run.workload, format.toStdString());
    QCOMPARE(run.sourceFile, path);
    QVERIFY(run.status == RunStatus::Complete);
}

void TestInterop::nsysAttribution()
{
    std::string path = trace("nsys-2026.2_h100x2_fastvideo-1s.sqlite");
    if (path.empty())
        WT_MISSING_TRACE("nsys-2026.2_h100x2_fastvideo-1s.sqlite");
    Database db(wt::test::tempPath("fv.wt"), OpenMode::ReadWrite);
    ImportResult r = importTrace(db, path);
    Numbers n = numbersOf(db, r.written.runId);
    QCOMPARE(n.kernelsPerDevice[0], qint64(1721));
    QCOMPARE(n.kernelsPerDevice[1], qint64(1721));
    // Top kernel by time: a cuBLAS sm80 xmma GEMM, 248 launches, 31,121,662 ns.
    auto top = std::max_element(n.perName.begin(), n.perName.end(),
                                [](const auto& a, const auto& b) { return a.second.second < b.second.second; });
    QVERIFY(top->first.find("sm80_xmma_gemm") != std::string::npos);
    QCOMPARE(top->second.first, qint64(248));
    QCOMPARE(top->second.second, qint64(31121662));
    QCOMPARE(r.counts.ranges, qint64(16782));
    // GEMM launches sit in aten::linear > aten::matmul (PyTorch emit_nvtx), found through
    // the launching runtime call's thread and time; kernels whose call is outside the 1 s cut
    // have no scope: 3,442 - 1,632 joined within their process (correlation ids are per process;
    // a join by id alone took 11 calls of the other process: 1,799).
    Reader reader(db);
    RunStats s = computeRunStats(reader, r.written.runId, BreakdownOptions{GroupBy::Scope, 2, {}});
    bool found = false;
    for (const Group& g : s.breakdown.groups) {
        if (g.path == "aten::linear/aten::matmul") {
            QCOMPARE(g.count, qint64(244));   // 248 when 4 of them took another process's call
            found = true;
        }
        if (g.path == kNoScope)
            QCOMPARE(g.count, qint64(1810));
    }
    QVERIFY(found);

    // saxpy: all 5 kernels were launched inside the NVTX range "saxpy".
    std::string saxpy = trace("nsys-2022.2_a100_saxpy-mpi.sqlite");
    if (saxpy.empty())
        WT_MISSING_TRACE("nsys-2022.2_a100_saxpy-mpi.sqlite");
    ImportResult r2 = importTrace(db, saxpy);
    Reader reader2(db);   // a Reader loads the strings once: a fresh one sees the new run's
    RunStats s2 = computeRunStats(reader2, r2.written.runId, BreakdownOptions{GroupBy::Scope, 4, {}});
    QCOMPARE(int(s2.breakdown.groups.size()), 1);
    QCOMPARE(s2.breakdown.groups[0].path, std::string("saxpy"));
    QCOMPARE(s2.breakdown.groups[0].count, qint64(5));
    QCOMPARE(r2.counts.skippedRanges, qint64(2));   // the two open-ended rows
    QCOMPARE(reader2.devices(r2.written.runId).at(0).name, std::string("NVIDIA A100-SXM4-40GB"));
}

void TestInterop::kinetoScopesAndCounts()
{
    std::string path = trace("kineto_v100_ns-resolution.pt.trace.json.gz");
    if (path.empty())
        WT_MISSING_TRACE("kineto_v100_ns-resolution.pt.trace.json.gz");
    Database db(wt::test::tempPath("k.wt"), OpenMode::ReadWrite);
    ImportResult r = importTrace(db, path);
    QCOMPARE(r.counts.gpuAnnotations, qint64(15));
    QCOMPARE(r.counts.runtimeCalls, qint64(15329));
    QCOMPARE(r.counts.memcpys, qint64(1600));
    QCOMPARE(r.counts.memsets, qint64(145));
    // cpu_op + user_annotation ranges; each gpu_user_annotation has its CPU twin (same External
    // id), so it adds no scope instance of its own.
    QCOMPARE(r.counts.ranges, qint64(23910 + 70));
    Reader reader(db);
    QCOMPARE(int64_t(reader.scopeInstances(r.written.runId).size()), int64_t(23910 + 70));
    // Every kernel is launched from a runtime call inside some CPU op.
    QCOMPARE(r.written.attributed, qint64(4350 + 1600 + 145));
    QCOMPARE(reader.devices(r.written.runId).at(0).name, std::string("Tesla V100-SXM2-32GB"));
    // Exact first kernel start: 1712195495505583.987 us (absolute), kept to the ns.
    RunInfo run = reader.run(r.written.runId);
    int64_t firstKernel = INT64_MAX;
    reader.forEachActivity(r.written.runId, [&](const Activity& a) {
        if (a.kind == ActivityKind::Kernel)
            firstKernel = std::min(firstKernel, a.startNs);
        return true;
    });
    QCOMPARE(run.originNs + firstKernel, int64_t(1712195495505582988LL));   // text: 1712195495505582.988
    QCOMPARE(run.startedAt.substr(0, 10), std::string("2024-04-04"));
}

void TestInterop::chromeRoundTrip()
{
    std::string file = wt::test::tempPath("rt.wt");
    Database db(file, OpenMode::ReadWrite);
    synth::Result gen;
    {
        Writer w(db);
        synth::Options o;
        o.kernels = 3000;
        o.streams = 3;
        o.layers = 2;
        gen = synth::generate(w, o);
    }
    std::string json = wt::test::tempPath("rt.json");
    {
        Reader exportReader(db);
        std::ofstream f(json);
        ChromeExporter::write(exportReader, gen.runId, f);
    }
    ImportResult r = importTrace(db, json);
    QCOMPARE(r.format, std::string("chrome"));
    Reader reader(db);
    RunInfo a = reader.run(gen.runId), b = reader.run(r.written.runId);

    // Kernels: same absolute times, names, streams, launch configs and scope paths.
    auto collect = [&](int64_t runId, const RunInfo& run) {
        std::map<int64_t, std::string> path;
        std::map<int64_t, ScopeNode> nodes;
        for (const auto& n : reader.scopes(runId))
            nodes[n.id] = n;
        std::function<std::string(int64_t)> pathOf = [&](int64_t id) -> std::string {
            if (id == 0)
                return {};
            const ScopeNode& n = nodes[id];
            std::string p = pathOf(n.parentId);
            return (p.empty() ? "" : p + "/") + reader.string(n.nameId) + "[" + reader.string(n.levelId) + "]";
        };
        std::map<int64_t, int64_t> instScope;
        std::vector<std::string> scopes;
        for (const auto& i : reader.scopeInstances(runId)) {
            instScope[i.id] = i.scopeId;
            scopes.push_back(pathOf(i.scopeId) + "@" + std::to_string(run.originNs + i.startNs) + "-" + std::to_string(run.originNs + i.endNs));
        }
        std::map<int64_t, const Track*> tracks;
        auto ts = reader.tracks(runId);
        for (const auto& t : ts)
            tracks[t.id] = &t;
        std::vector<std::string> acts;
        reader.forEachActivity(runId, [&](const Activity& x) {
            std::ostringstream s;
            const LaunchConfig& c = x.config;
            s << run.originNs + x.startNs << ' ' << x.endNs - x.startNs << ' ' << int(x.kind) << ' ' << tracks[x.trackId]->deviceId << ':'
              << tracks[x.trackId]->stream << ' ' << reader.string(x.nameId) << ' ' << c.grid[0] << 'x' << c.grid[1] << 'x' << c.grid[2]
              << ' ' << c.block[0] << ' ' << c.registers << ' ' << c.staticSmem << ' ' << c.dynamicSmem << ' ' << x.bytes << ' '
              << (x.scopeInstanceId ? pathOf(instScope[x.scopeInstanceId]) : std::string("-"));
            acts.push_back(s.str());
            return true;
        });
        std::sort(acts.begin(), acts.end());
        std::sort(scopes.begin(), scopes.end());
        return std::make_pair(acts, scopes);
    };
    auto [actsA, scopesA] = collect(gen.runId, a);
    auto [actsB, scopesB] = collect(r.written.runId, b);
    // The export keeps time 0 (its origin_ns): the stored times come back as they were, not
    // moved so that the first activity starts at 0.
    QCOMPARE(b.originNs, a.originNs);
    QCOMPARE(b.spanStartNs, a.spanStartNs);
    QCOMPARE(int64_t(actsB.size()), int64_t(actsA.size()));
    QCOMPARE(b.kernels, a.kernels);
    QCOMPARE(b.kernelTimeNs, a.kernelTimeNs);
    QCOMPARE(b.busyNs, a.busyNs);
    for (size_t i = 0; i < actsA.size(); ++i)
        QCOMPARE(actsB[i], actsA[i]);
    QCOMPARE(int64_t(scopesB.size()), int64_t(scopesA.size()));
    QVERIFY(!scopesA.empty());
    for (size_t i = 0; i < scopesA.size(); ++i)
        QCOMPARE(scopesB[i], scopesA[i]);
    // Same totals per scope as well.
    RunStats sa = computeRunStats(reader, gen.runId, BreakdownOptions{GroupBy::Scope, 4, {}});
    RunStats sb = computeRunStats(reader, r.written.runId, BreakdownOptions{GroupBy::Scope, 4, {}});
    QCOMPARE(sb.breakdown.groups.size(), sa.breakdown.groups.size());
    for (size_t i = 0; i < sa.breakdown.groups.size(); ++i) {
        QCOMPARE(sb.breakdown.groups[i].path, sa.breakdown.groups[i].path);
        QCOMPARE(sb.breakdown.groups[i].timeNs, sa.breakdown.groups[i].timeNs);
    }
    // The metadata travels: device, workload, variant.
    auto meta = reader.metadata(r.written.runId);
    std::map<std::string, std::string> m(meta.begin(), meta.end());
    QCOMPARE(m["source.workload"], a.workload);
    QCOMPARE(m["source.variant"], a.variant);
    QCOMPARE(b.device, a.device);
}

void TestInterop::chromeRoundTripOfImport()
{
    // A real import (API calls with correlation ids, NVTX scopes) survives export + import.
    std::string path = trace("nsys-2022.2_a100_saxpy-mpi.sqlite");
    if (path.empty())
        WT_MISSING_TRACE("nsys-2022.2_a100_saxpy-mpi.sqlite");
    Database db(wt::test::tempPath("rt2.wt"), OpenMode::ReadWrite);
    ImportResult r = importTrace(db, path);
    Reader reader(db);
    std::string json = wt::test::tempPath("rt2.json");
    {
        std::ofstream f(json);
        ChromeExporter::write(reader, r.written.runId, f);
    }
    // Flow arrows from API call to kernel are there.
    QByteArray text = readAll(json);
    QVERIFY(text.contains("\"ph\":\"s\",\"cat\":\"ac2g\""));
    QVERIFY(text.contains("\"ph\":\"f\",\"bp\":\"e\""));
    ImportResult back = importTrace(db, json);
    Reader fresh(db);
    Numbers a = numbersOf(db, r.written.runId), b = numbersOf(db, back.written.runId);
    QCOMPARE(b.kernels, a.kernels);
    QCOMPARE(b.kernelTimeNs, a.kernelTimeNs);
    QCOMPARE(b.busyNs, a.busyNs);
    QCOMPARE(b.spanNs, a.spanNs);
    QCOMPARE(b.memcpys, a.memcpys);
    QCOMPARE(b.apiCalls, a.apiCalls);
    QCOMPARE(b.scopeInstances, a.scopeInstances);
    RunStats s = computeRunStats(fresh, back.written.runId, BreakdownOptions{GroupBy::Scope, 4, {}});
    QCOMPARE(s.breakdown.groups.at(0).path, std::string("saxpy"));
}

void TestInterop::csvExport()
{
    std::string path = trace("nsys-2026.2_h100x2_fastvideo-1s.sqlite");
    if (path.empty())
        WT_MISSING_TRACE("nsys-2026.2_h100x2_fastvideo-1s.sqlite");
    Database db(wt::test::tempPath("csv.wt"), OpenMode::ReadWrite);
    ImportResult r = importTrace(db, path);
    Reader reader(db);
    std::ostringstream acts, sum;
    CsvExporter::writeActivities(reader, r.written.runId, acts);
    CsvExporter::writeKernelSummary(reader, r.written.runId, sum);
    std::istringstream a(acts.str());
    std::string line;
    int rows = -1;
    int64_t previous = INT64_MIN;
    while (std::getline(a, line)) {
        if (rows >= 0) {
            int64_t start = std::stoll(line.substr(0, line.find(',')));
            QVERIFY(start >= previous);   // sorted by start
            previous = start;
        }
        ++rows;
    }
    QCOMPARE(rows, 3442 + 904 + 22);
    std::istringstream s(sum.str());
    std::getline(s, line);
    QCOMPARE(line, std::string("Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name"));
    std::getline(s, line);   // top kernel
    QVERIFY(line.rfind("69.4,31121662,248,", 0) == 0);
    int summaryRows = 1;
    while (std::getline(s, line))
        ++summaryRows;
    QCOMPARE(summaryRows, 41);
}

void TestInterop::plainChromeTrace()
{
    // B/E pairs and X events without Kineto markers: kernels by category, the rest as scopes.
    QByteArray json = R"([
      {"ph":"B","name":"step","pid":1,"tid":1,"ts":100},
      {"ph":"X","name":"forward","pid":1,"tid":1,"ts":110,"dur":50},
      {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":120,"dur":2,"args":{"correlation":5}},
      {"ph":"E","pid":1,"tid":1,"ts":200},
      {"ph":"X","cat":"kernel","name":"k1","pid":0,"tid":3,"ts":125.5,"dur":10.25,"args":{"correlation":5,"device":0,"stream":3}},
      {"ph":"B","cat":"kernel","name":"k2","pid":0,"tid":3,"ts":140},
      {"ph":"E","cat":"kernel","pid":0,"tid":3,"ts":141.001}
    ])";
    std::string path = wt::test::tempPath("plain.json");
    writeBytes(path, json);
    Database db(wt::test::tempPath("plain.wt"), OpenMode::ReadWrite);
    ImportResult r = importTrace(db, path);
    QCOMPARE(r.format, std::string("chrome"));
    Numbers n = numbersOf(db, r.written.runId);
    QCOMPARE(n.kernels, qint64(2));
    QCOMPARE(n.kernelTimeNs, qint64(10250 + 1001));
    QCOMPARE(n.scopeInstances, qint64(2));
    Reader reader(db);
    RunStats s = computeRunStats(reader, r.written.runId, BreakdownOptions{GroupBy::Scope, 3, {}});
    std::map<std::string, int64_t> byPath;
    for (const auto& g : s.breakdown.groups)
        byPath[g.path] = g.count;
    QCOMPARE(byPath["step/forward"], int64_t(1));   // k1: launched inside forward
    QCOMPARE(byPath[kNoScope], int64_t(1));         // k2: no launching call known
}

void TestInterop::slicedParse_data()
{
    QTest::addColumn<QByteArray>("json");
    // Cut candidates ("}" "," "{") inside strings and inside nested arrays of objects, escaped
    // names, keys before and after traceEvents (one of them an array of objects), B/E pairs.
    QByteArray events = R"([
      {"ph":"B","name":"step },{ \"x\" },\n{","pid":1,"tid":1,"ts":100},
      {"ph":"X","name":"forward","pid":1,"tid":1,"ts":110,"dur":50,"args":{"Input Dims":[{"a":1},{"b":"},{"}],"External id":3}},
      {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":120,"dur":2,"args":{"correlation":5}},
      {"ph":"E","pid":1,"tid":1,"ts":200},
      {"ph":"X","cat":"kernel","name":"k\u00e9\"1","pid":0,"tid":"stream 3","ts":"125.5","dur":10.25,"args":{"correlation":5,"device":0,"stream":3,"grid":[2,1,1]}},
      {"ph":"X","cat":"Kernel","name":"k2","pid":0,"tid":3,"ts":1712195495505583.987,"dur":1.001},{"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD","pid":0,"tid":7,"ts":140,"dur":3,"args":{"bytes":4096}}
    ])";
    QTest::newRow("array document") << events;
    QByteArray object = R"({"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "A},{B"},{"id": 1, "name": "C"}],
      "note": "\"traceEvents\": [",
      "traceEvents": )" + events + R"(, "traceName": "t},{x", "distributedInfo": [{"rank": 0},{"rank": 1}], "displayTimeUnit": "ns"})";
    QTest::newRow("object document") << object;
    QTest::newRow("truncated") << object.left(object.size() - 40);
    QTest::newRow("truncated in the events") << object.left(object.indexOf("k2"));
    QTest::newRow("not an object in the array") << QByteArray(R"({"traceEvents": [{"ph":"X","cat":"kernel","name":"a","ts":1,"dur":1}, 3, {"ph":"X","cat":"kernel","name":"b","ts":2,"dur":1}]})");
    QTest::newRow("trailing garbage") << QByteArray(events + "]");
    QTest::newRow("nested traceEvents only") << QByteArray(R"({"meta": {"traceEvents": [{"ph":"X","cat":"kernel","name":"a","ts":1,"dur":1},{"ph":"X","cat":"kernel","name":"b","ts":2,"dur":1}]}})");
}

void TestInterop::slicedParse()
{
    QFETCH(QByteArray, json);
    std::string text = json.toStdString();
    // Every slice size from a cut at each event to one slice per few events.
    for (size_t bytes : {size_t(1), size_t(7), size_t(40), size_t(100), size_t(300)})
        compareSlicedWithWhole(text, bytes);
}

void TestInterop::slicedParseOfSharedTraces()
{
    // The 2021 trace goes through the sliced path in referenceNumbers too (both are over
    // 2 x kSliceBytes); one whole comparison keeps the test short under ASan.
    for (const char* name : {"kineto_v100_ns-resolution.pt.trace.json.gz"}) {
        std::string path = trace(name);
        if (path.empty())
            WT_MISSING_TRACE(name);
        const std::string text = wt::test::gunzipped(path);
        QVERIFY(!text.empty());
        std::string buf = text + std::string(64, ' ');
        std::string whole = describe(TraceEventImporter::parse("t.json", buf.data(), text.size(), buf.size(), 0));
        std::string sliced = describe(TraceEventImporter::parse("t.json", buf.data(), text.size(), buf.size(), size_t(1) << 20));
        QVERIFY(sliced == whole);
        // A plain file: parsed from its mapping, whose pages are dropped as slices are handled.
        std::string plain = wt::test::tempPath("plain-kineto.json");
        std::ofstream(plain, std::ios::binary) << text;
        QVERIFY(text.size() >= 2 * TraceEventImporter::kSliceBytes);
        std::string mapped = describe(parseTraceFile(plain));
        QVERIFY(mapped == whole);
    }
}

void TestInterop::streamedParseOfSharedTraces()
{
    // A gzip file is parsed as a stream, a slice at a time: with windows of a few events (so
    // B/E pairs, a thread's ranges and a kernel's launching call lie in different windows) and
    // read in odd pieces, the trace is the one-pass trace, and the stream never falls back.
    for (const char* name : {"kineto_v100_ns-resolution.pt.trace.json.gz", "kineto-hta_2ranks_rank-0.json.gz"}) {
        std::string path = trace(name);
        if (path.empty())
            WT_MISSING_TRACE(name);
        const std::string text = wt::test::gunzipped(path);
        std::string buf = text + std::string(64, ' ');
        const std::string whole = describe(TraceEventImporter::parse("t.json", buf.data(), text.size(), buf.size(), 0));
        for (auto [window, piece] : {std::pair<size_t, size_t>{4096, 777}, {size_t(1) << 20, 1 << 16}, {size_t(1) << 40, 1 << 20}}) {
            PieceStream in(text, piece);
            ImportedTrace streamed;
            QVERIFY2(TraceEventImporter::parseStream("t.json", in, streamed, window), name);
            QVERIFY2(describe(streamed) == whole, name);
        }
    }
}

void TestInterop::streamedImportSameRunInAnyWindow()
{
    // What is stored, not only what is parsed: the shared trace imported from .json.gz in
    // windows of 4 KiB (about a dozen events: ranges, calls and kernels of one thread cross
    // window boundaries all the time) and in one window give the same file, table by table,
    // and so does the plain .json cut into 4 KiB slices of its mapping.
    const char* name = "kineto_v100_ns-resolution.pt.trace.json.gz";
    std::string source = trace(name);
    if (source.empty())
        WT_MISSING_TRACE(name);
    const std::string text = wt::test::gunzipped(source);
    const std::string gz = wt::test::tempPath("windows.json.gz"), plain = wt::test::tempPath("windows.json");
    {
        gzFile f = gzopen(gz.c_str(), "wb1");
        gzwrite(f, text.data(), unsigned(text.size()));
        gzclose(f);
        std::ofstream(plain, std::ios::binary) << text;
    }
    auto import = [&](const std::string& input, size_t window, const std::string& out, int64_t minSlices, int64_t maxSlices, bool streamed) {
        QFile::remove(QString::fromStdString(out));
        Database db(out, OpenMode::ReadWrite);
        ImportOptions o;
        o.name = "windows";
        o.sliceBytes = window;
        ImportResult r = importTrace(db, input, o);
        QCOMPARE(r.written.kernels, int64_t(4350));
        // Streamed (or sliced) as asked, not through the one-pass fallback.
        QVERIFY2(r.slices >= minSlices && r.slices <= maxSlices, std::to_string(r.slices).c_str());
        QCOMPARE(r.streamed, streamed);
    };
    const std::string small = wt::test::tempPath("small-windows.wt"), one = wt::test::tempPath("one-window.wt");
    const std::string plainSmall = wt::test::tempPath("plain-small.wt"), plainOne = wt::test::tempPath("plain-one.wt");
    const int64_t windows = int64_t(text.size() / 4096);   // at least: each window ends after 4 KiB
    import(gz, 4096, small, windows / 2, windows + 1, true);
    import(gz, size_t(1) << 40, one, 1, 1, true);
    import(plain, 4096, plainSmall, windows / 2, windows + 1, false);   // slices of the mapping
    import(plain, size_t(1) << 40, plainOne, 0, 0, false);              // one pass
    const std::string reference = dumpTables(one);
    QVERIFY(reference.find("table activity_chunks") != std::string::npos);
    QVERIFY(dumpTables(small) == reference);
    // The plain file's run differs from the .gz one's in its source file name only.
    QVERIFY(dumpTables(plainSmall) == dumpTables(plainOne));
}

void TestInterop::slicedParseRandomTexts()
{
    // Differential check: random event lists full of cut candidates (in names, in nested args,
    // in keys around the array), sometimes damaged, parsed in random slice sizes.
    uint64_t state = 0x2545F4914F6CDD1Dull;
    auto rnd = [&](uint64_t n) {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        return state % n;
    };
    const char* pieces[] = {"},{", "}, {", "} , {", "\\\"},{\\\"", "]", "[", "{", "}", ",", "\\\\", "\\u00e9", "x", " "};
    auto junk = [&] {
        std::string t;
        for (uint64_t i = 0, n = rnd(6); i < n; ++i)
            t += pieces[rnd(std::size(pieces))];
        return t;
    };
    const char* cats[] = {"kernel", "cuda_runtime", "cpu_op", "gpu_memcpy", "user_annotation", "gpu_user_annotation", "", "other"};
    for (int round = 0; round < 150; ++round) {
        std::string events;
        for (uint64_t i = 0, n = 1 + rnd(25); i < n; ++i) {
            if (i)
                events += rnd(2) ? ",\n" : ",";
            char ph = "XXXXBEi"[rnd(7)];
            events += "{\"ph\":\"" + std::string(1, ph) + "\",\"cat\":\"" + cats[rnd(std::size(cats))] + "\",\"name\":\"n" +
                      std::to_string(rnd(5)) + junk() + "\",\"pid\":" + std::to_string(rnd(2)) + ",\"tid\":" +
                      (rnd(2) ? std::to_string(rnd(3)) : "\"stream " + std::to_string(rnd(3)) + "\"") +
                      ",\"ts\":" + std::to_string(rnd(1000)) + "." + std::to_string(rnd(1000)) + ",\"dur\":" + std::to_string(rnd(50));
            if (rnd(2))
                events += ",\"args\":{\"correlation\":" + std::to_string(rnd(10)) + ",\"External id\":" + std::to_string(rnd(10)) +
                          ",\"nested\":[{\"a\":\"" + junk() + "\"},{\"b\":[{},{}]}],\"device\":0}";
            events += "}";
        }
        std::string text = rnd(3) == 0 ? "[" + events + "]"
                                       : "{\"a\":[{\"x\":\"" + junk() + "\"},{}],\"traceEvents\":[" + events + "],\"b\":\"" + junk() +
                                             "\",\"deviceProperties\":[{\"id\":0,\"name\":\"G" + junk() + "\"},{\"id\":1}]}";
        if (rnd(5) == 0)
            text.resize(rnd(text.size() + 1));   // truncated
        else if (rnd(5) == 0)
            text[rnd(text.size())] = pieces[rnd(std::size(pieces))][0];   // one byte changed
        compareSlicedWithWhole(text, 1 + rnd(200));
        if (QTest::currentTestFailed()) {
            qWarning("round %d: %s", round, text.c_str());
            return;
        }
    }
}

void TestInterop::badInput_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("fileName");
    QTest::addColumn<QString>("needle");
    QByteArray good = R"({"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1.5,"dur":2}]})";
    QTest::newRow("truncated json") << good.left(good.size() - 10) << "t.json" << "invalid or truncated JSON";
    QTest::newRow("invalid json") << QByteArray(R"({"traceEvents":[{"ph":"X",,}]})") << "i.json" << "invalid or truncated JSON";
    QTest::newRow("bad timestamp") << QByteArray(R"({"traceEvents":[{"ph":"X","cat":"kernel","name":"k","ts":"abc","dur":1}]})") << "ts.json"
                                   << "invalid timestamp";
    QTest::newRow("no traceEvents") << QByteArray(R"({"foo":1})") << "n.json" << "no traceEvents";
    QTest::newRow("empty trace") << QByteArray(R"({"traceEvents":[]})") << "e.json" << "empty trace";
    QTest::newRow("only cpu events") << QByteArray(R"({"traceEvents":[{"ph":"X","cat":"cpu_op","name":"a","pid":1,"tid":1,"ts":1,"dur":1}]})")
                                     << "c.json" << "empty trace";
    QTest::newRow("empty file") << QByteArray() << "z.json" << "empty file";
    QTest::newRow("not a trace") << QByteArray("hello world\n") << "h.txt" << "unknown format";
    QByteArray gz = gzipBytes(good);
    QByteArray corrupt = gz;
    for (int i = 12; i < corrupt.size() - 8; ++i)
        corrupt[i] = char(corrupt[i] ^ 0x5a);
    QTest::newRow("corrupt gzip") << corrupt << "c.json.gz" << "corrupt gzip stream";
    QTest::newRow("truncated gzip") << gz.left(gz.size() / 2) << "t.json.gz" << "gzip";
    QTest::newRow("gzip of garbage") << gzipBytes("not json at all") << "g.json.gz" << "not JSON";
    // Issue 18: accepted before, each an error naming the event.
    auto doc = [](const char* late, const char* extra = "") {
        return QByteArray(R"({"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1.5,"dur":2},)") + late + "]" + extra + "}";
    };
    QTest::newRow("negative ts") << doc(R"({"ph":"X","cat":"kernel","name":"late","pid":0,"tid":7,"ts":-1,"dur":2})") << "neg.json"
                                 << "event 2 ('late'): negative timestamp '-1'";
    QTest::newRow("ts as a string") << doc(R"({"ph":"X","cat":"kernel","name":"late","pid":0,"tid":7,"ts":"123","dur":2})") << "str.json"
                                    << "event 2 ('late'): invalid timestamp '\"123\"': a string";
    QTest::newRow("dur as a string") << doc(R"({"ph":"X","cat":"kernel","name":"late","pid":0,"tid":7,"ts":3,"dur":"2"})") << "durstr.json"
                                     << "event 2 ('late'): invalid duration";
    QTest::newRow("ts beyond int64") << doc(R"({"ph":"X","cat":"kernel","name":"late","pid":0,"tid":7,"ts":9300000000000000,"dur":2})")
                                     << "big.json" << "event 2 ('late'): invalid timestamp '9300000000000000' (out of range)";
    QTest::newRow("ts beyond 2^62 ns") << doc(R"({"ph":"X","cat":"kernel","name":"late","pid":0,"tid":7,"ts":9000000000000000,"dur":2})")
                                       << "big2.json" << "event 2 ('late'): invalid timestamp '9000000000000000' (out of range: over 146 years)";
    QTest::newRow("dur beyond 2^62 ns") << doc(R"({"ph":"X","cat":"kernel","name":"late","pid":0,"tid":7,"ts":5,"dur":4700000000000000})")
                                        << "bigdur.json" << "event 2 ('late'): invalid duration";
    QTest::newRow("baseTimeNanoseconds INT64_MAX")
        << doc(R"({"ph":"X","cat":"kernel","name":"late","pid":0,"tid":7,"ts":5,"dur":1})", R"(,"baseTimeNanoseconds":9223372036854775807)")
        << "base.json" << "baseTimeNanoseconds 9223372036854775807 is out of range";
    QTest::newRow("base plus ts beyond range")
        << doc(R"({"ph":"X","cat":"kernel","name":"late","pid":0,"tid":7,"ts":3000000000000000,"dur":1})", R"(,"baseTimeNanoseconds":3000000000000000000)")
        << "base2.json" << "out of range";
    QTest::newRow("span beyond range")
        << QByteArray(R"([{"ph":"X","cat":"kernel","name":"a","pid":0,"tid":7,"ts":0,"dur":1},{"ph":"X","cat":"kernel","name":"b","pid":0,"tid":7,"ts":4611686018427387,"dur":1}])")
        << "span.json" << "out of range";
    QTest::newRow("two object documents") << doc(R"({"ph":"X","cat":"kernel","name":"late","pid":0,"tid":7,"ts":5,"dur":1})") + doc("{}")
                                          << "two.json" << "two JSON documents concatenated";
    QTest::newRow("two array documents")
        << QByteArray(R"([{"ph":"X","cat":"kernel","name":"a","pid":0,"tid":7,"ts":1,"dur":1}] [{"ph":"X","cat":"kernel","name":"b","pid":0,"tid":7,"ts":2,"dur":1}])")
        << "two2.json" << "two JSON documents concatenated";
}

void TestInterop::badInput()
{
    QFETCH(QByteArray, bytes);
    QFETCH(QString, fileName);
    QFETCH(QString, needle);
    std::string input = wt::test::tempPath(fileName.toStdString());
    writeBytes(input, bytes);
    std::string out = fileWithOneRun();
    int64_t runsBefore;
    {
        Database db(out, OpenMode::ReadWrite);
        runsBefore = int64_t(Reader(db).runs().size());
        try {
            importTrace(db, input);
            QFAIL("import succeeded");
        } catch (const ImportError& e) {
            std::string msg = e.what();
            QVERIFY2(msg.find(needle.toStdString()) != std::string::npos, msg.c_str());
            QVERIFY2(msg.rfind(input, 0) == 0, msg.c_str());   // names the file
            QVERIFY(msg.find('\n') == std::string::npos);
        }
        auto runs = Reader(db).runs();
        QCOMPARE(int64_t(runs.size()), runsBefore);
        QCOMPARE(runs.at(0).name, std::string("earlier"));
        QCOMPARE(runs.at(0).kernels, int64_t(2000));
    }
    // The CLI: one line on stderr, exit 1, the earlier run still there and nothing added.
    auto p = wt::test::runCli({QStringLiteral("import"), QString::fromStdString(input), QStringLiteral("-o"), QString::fromStdString(out)});
    QCOMPARE(p.exitCode, 1);
    QCOMPARE(p.err.trimmed().count(QLatin1Char('\n')), 0);
    QVERIFY2(p.err.contains(needle), qPrintable(p.err));
    Database db(out, OpenMode::ReadOnly);
    QCOMPARE(int64_t(Reader(db).runs().size()), runsBefore);
}

void TestInterop::missingFile()
{
    std::string out = fileWithOneRun();
    Database db(out, OpenMode::ReadWrite);
    auto expectImportError = [&](const std::string& input, const char* needle) {
        try {
            importTrace(db, input);
            QFAIL("import succeeded");
        } catch (const ImportError& e) {
            std::string msg = e.what();
            QVERIFY2(msg.find(needle) != std::string::npos, msg.c_str());
            QVERIFY(msg.find('\n') == std::string::npos);
        }
        QCOMPARE(int64_t(Reader(db).runs().size()), int64_t(1));
    };
    expectImportError("/nonexistent/trace.json", "cannot open");
    // A SQLite file that is not an Nsight export: a wheretime file, and a plain database.
    expectImportError(fileWithOneRun(), "is a wheretime file");
    std::string plain = wt::test::tempPath("plain.sqlite");
    {
        sqlite3* h = nullptr;
        sqlite3_open(plain.c_str(), &h);
        sqlite3_exec(h, "CREATE TABLE t(x); INSERT INTO t VALUES (1);", nullptr, nullptr, nullptr);
        sqlite3_close(h);
    }
    expectImportError(plain, "not an Nsight Systems export");
    // An Nsight export without any GPU activity.
    std::string empty = wt::test::tempPath("empty-nsys.sqlite");
    {
        sqlite3* h = nullptr;
        sqlite3_open(empty.c_str(), &h);
        sqlite3_exec(h, "CREATE TABLE META_DATA_EXPORT(name TEXT, value TEXT); CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT);"
                        "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INTEGER, end INTEGER, deviceId INTEGER, streamId INTEGER);",
                     nullptr, nullptr, nullptr);
        sqlite3_close(h);
    }
    expectImportError(empty, "empty trace");
    // A corrupt (truncated) copy of a real export.
    std::string real = trace("nsys-2022.2_a100_saxpy-mpi.sqlite");
    if (real.empty())
        WT_MISSING_TRACE("nsys-2022.2_a100_saxpy-mpi.sqlite");
    {
        std::string cut = wt::test::tempPath("cut.sqlite");
        writeBytes(cut, readAll(real).left(200000));
        try {
            importTrace(db, cut);
        } catch (const ImportError& e) {
            QVERIFY(std::string(e.what()).find('\n') == std::string::npos);
        }
        QCOMPARE(int64_t(Reader(db).runs().size()), int64_t(1));
    }
}

void TestInterop::rangeErrorsSameWhenSliced()
{
    // The new errors come out the same from the one-pass and the sliced parse (large files).
    QByteArray head = R"({"traceEvents":[)";
    for (int i = 0; i < 40; ++i)
        head += R"({"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":)" + QByteArray::number(i * 10) + R"(,"dur":2},)";
    QByteArray tail;
    for (int i = 0; i < 40; ++i)
        tail += R"(,{"ph":"X","cat":"kernel","name":"after","pid":0,"tid":7,"ts":)" + QByteArray::number(i * 10) + R"(,"dur":2})";
    tail += "]}";
    for (const QByteArray& late : QList<QByteArray>{R"({"ph":"X","cat":"kernel","name":"late","pid":0,"tid":7,"ts":-1,"dur":2}]})",
                             R"({"ph":"X","cat":"kernel","name":"late","pid":0,"tid":7,"ts":"5","dur":2}]})",
                             // a bad field in the middle: the rest of that event is skipped, later events are fine
                             R"({"ph":"X","cat":"kernel","name":"late","pid":0,"tid":7,"ts":"5","dur":2,"args":{"device":0}})" + tail,
                             R"({"ph":"X","cat":"kernel","name":"late","pid":0,"tid":7,"ts":5,"dur":2,"args":{"device":true,"stream":[1,{"a":2}]}})" + tail,
                             R"({"ph":"X","cat":"kernel","name":"late","pid":0,"tid":7,"ts":5,"dur":2}]}{"traceEvents":[]})"}) {
        std::string json = (head + late).toStdString();
        compareSlicedWithWhole(json, 64);
        std::string buf = json + std::string(64, ' ');
        QVERIFY_THROWS_EXCEPTION(ImportError, TraceEventImporter::parse("t.json", buf.data(), json.size(), buf.size(), 64));
    }
}

void TestInterop::nsysTimesOutOfRange()
{
    // A kernel near 9e18 ns stored 8.1e18 as kernel time and exited 0 (Release), or aborted
    // without a message (sanitizers).
    std::string path = wt::test::tempPath("far-nsys.sqlite");
    {
        sqlite3* h = nullptr;
        sqlite3_open(path.c_str(), &h);
        sqlite3_exec(h,
                     "CREATE TABLE META_DATA_EXPORT(name TEXT, value TEXT); CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT);"
                     "INSERT INTO StringIds VALUES(1, 'far_kernel');"
                     "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INTEGER, end INTEGER, deviceId INTEGER, streamId INTEGER,"
                     " correlationId INTEGER, demangledName INTEGER, shortName INTEGER);"
                     "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1000, 2000, 0, 7, 1, 1, 1),"
                     " (9000000000000000000, 9000000000000001000, 0, 7, 2, 1, 1);",
                     nullptr, nullptr, nullptr);
        sqlite3_close(h);
    }
    std::string out = fileWithOneRun();
    Database db(out, OpenMode::ReadWrite);
    try {
        importTrace(db, path);
        QFAIL("import succeeded");
    } catch (const ImportError& e) {
        std::string msg = e.what();
        QVERIFY2(msg.find("kernel 'far_kernel': time 9000000000000000000 ns is out of range") != std::string::npos, msg.c_str());
    }
    QCOMPARE(int64_t(Reader(db).runs().size()), int64_t(1));
}

void TestInterop::longNamesAreCut()
{
    // A 5 MB kernel name (a 50 MB one made the GUI report take 143 s and write a 105 MB CSV).
    const size_t longBytes = size_t(5) << 20;
    std::string longName(longBytes, 'n');
    // The marker "…[cut 5238807 bytes]" takes 22 of the 4096 bytes: the cut falls at byte 4074,
    // inside this euro sign (bytes 4073-4075), and backs up to its start: never split.
    longName.replace(kMaxNameBytes - 23, 3, "\xE2\x82\xAC");
    std::string other = longName;
    other.back() = 'x';                                            // same prefix: the same cut name
    QByteArray json = R"({"traceEvents":[)";
    for (int i = 0; i < 3; ++i)
        json += R"({"ph":"X","cat":"kernel","name":")" + QByteArray::fromStdString(longName) + R"(","pid":0,"tid":7,"ts":)" +
                QByteArray::number(i * 10) + R"(,"dur":2},)";
    json += R"({"ph":"X","cat":"kernel","name":")" + QByteArray::fromStdString(other) + R"(","pid":0,"tid":7,"ts":40,"dur":2},)";
    json += R"({"ph":"X","cat":"cpu_op","name":")" + QByteArray::fromStdString(longName) + R"(","pid":1,"tid":1,"ts":0,"dur":50},)";
    json += R"({"ph":"X","cat":"kernel","name":"short","pid":0,"tid":7,"ts":30,"dur":2}]})";
    std::string path = wt::test::tempPath("long-names.json");
    writeBytes(path, json);
    Database db(wt::test::tempPath("long-names.wt"), OpenMode::ReadWrite);
    ImportResult r = importTrace(db, path);
    Reader reader(db);
    const std::string kept = longName.substr(0, kMaxNameBytes - 23);   // up to the euro sign
    const std::string expected = kept + "\xE2\x80\xA6[cut " + std::to_string(longBytes - kept.size()) + " bytes]";
    std::map<std::string, int> names;
    reader.forEachActivity(r.written.runId, [&](const Activity& a) {
        ++names[reader.string(a.nameId)];
        return true;
    });
    QCOMPARE(names.size(), size_t(2));
    QCOMPARE(names[expected], 4);
    QCOMPARE(names["short"], 1);
    auto meta = reader.metadata(r.written.runId);
    auto cut = std::find_if(meta.begin(), meta.end(), [](const auto& kv) { return kv.first == "import.names_cut"; });
    QVERIFY(cut != meta.end());
    QCOMPARE(cut->second, std::string("1"));   // one distinct name (kernel and range share it)
    // The bound itself and below: untouched.
    QCOMPARE(cutName(std::string(kMaxNameBytes, 'a')), std::string(kMaxNameBytes, 'a'));
    QCOMPARE(cutName(std::string(kMaxNameBytes + 1, 'a')), std::string(4079, 'a') + "\xE2\x80\xA6[cut 18 bytes]");
    QCOMPARE(expected.size(), kMaxNameBytes - 1);   // the marker included
}

void TestInterop::cliImportExport()
{
    std::string a = trace("nsys-2022.2_a100_saxpy-mpi.sqlite");
    std::string b = trace("kineto-2021_v100_resnet50.pt.trace.json.gz");
    if (a.empty() || b.empty())
        WT_MISSING_TRACE(a.empty() ? "nsys-2022.2_a100_saxpy-mpi.sqlite" : "kineto-2021_v100_resnet50.pt.trace.json.gz");
    std::string out = wt::test::tempPath("cli.wt");
    auto p = wt::test::runCli({QStringLiteral("import"), QString::fromStdString(a), QString::fromStdString(b), QStringLiteral("-o"),
                               QString::fromStdString(out), QStringLiteral("--name"), QStringLiteral("mine")});
    QCOMPARE(p.exitCode, 0);
    QStringList lines = p.out.trimmed().split(QLatin1Char('\n'));
    QCOMPARE(lines.size(), 2);
    QVERIFY2(lines[0].startsWith(QStringLiteral("run 1: 5 kernels, 1 device (nsys")), qPrintable(lines[0]));
    QVERIFY2(lines[1].startsWith(QStringLiteral("run 2: 8772 kernels, 1 device (kineto")), qPrintable(lines[1]));
    std::string json = wt::test::tempPath("cli.json");
    p = wt::test::runCli({QStringLiteral("export"), QString::fromStdString(out + ":mine #2"), QStringLiteral("--format"), QStringLiteral("chrome"),
                          QStringLiteral("-o"), QString::fromStdString(json)});
    QCOMPARE(p.exitCode, 0);
    std::string csv = wt::test::tempPath("cli.csv");
    p = wt::test::runCli({QStringLiteral("export"), QString::fromStdString(out + ":1"), QStringLiteral("--format"), QStringLiteral("csv"),
                          QStringLiteral("-o"), QString::fromStdString(csv)});
    QCOMPARE(p.exitCode, 0);
    QVERIFY(readAll(csv.substr(0, csv.size() - 4) + "_kern_sum.csv").contains("saxpy"));
    p = wt::test::runCli({QStringLiteral("import"), QString::fromStdString(json), QStringLiteral("-o"), QString::fromStdString(out)});
    QCOMPARE(p.exitCode, 0);
    QVERIFY2(p.out.startsWith(QStringLiteral("run 3: 8772 kernels, 1 device (chrome")), qPrintable(p.out));
    p = wt::test::runCli({QStringLiteral("export"), QString::fromStdString(out), QStringLiteral("--format"), QStringLiteral("pdf"),
                          QStringLiteral("-o"), QString::fromStdString(json)});
    QCOMPARE(p.exitCode, 2);
}

void TestInterop::fuzzRegressions()
{
    // Inputs the fuzzers found (tests/data/fuzz-regressions): each must fail with one line and
    // leave the output file as it was.
    QDir dir(wt::test::sourcePath(QStringLiteral("tests/data/fuzz-regressions")));
    QStringList files = dir.entryList(QDir::Files);
    QVERIFY(!files.isEmpty());
    std::string out = fileWithOneRun();
    Database db(out, OpenMode::ReadWrite);
    for (const QString& f : files) {
        std::string path = dir.filePath(f).toStdString();
        try {
            importTrace(db, path);
        } catch (const ImportError& e) {
            QVERIFY2(std::string(e.what()).find('\n') == std::string::npos, e.what());
        }
        QCOMPARE(int64_t(Reader(db).runs().size()), int64_t(1));
    }
}


namespace {

// Union of kernel intervals per device of a run (the README's "busy").
std::map<int32_t, int64_t> busyPerDevice(Database& db, int64_t runId)
{
    Reader r(db);
    std::map<int64_t, int32_t> deviceOf;
    for (const auto& t : r.tracks(runId))
        deviceOf[t.id] = t.deviceId;
    std::map<int32_t, std::vector<std::pair<int64_t, int64_t>>> iv;
    r.forEachActivity(runId, [&](const Activity& a) {
        if (a.kind == ActivityKind::Kernel)
            iv[deviceOf[a.trackId]].push_back({a.startNs, a.endNs});
        return true;
    });
    std::map<int32_t, int64_t> busy;
    for (auto& [d, v] : iv) {
        std::sort(v.begin(), v.end());
        int64_t s = v[0].first, e = v[0].second, sum = 0;
        for (auto [a, b] : v) {
            if (a > e) {
                sum += e - s;
                s = a;
                e = b;
            } else {
                e = std::max(e, b);
            }
        }
        busy[d] = sum + e - s;
    }
    return busy;
}

// A small Kineto trace of one rank: two kernels in a ProfilerStep, at `t0Us` (absolute us).
QByteArray rankTrace(int rank, int worldSize, int64_t t0Us, bool distributed = true)
{
    QByteArray j = "{\"schemaVersion\": 1, ";
    if (distributed)
        j += "\"distributedInfo\": {\"backend\": \"nccl\", \"rank\": " + QByteArray::number(rank) + ", \"world_size\": " +
             QByteArray::number(worldSize) + "}, ";
    const QByteArray t = QByteArray::number(t0Us);
    j += "\"traceEvents\": [\n"
         "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#7\", \"pid\": 5, \"tid\": 5, \"ts\": " + t + ", \"dur\": 100},\n"
         "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 5, \"tid\": 5, \"ts\": " + QByteArray::number(t0Us + 1) +
         ", \"dur\": 2, \"args\": {\"correlation\": 1}},\n"
         "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, \"ts\": " + QByteArray::number(t0Us + 10) +
         ", \"dur\": " + QByteArray::number(20 + 10 * rank) + ", \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 1}}\n"
         "]}";
    return j;
}

}  // namespace

// The HTA pair (ranks 0 and 1 of one job) as one run: the README's reference numbers, one
// device per rank, and ProfilerStep#551/#552 of both ranks the same scope nodes.
void TestInterop::multiRankPairAsOneRun()
{
    std::string a = trace("kineto-hta_2ranks_rank-0.json.gz");
    std::string b = trace("kineto-hta_2ranks_rank-1.json.gz");
    if (a.empty() || b.empty())
        WT_MISSING_TRACE(a.empty() ? "kineto-hta_2ranks_rank-0.json.gz" : "kineto-hta_2ranks_rank-1.json.gz");
    std::string out = wt::test::tempPath("ranks.wt");
    Database db(out, OpenMode::ReadWrite);
    // Given in the reverse order: ranks come from distributedInfo, not the order.
    ImportResult r = importRanks(db, {b, a});
    QCOMPARE(r.written.devices, 2);
    QCOMPARE(r.ranks, (std::vector<int>{0, 1}));
    QVERIFY(r.ranksFromFile);
    Numbers n = numbersOf(db, r.written.runId);
    QCOMPARE(n.kernels, int64_t(2258));
    QCOMPARE(n.kernelTimeNs, int64_t(1257545000));
    QCOMPARE(n.spanNs, int64_t(1231335000));
    QCOMPARE(n.kernelsPerDevice[0], int64_t(1154));
    QCOMPARE(n.kernelsPerDevice[1], int64_t(1104));
    auto busy = busyPerDevice(db, r.written.runId);
    QCOMPARE(busy[0], int64_t(547303000));
    QCOMPARE(busy[1], int64_t(575496000));
    Reader reader(db);
    auto devices = reader.devices(r.written.runId);
    QCOMPARE(devices.size(), size_t(2));
    QCOMPARE(QString::fromStdString(devices[0].name), QStringLiteral("rank 0: GPU 0"));
    QCOMPARE(QString::fromStdString(devices[1].name), QStringLiteral("rank 1: GPU 1"));
    // Steps of the same number on both ranks are one scope node, with an instance per rank.
    ScopeTree tree = ScopeTree::load(reader, r.written.runId);
    std::map<std::string, int> stepNodes;
    for (const auto& node : tree.nodes())
        if (tree.name(node.id).rfind("ProfilerStep#", 0) == 0)
            ++stepNodes[tree.name(node.id)];
    QCOMPARE(stepNodes, (std::map<std::string, int>{{"ProfilerStep#551", 1}, {"ProfilerStep#552", 1}}));
    // The per-rank step figures (analysis/rankstats): both ranks ran both steps.
    auto ranks = computeRankStats(reader, r.written.runId, tree);
    QCOMPARE(ranks.size(), size_t(2));
    QCOMPARE(ranks[0].steps, int64_t(2));
    QCOMPARE(ranks[1].steps, int64_t(2));
    QCOMPARE(ranks[0].kernels, int64_t(1154));
    QCOMPARE(ranks[0].kernelTimeNs, int64_t(606519000));
    QCOMPARE(ranks[1].kernelTimeNs, int64_t(651026000));
    QVERIFY(ranks[0].slowestStepNs >= ranks[0].meanStepNs && ranks[0].meanStepNs > 0);
    QVERIFY(ranks[0].straggler != ranks[1].straggler);
    auto meta = reader.metadata(r.written.runId);
    QVERIFY(std::find(meta.begin(), meta.end(), std::pair<std::string, std::string>("import.rank_source", "distributedInfo")) != meta.end());
}

// Files of different jobs are refused with the reason, and nothing is written.
void TestInterop::multiRankRefused()
{
    std::string dir = wt::test::tempPath("ranks-bad");
    QDir().mkpath(QString::fromStdString(dir));
    auto write = [&](const char* name, const QByteArray& bytes) {
        std::string p = dir + "/" + name;
        writeBytes(p, bytes);
        return p;
    };
    const int64_t t0 = 1700000000000000;
    std::string r0 = write("r0.json", rankTrace(0, 2, t0));
    std::string r1 = write("r1.json", rankTrace(1, 2, t0 + 5));
    std::string w4 = write("w4.json", rankTrace(1, 4, t0 + 5));
    std::string late = write("late.json", rankTrace(1, 2, t0 + 10000000));
    std::string none = write("none.json", rankTrace(1, 2, t0 + 5, false));
    std::string r0again = write("r0-again.json", rankTrace(0, 2, t0 + 5));
    std::string out = wt::test::tempPath("ranks-bad.wt");
    Database db(out, OpenMode::ReadWrite);
    struct Case {
        std::vector<std::string> files;
        const char* why;
    } cases[] = {
        {{r0, w4}, "different jobs"},
        {{r0, r0again}, "the same rank twice"},
        {{r0, r0}, "one file given twice"},
        {{r0, late}, "no time in common"},
        {{r0, none}, "says no rank"},
    };
    for (const Case& c : cases) {
        try {
            importRanks(db, c.files);
            QFAIL(c.why);
        } catch (const ImportError& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(QLatin1String(c.why)), e.what());
        }
    }
    QVERIFY(Reader(db).runs().empty());
    // The real pair of different jobs: world sizes 128 and 2.
    std::string a = trace("kineto-hta_2ranks_rank-0.json.gz");
    std::string b = trace("kineto_a100_nccl_rank-0-of-2.json.gz");
    if (a.empty() || b.empty())
        WT_MISSING_TRACE(a.empty() ? "kineto-hta_2ranks_rank-0.json.gz" : "kineto_a100_nccl_rank-0-of-2.json.gz");
    std::string cliOut = wt::test::tempPath("ranks-refused.wt");
    auto p = wt::test::runCli({QStringLiteral("import"), QString::fromStdString(a), QString::fromStdString(b), QStringLiteral("--one-run"),
                               QStringLiteral("-o"), QString::fromStdString(cliOut)});
    QCOMPARE(p.exitCode, 1);
    QVERIFY2(p.err.contains(QStringLiteral("of a job of 2 ranks")) && p.err.contains(QStringLiteral("different jobs")), qPrintable(p.err));
    QVERIFY2(!QFile::exists(QString::fromStdString(cliOut)), "a refused import left a file");
    // The good pair goes in.
    auto ok = importRanks(db, {r1, r0});
    QCOMPARE(ok.ranks, (std::vector<int>{0, 1}));
    QCOMPARE(Reader(db).runs().size(), size_t(1));
}

// Without distributedInfo the file order gives the ranks (and says so); a directory is its
// files as one run, rank-2 before rank-10.
void TestInterop::multiRankFileOrderAndDirectory()
{
    std::string dir = wt::test::tempPath("ranks-dir");
    QDir(QString::fromStdString(dir)).removeRecursively();
    QDir().mkpath(QString::fromStdString(dir));
    const int64_t t0 = 1700000000000000;
    writeBytes(dir + "/rank-10.json", rankTrace(0, 1, t0 + 3, false));
    writeBytes(dir + "/rank-2.json", rankTrace(0, 1, t0, false));
    writeBytes(dir + "/README.txt", "not a trace");
    auto files = traceFilesIn(dir);
    QCOMPARE(files.size(), size_t(2));
    QVERIFY(QString::fromStdString(files[0]).endsWith(QStringLiteral("rank-2.json")));
    std::string out = wt::test::tempPath("ranks-dir.wt");
    QFile::remove(QString::fromStdString(out));
    auto p = wt::test::runCli({QStringLiteral("import"), QString::fromStdString(dir), QStringLiteral("-o"), QString::fromStdString(out),
                               QStringLiteral("--name"), QStringLiteral("job")});
    QCOMPARE(p.exitCode, 0);
    QVERIFY2(p.out.contains(QStringLiteral("2 kernels, 2 devices, ranks 0,1 (from the file order")), qPrintable(p.out));
    Database db(out, OpenMode::ReadOnly);
    Reader reader(db);
    auto runs = reader.runs();
    QCOMPARE(runs.size(), size_t(1));
    QCOMPARE(QString::fromStdString(runs[0].name), QStringLiteral("job"));
    auto devices = reader.devices(runs[0].id);
    QCOMPARE(devices.size(), size_t(2));
    // rank 1 is rank-10.json: its kernel starts 3 us after rank 0's (clocks aligned).
    std::map<int32_t, int64_t> start;
    std::map<int64_t, int32_t> deviceOf;
    for (const auto& t : reader.tracks(runs[0].id))
        deviceOf[t.id] = t.deviceId;
    reader.forEachActivity(runs[0].id, [&](const Activity& a) {
        start[deviceOf[a.trackId]] = a.startNs;
        return true;
    });
    QCOMPARE(start[1] - start[0], int64_t(3000));
}

QTEST_GUILESS_MAIN(TestInterop)
#include "tst_interop.moc"
