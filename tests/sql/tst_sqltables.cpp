// The SQL virtual tables (sql/): rows equal to what `wheretime export --format csv` writes (a
// synthetic run, a CPU capture, shared Nsight and Kineto imports); time constraints read only
// the chunks they overlap and return exactly the rows a row-by-row check keeps; the loadable
// extension works in Python's sqlite3 and the sqlite3 shell.
#include "tests/support/synthrun.h"
#include "sql/sqltables.h"
#include "storage/database.h"
#include "storage/reader.h"
#include "storage/writer.h"
#include "tests/support/testsupport.h"

#include <QFile>
#include <QStandardPaths>
#include <QTest>

#include <sqlite3.h>

#include <functional>
#include <map>
#include <unordered_map>
#include <string>
#include <vector>

using namespace wt;

namespace {

// A read-only connection to a file with the tables registered in-process.
class Connection {
public:
    explicit Connection(const std::string& path)
    {
        if (sqlite3_open_v2(path.c_str(), &m_db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK)
            qFatal("cannot open %s", path.c_str());
        std::string error;
        if (sql::SqlTables::registerOn(m_db, error) != SQLITE_OK)
            qFatal("register: %s", error.c_str());
    }
    ~Connection() { sqlite3_close(m_db); }

    // Rows of a query, each as its columns' text joined by '|'; `error` set when it fails.
    std::vector<std::string> rows(const std::string& sql, std::string* error = nullptr) const
    {
        std::vector<std::string> out;
        sqlite3_stmt* s = nullptr;
        if (sqlite3_prepare_v2(m_db, sql.c_str(), -1, &s, nullptr) != SQLITE_OK) {
            if (error)
                *error = sqlite3_errmsg(m_db);
            return out;
        }
        int rc;
        while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
            std::string row;
            for (int i = 0; i < sqlite3_column_count(s); ++i) {
                const char* t = reinterpret_cast<const char*>(sqlite3_column_text(s, i));
                row += (i ? "|" : "") + std::string(t ? t : "NULL");
            }
            out.push_back(row);
        }
        if (rc != SQLITE_DONE && error)
            *error = sqlite3_errmsg(m_db);
        sqlite3_finalize(s);
        return out;
    }
    int64_t integer(const std::string& sql) const
    {
        std::string error;
        auto r = rows(sql, &error);
        if (!error.empty() || r.size() != 1)
            qFatal("%s: %s", sql.c_str(), error.c_str());
        return std::stoll(r[0]);
    }

private:
    sqlite3* m_db = nullptr;
};

// The columns `wheretime export --format csv` writes, in its row order.
const char* kExportQuery =
    "SELECT start_ns, end_ns, duration_ns, kind, device, stream, name, scope_path, grid_x, grid_y, grid_z, "
    "block_x, block_y, block_z, registers_per_thread, static_shared_memory, dynamic_shared_memory, bytes, "
    "correlation_id FROM activities WHERE run_id = %1 ORDER BY start_ns, device, kind <> 'kernel', stream, seq";

QString readFile(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QString::fromUtf8(f.readAll());
}

// One long kernel every 997 short ones: a kernel that starts before a window and ends in it.
struct Layout {
    static constexpr int64_t kKernels = 20000;
    static int64_t start(int64_t i) { return i * 1000; }
    static int64_t duration(int64_t i) { return i % 997 == 5 ? 4500 : 500 + i % 7; }
};

}  // namespace

class TestSqlTables : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void matchesExportSynthetic();
    void matchesExportCapture();
    void matchesExportImports_data();
    void matchesExportImports();
    void windowReadsOnlyOverlappingChunks_data();
    void windowReadsOnlyOverlappingChunks();
    void storageWindowSemantics();
    void scopeInstancesAndApiCalls();
    void notAWheretimeFile();
    void loadsInPython();
    void loadsInSqliteShell();

private:
    void compareWithExport(const QString& file, int64_t runId);
    std::string m_synth;     // two synthetic runs
    std::string m_window;    // one track of Layout's kernels
    synth::Result m_first, m_second;
    int64_t m_windowTrack = 0;
};

void TestSqlTables::initTestCase()
{
    m_synth = test::tempPath("synth.wt");
    {
        Database db(m_synth, OpenMode::ReadWrite);
        Writer w(db);
        synth::Options o;
        o.kernels = 30000;
        o.memcpyEvery = 300;
        o.name = "first";
        m_first = synth::generate(w, o);
        o.kernels = 5000;
        o.seed = 4;
        o.name = "second";
        m_second = synth::generate(w, o);
    }
    m_window = test::tempPath("window.wt");
    Database db(m_window, OpenMode::ReadWrite);
    Writer w(db);
    RunInfo info;
    info.name = "window";
    info.backend = "import";
    w.beginRun(info);
    w.addDevice(DeviceInfo{0, "GPU", "{}"});
    m_windowTrack = w.addTrack(0, 7, TrackKind::Kernel, "Stream 7");
    uint32_t gemm = w.intern("gemm");
    uint32_t add = w.intern("add");
    for (int64_t i = 0; i < Layout::kKernels; ++i) {
        Activity a;
        a.trackId = m_windowTrack;
        a.startNs = Layout::start(i);
        a.endNs = a.startNs + Layout::duration(i);
        a.nameId = i % 3 ? add : gemm;
        a.correlationId = i + 1;
        a.config.grid[0] = int32_t(1 + i % 5);
        a.config.block[0] = 128;
        w.addActivity(a);
    }
    w.finishRun(RunStatus::Complete, Layout::start(Layout::kKernels));
}

void TestSqlTables::compareWithExport(const QString& file, int64_t runId)
{
    const QString csv = QString::fromStdString(test::tempPath("export-" + std::to_string(qHash(file)) + ".csv"));
    auto e = test::runCli({QStringLiteral("export"), file + QLatin1Char(':') + QString::number(runId),
                           QStringLiteral("--format"), QStringLiteral("csv"), QStringLiteral("-o"), csv});
    QVERIFY2(e.exitCode == 0, qPrintable(e.err));
    auto q = test::runCli({QStringLiteral("sql"), file, QString::fromLatin1(kExportQuery).arg(runId), QStringLiteral("--csv")});
    QVERIFY2(q.exitCode == 0, qPrintable(q.err));
    const QString expected = readFile(csv);
    QVERIFY(expected.count(QLatin1Char('\n')) > 1);
    if (q.out != expected) {
        const QStringList a = q.out.split(QLatin1Char('\n')), b = expected.split(QLatin1Char('\n'));
        for (qsizetype i = 0; i < std::min(a.size(), b.size()); ++i)
            QVERIFY2(a[i] == b[i], qPrintable(QStringLiteral("line %1:\n sql:    %2\n export: %3").arg(i + 1).arg(a[i], b[i])));
        QCOMPARE(a.size(), b.size());
    }
}

void TestSqlTables::matchesExportSynthetic()
{
    compareWithExport(QString::fromStdString(m_synth), m_first.runId);
    compareWithExport(QString::fromStdString(m_synth), m_second.runId);
    Connection c(m_synth);
    QCOMPARE(c.integer("SELECT count(*) FROM kernels WHERE run_id = " + std::to_string(m_first.runId)), m_first.kernels);
    QCOMPARE(c.integer("SELECT sum(duration_ns) FROM kernels WHERE run_id = " + std::to_string(m_first.runId)),
             m_first.kernelTimeNs);
    QCOMPARE(c.integer("SELECT count(*) FROM activities WHERE kind = 'memcpy' AND run_id = " + std::to_string(m_first.runId)),
             m_first.memcpys);
    QCOMPARE(c.integer("SELECT count(*) FROM kernels"), m_first.kernels + m_second.kernels);
    QCOMPARE(c.integer("SELECT count(*) FROM activities WHERE run_id IN (1, 2) AND kind = 'memset'"), 0);
}

void TestSqlTables::matchesExportCapture()
{
    const QString file = QString::fromStdString(test::tempPath("capture.wt"));
    auto r = test::runCli({QStringLiteral("capture"), QStringLiteral("--workload"), QStringLiteral("transformer"),
                           QStringLiteral("--preset"), QStringLiteral("tiny"), QStringLiteral("--backend"), QStringLiteral("cpu"),
                           QStringLiteral("--steps"), QStringLiteral("2"), QStringLiteral("-o"), file},
                          240000);
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    compareWithExport(file, 1);
    Connection c(file.toStdString());
    // Every kernel of a capture sits in an op scope, inside a layer, phase and step.
    QCOMPARE(c.integer("SELECT count(*) FROM kernels WHERE scope_path = ''"), 0);
    QVERIFY(c.integer("SELECT count(*) FROM scope_instances WHERE level = 'step'") == 2);
}

void TestSqlTables::matchesExportImports_data()
{
    QTest::addColumn<QString>("trace");
    QTest::newRow("nsight") << QStringLiteral("nsys-2026.2_h100x2_fastvideo-1s.sqlite");
    QTest::newRow("kineto") << QStringLiteral("kineto_v100_ns-resolution.pt.trace.json.gz");
}

void TestSqlTables::matchesExportImports()
{
    QFETCH(QString, trace);
    WT_REQUIRE_TRACE(path, trace);
    const QString file = QString::fromStdString(test::tempPath(trace.toStdString() + ".wt"));
    auto r = test::runCli({QStringLiteral("import"), path, QStringLiteral("-o"), file}, 240000);
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    compareWithExport(file, 1);
    // The reference numbers of ../shared/traces/README.md, through SQL.
    Connection c(file.toStdString());
    if (trace.startsWith(QLatin1String("nsys"))) {
        QCOMPARE(c.integer("SELECT count(*) FROM kernels"), 3442);
        QCOMPARE(c.integer("SELECT sum(duration_ns) FROM kernels"), 44829522);
        QCOMPARE(c.integer("SELECT count(*) FROM activities WHERE kind = 'memcpy'"), 904);
        QCOMPARE(c.integer("SELECT count(*) FROM api_calls"), 5796);
        QCOMPARE(c.integer("SELECT count(DISTINCT device) FROM kernels"), 2);
    } else {
        QCOMPARE(c.integer("SELECT count(*) FROM kernels"), 4350);
        QCOMPARE(c.integer("SELECT sum(duration_ns) FROM kernels"), 468153602);
        QCOMPARE(c.integer("SELECT count(*) FROM activities WHERE kind = 'memset'"), 145);
    }
}

void TestSqlTables::windowReadsOnlyOverlappingChunks_data()
{
    QTest::addColumn<QString>("where");
    QTest::addColumn<int64_t>("t0");   // the chunks that may hold a row: start <= t1 and end >= t0
    QTest::addColumn<int64_t>("t1");
    QTest::newRow("overlap") << QStringLiteral("start_ns < 10000000 AND end_ns > 9990000") << int64_t(9990001) << int64_t(9999999);
    QTest::newRow("between") << QStringLiteral("start_ns BETWEEN 4096000 AND 4100000") << int64_t(4096000) << int64_t(4100000);
    QTest::newRow("equal") << QStringLiteral("start_ns = 7000000") << int64_t(7000000) << int64_t(7000000);
    QTest::newRow("end window") << QStringLiteral("end_ns >= 12000000 AND end_ns <= 12010000") << int64_t(12000000) << int64_t(12010000);
    // A window that starts inside the long kernel 15957 (15,957,000 to 15,961,500).
    QTest::newRow("starts before") << QStringLiteral("start_ns <= 15961200 AND end_ns >= 15961100") << int64_t(15961100) << int64_t(15961200);
    QTest::newRow("real bounds") << QStringLiteral("start_ns > 3000000.5 AND start_ns < 3010000.0") << int64_t(3000000) << int64_t(3010000);
    QTest::newRow("text bound") << QStringLiteral("start_ns >= '2040000' AND start_ns < 2047000") << int64_t(INT64_MIN) << int64_t(2046999);
    QTest::newRow("empty") << QStringLiteral("start_ns > 30000000") << int64_t(30000001) << int64_t(INT64_MAX);
}

void TestSqlTables::windowReadsOnlyOverlappingChunks()
{
    QFETCH(QString, where);
    QFETCH(int64_t, t0);
    QFETCH(int64_t, t1);
    Connection c(m_window);
    const std::string sql = "SELECT start_ns, end_ns, name, grid_x FROM kernels WHERE run_id = 1 AND " + where.toStdString() +
                            " ORDER BY start_ns";
    // The same condition checked by SQLite on every row of a plain table.
    std::string error;
    c.rows("CREATE TEMP TABLE every AS SELECT start_ns, end_ns, name, grid_x FROM kernels", &error);
    QVERIFY2(error.empty(), error.c_str());
    auto expected = c.rows("SELECT start_ns, end_ns, name, grid_x FROM temp.every WHERE " + where.toStdString() + " ORDER BY start_ns");
    int64_t before = c.integer("SELECT wheretime_chunks_read()");
    auto got = c.rows(sql, &error);
    int64_t read = c.integer("SELECT wheretime_chunks_read()") - before;
    QVERIFY2(error.empty(), error.c_str());
    QCOMPARE(got, expected);
    const int64_t chunks = c.integer("SELECT count(*) FROM activity_chunks");
    const int64_t overlapping = c.integer("SELECT count(*) FROM activity_chunks WHERE start_ns <= " + std::to_string(t1) +
                                          " AND end_ns >= " + std::to_string(t0));
    QCOMPARE(read, overlapping);
    QVERIFY2(read <= 2, qPrintable(QStringLiteral("%1 of %2 chunks read").arg(read).arg(chunks)));
    QVERIFY(chunks >= 9);
    if (where.startsWith(QLatin1String("start_ns <= 15961200"))) {
        QCOMPARE(got.size(), size_t(2));
        QVERIFY(got.front().rfind("15957000|15961500|", 0) == 0);   // the long kernel is in
    }
}

void TestSqlTables::storageWindowSemantics()
{
    // The GUI's window query (Reader::activities: overlaps [t0, t1), zero-length at t0 included)
    // written in SQL returns the same kernels.
    Database db(m_window, OpenMode::ReadOnly);
    Reader reader(db);
    Connection c(m_window);
    for (auto [t0, t1] : {std::pair<int64_t, int64_t>{15960000, 15961000}, {0, 2048 * 1000}, {19999000, 40000000}}) {
        std::vector<std::string> expected;
        for (const Activity& a : reader.activities(m_windowTrack, t0, t1))
            expected.push_back(std::to_string(a.startNs) + "|" + std::to_string(a.endNs));
        auto got = c.rows("SELECT start_ns, end_ns FROM activities WHERE track_id = " + std::to_string(m_windowTrack) +
                          " AND start_ns < " + std::to_string(t1) + " AND (end_ns > " + std::to_string(t0) +
                          " OR start_ns = " + std::to_string(t0) + ") ORDER BY start_ns, seq");
        QCOMPARE(got, expected);
        QVERIFY(!got.empty());
    }
}

void TestSqlTables::scopeInstancesAndApiCalls()
{
    Database db(m_synth, OpenMode::ReadOnly);
    Reader reader(db);
    Connection c(m_synth);
    const std::string run = std::to_string(m_first.runId);
    QCOMPARE(c.integer("SELECT count(*) FROM scope_instances WHERE run_id = " + run), m_first.scopeInstances);
    QCOMPARE(c.integer("SELECT count(*) FROM api_calls WHERE run_id = " + run), int64_t(reader.apiCalls(m_first.runId).size()));
    // The GPU span of each step instance: its kernels' first start and last end, children included.
    auto instances = reader.scopeInstances(m_first.runId);
    std::unordered_map<int64_t, int64_t> stepOf;   // instance -> its top-level ancestor
    for (const ScopeInstance& si : instances)
        stepOf[si.id] = si.parentId ? stepOf[si.parentId] : si.id;
    std::map<int64_t, std::pair<int64_t, int64_t>> span;
    reader.forEachActivity(m_first.runId, [&](const Activity& a) {
        if (!a.scopeInstanceId)
            return true;
        auto& s = span.try_emplace(stepOf[a.scopeInstanceId], INT64_MAX, INT64_MIN).first->second;
        s.first = std::min(s.first, a.startNs);
        s.second = std::max(s.second, a.endNs);
        return true;
    });
    std::vector<std::string> expected;
    for (auto& [id, s] : span)
        expected.push_back(std::to_string(id) + "|" + std::to_string(s.first) + "|" + std::to_string(s.second));
    QVERIFY(expected.size() >= 2);
    QCOMPARE(c.rows("SELECT id, gpu_start_ns, gpu_end_ns FROM scope_instances WHERE run_id = " + run +
                    " AND parent_id = 0 AND gpu_start_ns IS NOT NULL ORDER BY id"),
             expected);
    // Paths agree with the activities' scope_path.
    QCOMPARE(c.integer("SELECT count(*) FROM kernels k JOIN scope_instances s ON s.run_id = k.run_id AND "
                       "s.id = k.scope_instance_id WHERE k.run_id = " + run + " AND s.path <> k.scope_path"),
             0);
    QVERIFY(c.integer("SELECT count(DISTINCT level) FROM scope_instances WHERE run_id = " + run) >= 3);
}

void TestSqlTables::notAWheretimeFile()
{
    const std::string other = test::tempPath("other.sqlite");
    {
        sqlite3* db = nullptr;
        sqlite3_open(other.c_str(), &db);
        sqlite3_exec(db, "CREATE TABLE t(x)", nullptr, nullptr, nullptr);
        sqlite3_close(db);
    }
    Connection c(other);
    std::string error;
    auto rows = c.rows("SELECT * FROM kernels", &error);
    QVERIFY(rows.empty());
    QVERIFY2(error.find("not a wheretime file") != std::string::npos, error.c_str());
    QCOMPARE(c.integer("SELECT count(*) FROM t"), 0);   // the file's own tables still read
}

void TestSqlTables::loadsInPython()
{
    const QString extension = qEnvironmentVariable("WHERETIME_SQLITE_EXTENSION");
    QVERIFY(QFile::exists(extension));
    // Debian's python3 enables extension loading; a self-built one may not (then try the next).
    QString python;
    for (const QString& candidate : {QStringLiteral("/usr/bin/python3"), QStandardPaths::findExecutable(QStringLiteral("python3"))}) {
        if (candidate.isEmpty() || !QFile::exists(candidate))
            continue;
        auto probe = test::runProgram(candidate, {QStringLiteral("-c"),
                                                  QStringLiteral("import sqlite3; sqlite3.connect(':memory:').enable_load_extension")});
        if (probe.exitCode == 0) {
            python = candidate;
            break;
        }
    }
    if (python.isEmpty())
        QSKIP("no python3 whose sqlite3 can load extensions (Debian's /usr/bin/python3 can)");
    const char* script =
        "import sqlite3, sys\n"
        "db = sqlite3.connect('file:' + sys.argv[1] + '?mode=ro', uri=True)\n"
        "db.enable_load_extension(True)\n"
        "db.load_extension(sys.argv[2])\n"
        "print(db.execute('SELECT count(*), sum(duration_ns) FROM kernels WHERE run_id = ?', (int(sys.argv[3]),)).fetchone())\n"
        "print(db.execute(\"SELECT count(*) FROM activities WHERE kind = 'memcpy'\").fetchone()[0])\n";
    auto r = test::runProgram(python, {QStringLiteral("-c"), QString::fromLatin1(script), QString::fromStdString(m_synth),
                                       extension, QString::number(m_first.runId)});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QCOMPARE(r.out, QStringLiteral("(%1, %2)\n%3\n").arg(m_first.kernels).arg(m_first.kernelTimeNs).arg(m_first.memcpys + m_second.memcpys));
}

void TestSqlTables::loadsInSqliteShell()
{
    const QString shell = QStandardPaths::findExecutable(QStringLiteral("sqlite3"));
    if (shell.isEmpty())
        QSKIP("no sqlite3 shell on PATH (Debian package sqlite3)");
    QString extension = qEnvironmentVariable("WHERETIME_SQLITE_EXTENSION");
    extension.chop(3);   // `.load` finds the .so itself
    auto r = test::runProgram(shell, {QStringLiteral("-readonly"), QStringLiteral("-batch"), QStringLiteral("-cmd"),
                                      QStringLiteral(".load ") + extension, QString::fromStdString(m_window),
                                      QStringLiteral("SELECT count(*), max(duration_ns) FROM kernels WHERE start_ns >= 19990000;")});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    int64_t maxDuration = 0;
    for (int64_t i = 19990; i < Layout::kKernels; ++i)
        maxDuration = std::max(maxDuration, Layout::duration(i));
    QCOMPARE(r.out, QStringLiteral("10|%1\n").arg(maxDuration));
}

QTEST_GUILESS_MAIN(TestSqlTables)
#include "tst_sqltables.moc"
