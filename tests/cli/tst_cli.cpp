// The `wheretime` CLI as a user runs it: help, version, usage errors, runs and stats output
// (JSON, CSV, table) on generated runs, and bad files; outputs that would overwrite an input
// (also through links and SQLite's -wal/-shm) refused; failed imports that leave no file;
// inputs that are FIFOs, standard input, directories and devices (issue 18); stats of a run that
// a capture is still writing, marked partial (issue 18's live view).
#include "tests/support/synthrun.h"
#include "storage/database.h"
#include "storage/writer.h"
#include "tests/support/testsupport.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QScopeGuard>
#include <QTest>

#include <cmath>
#include <csignal>
#include <thread>

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace wt;
using test::runCli;

class TestCli : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void helpAndVersion();
    void usageErrors();
    void runsJson();
    void statsJsonAndCsv();
    void statsRunSelector();
    void badFiles();
    void exportRefusesItsInput();
    void importRefusesItsInput();
    void failedImportLeavesNoFile();
    void fifoAndStandardInput();
    void inputsThatAreNotFiles();
    void statsPartialWhileCapturing();
    void lockMessageNamesHolder();
    void damageNamesFileAndRun();
    void controlCharactersInNames();
    void chromeExportTimeBase();

private:
    QString m_file;
    synth::Result m_first, m_second;
};

void TestCli::initTestCase()
{
    m_file = QString::fromStdString(test::tempPath("cli.wt"));
    Database db(m_file.toStdString(), OpenMode::ReadWrite);
    Writer w(db);
    synth::Options o;
    o.kernels = 3000;
    o.name = "first";
    m_first = synth::generate(w, o);
    o.kernels = 1234;
    o.seed = 9;
    o.name = "second";
    m_second = synth::generate(w, o);
}

void TestCli::helpAndVersion()
{
    auto help = runCli({QStringLiteral("--help")});
    QCOMPARE(help.exitCode, 0);
    QVERIFY(help.out.contains(QStringLiteral("stats")));
    QVERIFY(help.out.contains(QStringLiteral("runs")));
    auto version = runCli({QStringLiteral("--version")});
    QCOMPARE(version.exitCode, 0);
    QVERIFY(version.out.startsWith(QStringLiteral("wheretime ")));
    auto sub = runCli({QStringLiteral("stats"), QStringLiteral("--help")});
    QCOMPARE(sub.exitCode, 0);
    QVERIFY(sub.out.contains(QStringLiteral("--group-by")));
    QVERIFY(sub.out.contains(QStringLiteral("--range T0:T1")));
    QVERIFY(help.out.contains(QStringLiteral("--range")));
}

void TestCli::usageErrors()
{
    QCOMPARE(runCli({}).exitCode, 2);
    QCOMPARE(runCli({QStringLiteral("frobnicate")}).exitCode, 2);
    QCOMPARE(runCli({QStringLiteral("runs")}).exitCode, 2);
    QCOMPARE(runCli({QStringLiteral("runs"), m_file, QStringLiteral("--bogus")}).exitCode, 2);
    auto r = runCli({QStringLiteral("stats"), m_file, QStringLiteral("--group-by"), QStringLiteral("colour")});
    QCOMPARE(r.exitCode, 2);
    QVERIFY(r.err.contains(QStringLiteral("colour")));
    QCOMPARE(runCli({QStringLiteral("stats"), m_file, QStringLiteral("--depth"), QStringLiteral("x")}).exitCode, 2);
    QCOMPARE(runCli({QStringLiteral("stats"), m_file, QStringLiteral("--json"), QStringLiteral("--csv")}).exitCode, 2);
    for (const char* bad : {"5ms:2ms", "2ms", "2min:3min", "a:b"}) {
        auto range = runCli({QStringLiteral("stats"), m_file, QStringLiteral("--range"), QString::fromLatin1(bad)});
        QCOMPARE(range.exitCode, 2);
        QVERIFY(range.err.contains(QStringLiteral("--range")));
    }
    // A range past the end holds nothing: no groups, exit 0.
    auto empty = runCli({QStringLiteral("stats"), m_file, QStringLiteral("--range"), QStringLiteral("1000s:2000s"),
                         QStringLiteral("--json")});
    QCOMPARE(empty.exitCode, 0);
    QCOMPARE(QJsonDocument::fromJson(empty.out.toUtf8()).object()[QStringLiteral("total_ns")].toInteger(), qint64(0));
}

void TestCli::runsJson()
{
    auto r = runCli({QStringLiteral("runs"), m_file, QStringLiteral("--json")});
    QCOMPARE(r.exitCode, 0);
    QJsonParseError err;
    QJsonDocument doc = QJsonDocument::fromJson(r.out.toUtf8(), &err);
    QCOMPARE(err.error, QJsonParseError::NoError);
    QJsonArray runs = doc.array();
    QCOMPARE(runs.size(), 2);
    QJsonObject first = runs[0].toObject();
    QCOMPARE(first[QStringLiteral("id")].toInteger(), m_first.runId);
    QCOMPARE(first[QStringLiteral("name")].toString(), QStringLiteral("first"));
    QCOMPARE(first[QStringLiteral("kernels")].toInteger(), m_first.kernels);
    QCOMPARE(first[QStringLiteral("status")].toString(), QStringLiteral("complete"));
    for (const char* key : {"workload", "variant", "backend", "device"})
        QVERIFY2(first.contains(QLatin1String(key)), key);
    auto table = runCli({QStringLiteral("runs"), m_file});
    QCOMPARE(table.exitCode, 0);
    QVERIFY(table.out.contains(QStringLiteral("second")));
}

void TestCli::statsJsonAndCsv()
{
    auto r = runCli({QStringLiteral("stats"), m_file + QStringLiteral(":first"), QStringLiteral("--json")});
    QCOMPARE(r.exitCode, 0);
    QJsonObject o = QJsonDocument::fromJson(r.out.toUtf8()).object();
    QCOMPARE(o[QStringLiteral("run")].toInteger(), m_first.runId);
    QCOMPARE(o[QStringLiteral("kernels")].toInteger(), m_first.kernels);
    QCOMPARE(o[QStringLiteral("kernel_time_ns")].toInteger(), m_first.kernelTimeNs);
    // The stored summary's kernel busy (kernels only, all devices); the devices' busy, which
    // counts memory operations too, is under "devices" (docs/definitions.md).
    QVERIFY(!o.contains(QStringLiteral("busy_ns")) && !o.contains(QStringLiteral("span_ns")));
    QVERIFY(o[QStringLiteral("kernel_busy_ns")].toInteger() > 0);
    QVERIFY(o[QStringLiteral("kernel_busy_ns")].toInteger() <= m_first.kernelTimeNs);
    QVERIFY(o[QStringLiteral("kernel_span_ns")].toInteger() >= o[QStringLiteral("kernel_busy_ns")].toInteger());
    QJsonArray groups = o[QStringLiteral("groups")].toArray();
    QVERIFY(groups.size() >= 3);   // embedding, decoder.*, softmax
    double shares = 0;
    qint64 total = 0;
    for (const auto& g : groups) {
        shares += g.toObject()[QStringLiteral("share")].toDouble();
        total += g.toObject()[QStringLiteral("time_ns")].toInteger();
        QVERIFY(g.toObject().contains(QStringLiteral("count")));
        QVERIFY(g.toObject().contains(QStringLiteral("path")));
    }
    QVERIFY(std::abs(shares - 1.0) < 1e-9);
    QCOMPARE(total, m_first.kernelTimeNs);

    auto csv = runCli({QStringLiteral("stats"), m_file + QStringLiteral(":first"), QStringLiteral("--csv"),
                       QStringLiteral("--group-by"), QStringLiteral("kernel")});
    QCOMPARE(csv.exitCode, 0);
    QStringList lines = csv.out.trimmed().split(QLatin1Char('\n'));
    // The breakdown table's column ids (analysis/breakdowntable.h), as --json's group keys.
    QCOMPARE(lines[0], QStringLiteral("name,path,time_ns,share,count,mean_ns,median_ns,min_ns,max_ns,flops,bytes,flop_per_s,bytes_per_s"));
    qint64 csvTotal = 0;
    int withFlops = 0;
    for (int i = 1; i < lines.size(); ++i) {   // names may hold quoted commas: count from the end
        QStringList fields = lines[i].split(QLatin1Char(','));
        auto field = [&](int fromEnd) { return fields.at(fields.size() - fromEnd); };
        csvTotal += field(11).toLongLong();
        const qint64 count = field(9).toLongLong(), minNs = field(6).toLongLong(), maxNs = field(5).toLongLong(),
                     time = field(11).toLongLong();
        QVERIFY(minNs * count <= time && time <= maxNs * count);
        // Op features: FLOPs, bytes and the rates per group (empty without them).
        if (!field(4).isEmpty()) {
            ++withFlops;
            QVERIFY(field(4).toDouble() >= 0);
            QVERIFY(field(3).toDouble() > 0);
        } else {
            QVERIFY(field(3).isEmpty() && field(2).isEmpty() && field(1).isEmpty());
        }
    }
    QCOMPARE(csvTotal, m_first.kernelTimeNs);
    QCOMPARE(withFlops, 0);   // a synthetic run has no op features: the columns stay empty

    auto within = runCli({QStringLiteral("stats"), m_file + QStringLiteral(":first"), QStringLiteral("--json"),
                          QStringLiteral("--group-by"), QStringLiteral("op"), QStringLiteral("--within"), QStringLiteral("layer=softmax")});
    QCOMPARE(within.exitCode, 0);
    QJsonObject w = QJsonDocument::fromJson(within.out.toUtf8()).object();
    qint64 softmax = 0;
    for (const auto& g : groups)
        if (g.toObject()[QStringLiteral("path")].toString() == QStringLiteral("softmax"))
            softmax = g.toObject()[QStringLiteral("time_ns")].toInteger();
    QVERIFY(softmax > 0);
    QCOMPARE(w[QStringLiteral("total_ns")].toInteger(), softmax);

    auto text = runCli({QStringLiteral("stats"), m_file});
    QCOMPARE(text.exitCode, 0);
    QVERIFY(text.out.contains(QStringLiteral("second")));   // default run is the newest
}

void TestCli::statsRunSelector()
{
    auto byId = runCli({QStringLiteral("stats"), m_file + QLatin1Char(':') + QString::number(m_second.runId), QStringLiteral("--json")});
    QCOMPARE(byId.exitCode, 0);
    QCOMPARE(QJsonDocument::fromJson(byId.out.toUtf8()).object()[QStringLiteral("kernels")].toInteger(), m_second.kernels);
    auto missing = runCli({QStringLiteral("stats"), m_file + QStringLiteral(":999")});
    QCOMPARE(missing.exitCode, 1);
    QVERIFY(missing.err.contains(QStringLiteral("no run with id 999")));
}

void TestCli::badFiles()
{
    auto missing = runCli({QStringLiteral("runs"), QStringLiteral("/nonexistent/x.wt")});
    QCOMPARE(missing.exitCode, 1);
    QCOMPARE(missing.err.trimmed().count(QLatin1Char('\n')), 0);
    QVERIFY(missing.err.contains(QStringLiteral("no such file")));
    QString junk = QString::fromStdString(test::tempPath("junk.wt"));
    QFile f(junk);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("definitely not sqlite");
    f.close();
    auto notDb = runCli({QStringLiteral("stats"), junk});
    QCOMPARE(notDb.exitCode, 1);
    QVERIFY(notDb.err.contains(QStringLiteral("not an SQLite database")));
    QCOMPARE(notDb.err.trimmed().count(QLatin1Char('\n')), 0);
}

namespace {

QByteArray readFile(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

void writeFile(const QString& path, const QByteArray& bytes)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(bytes);
}

// A fresh, empty directory for files that link to each other.
QString freshDir(const char* name)
{
    QString dir = QString::fromStdString(test::tempPath(name));
    QDir().mkpath(dir);
    return dir;
}

// A small Kineto-like trace with two kernels.
const QByteArray kTrace = R"({"traceEvents":[
{"ph":"X","cat":"kernel","name":"k1","pid":0,"tid":7,"ts":1712000000000000.5,"dur":2},
{"ph":"X","cat":"kernel","name":"k2","pid":0,"tid":7,"ts":1712000000000010,"dur":3}]})";

// The command must fail with one line naming the refusal.
void expectRefused(const test::ProcessResult& p)
{
    QCOMPARE(p.exitCode, 1);
    QCOMPARE(p.err.trimmed().count(QLatin1Char('\n')), 0);
    QVERIFY2(p.err.contains(QStringLiteral("refusing to write")), qPrintable(p.err));
}

}  // namespace

void TestCli::exportRefusesItsInput()
{
    // Writing the export over the database it reads destroyed every run in it (exit 0).
    const QString dir = freshDir("overwrite");
    const QString db = dir + QStringLiteral("/runs.wt");
    QVERIFY(QFile::copy(m_file, db));
    const QByteArray before = readFile(db);
    QVERIFY(::link(db.toLocal8Bit().constData(), (dir + QStringLiteral("/hard.wt")).toLocal8Bit().constData()) == 0);
    QVERIFY(QFile::link(db, dir + QStringLiteral("/sym.wt")));
    QVERIFY(QFile::link(dir + QStringLiteral("/runs.wt-wal"), dir + QStringLiteral("/dangling")));
    auto exportTo = [&](const QString& input, const QString& format, const QString& out) {
        return runCli({QStringLiteral("export"), input + QStringLiteral(":first"), QStringLiteral("--format"), format,
                       QStringLiteral("-o"), out});
    };
    const QString chrome = QStringLiteral("chrome"), csv = QStringLiteral("csv");
    for (const QString& format : {chrome, csv}) {
        expectRefused(exportTo(db, format, db));                                    // the file itself
        expectRefused(exportTo(db, format, dir + QStringLiteral("/hard.wt")));      // a hard link
        expectRefused(exportTo(db, format, db + QStringLiteral("-wal")));           // its write-ahead log (not there yet)
    }
    expectRefused(exportTo(db, chrome, dir + QStringLiteral("/sym.wt")));          // a symlink to it
    expectRefused(exportTo(dir + QStringLiteral("/sym.wt"), chrome, db));          // read through a symlink
    expectRefused(exportTo(db, chrome, dir + QStringLiteral("/../") + QDir(dir).dirName() + QStringLiteral("/runs.wt")));
    expectRefused(exportTo(db, chrome, db + QStringLiteral("-shm")));
    expectRefused(exportTo(dir + QStringLiteral("/sym.wt"), chrome, dir + QStringLiteral("/dangling")));   // a dangling link to its -wal
    // The CSV summary beside OUT (OUT_kern_sum.csv) and the temporary OUT.part count too.
    const QString summaryNamed = dir + QStringLiteral("/x_kern_sum.csv");
    QVERIFY(QFile::copy(m_file, summaryNamed));
    expectRefused(exportTo(summaryNamed, QStringLiteral("csv"), dir + QStringLiteral("/x.csv")));
    const QString partNamed = dir + QStringLiteral("/y.json.part");
    QVERIFY(QFile::copy(m_file, partNamed));
    expectRefused(exportTo(partNamed, QStringLiteral("chrome"), dir + QStringLiteral("/y.json")));
    QCOMPARE(readFile(db), before);
    auto runs = runCli({QStringLiteral("runs"), db, QStringLiteral("--json")});
    QCOMPARE(runs.exitCode, 0);
    QCOMPARE(QJsonDocument::fromJson(runs.out.toUtf8()).array().size(), 2);
    // A different file beside it is fine.
    auto ok = exportTo(db, QStringLiteral("chrome"), dir + QStringLiteral("/runs.json"));
    QCOMPARE(ok.exitCode, 0);
    QVERIFY(readFile(dir + QStringLiteral("/runs.json")).startsWith("{"));
}

void TestCli::importRefusesItsInput()
{
    const QString dir = freshDir("import-overwrite");
    const QString trace = dir + QStringLiteral("/t.json");
    writeFile(trace, kTrace);
    QVERIFY(QFile::link(trace, dir + QStringLiteral("/t-link.json")));
    expectRefused(runCli({QStringLiteral("import"), trace, QStringLiteral("-o"), trace}));
    expectRefused(runCli({QStringLiteral("import"), trace, QStringLiteral("-o"), dir + QStringLiteral("/t-link.json")}));
    // An existing wheretime file as both input and output.
    const QString db = dir + QStringLiteral("/runs.wt");
    QVERIFY(QFile::copy(m_file, db));
    const QByteArray before = readFile(db);
    expectRefused(runCli({QStringLiteral("import"), trace, db, QStringLiteral("-o"), db}));
    QCOMPARE(readFile(trace), kTrace);
    QCOMPARE(readFile(db), before);
}

void TestCli::failedImportLeavesNoFile()
{
    const QString dir = freshDir("failed-import");
    const QString bad = dir + QStringLiteral("/bad.json");
    writeFile(bad, QByteArray(R"({"traceEvents":[{"ph":"X","cat":"kernel")"));
    const QString good = dir + QStringLiteral("/good.json");
    writeFile(good, kTrace);
    auto dirEntries = [&] { return QDir(dir).entryList(QDir::Files | QDir::NoDotAndDotDot, QDir::Name); };
    const QStringList inputsOnly = dirEntries();

    // A new path: nothing at all stays behind (it was a 77 KB empty wheretime file).
    const QString fresh = dir + QStringLiteral("/new.wt");
    auto p = runCli({QStringLiteral("import"), bad, QStringLiteral("-o"), fresh});
    QCOMPARE(p.exitCode, 1);
    QCOMPARE(p.err.trimmed().count(QLatin1Char('\n')), 0);
    QCOMPARE(dirEntries(), inputsOnly);
    // Two inputs that both fail: still nothing.
    p = runCli({QStringLiteral("import"), bad, dir + QStringLiteral("/missing.json"), QStringLiteral("-o"), fresh});
    QCOMPARE(p.exitCode, 1);
    QCOMPARE(dirEntries(), inputsOnly);
    // An existing empty file stays empty.
    const QString empty = dir + QStringLiteral("/empty.wt");
    writeFile(empty, QByteArray());
    p = runCli({QStringLiteral("import"), bad, QStringLiteral("-o"), empty});
    QCOMPARE(p.exitCode, 1);
    QCOMPARE(QFileInfo(empty).size(), qint64(0));
    QVERIFY(!QFileInfo::exists(empty + QStringLiteral("-wal")));
    // An existing wheretime file keeps its runs.
    const QString db = dir + QStringLiteral("/runs.wt");
    QVERIFY(QFile::copy(m_file, db));
    p = runCli({QStringLiteral("import"), bad, QStringLiteral("-o"), db});
    QCOMPARE(p.exitCode, 1);
    QVERIFY(QFileInfo::exists(db));
    auto runs = runCli({QStringLiteral("runs"), db, QStringLiteral("--json")});
    QCOMPARE(QJsonDocument::fromJson(runs.out.toUtf8()).array().size(), 2);
    // One good input among bad ones: the file is kept with that run (exit 1 for the bad one).
    p = runCli({QStringLiteral("import"), bad, good, QStringLiteral("-o"), fresh});
    QCOMPARE(p.exitCode, 1);
    runs = runCli({QStringLiteral("runs"), fresh, QStringLiteral("--json")});
    QCOMPARE(runs.exitCode, 0);
    QCOMPARE(QJsonDocument::fromJson(runs.out.toUtf8()).array().size(), 1);
}

void TestCli::fifoAndStandardInput()
{
    const QString dir = freshDir("fifo");
    const QString fifo = dir + QStringLiteral("/trace.fifo");
    QVERIFY(::mkfifo(fifo.toLocal8Bit().constData(), 0600) == 0);
    const QString out = dir + QStringLiteral("/out.wt");
    auto kernels = [&] {
        auto runs = runCli({QStringLiteral("runs"), out, QStringLiteral("--json")});
        qint64 n = 0;
        for (const auto& r : QJsonDocument::fromJson(runs.out.toUtf8()).array())
            n += r.toObject()[QStringLiteral("kernels")].toInteger();
        return n;
    };
    // A writer on the FIFO: the import reads it once (it hung re-opening the pipe).
    {
        std::thread writer([&] {
            int fd = ::open(fifo.toLocal8Bit().constData(), O_WRONLY);
            if (fd >= 0) {
                [[maybe_unused]] ssize_t n = ::write(fd, kTrace.constData(), size_t(kTrace.size()));
                ::close(fd);
            }
        });
        auto p = runCli({QStringLiteral("import"), fifo, QStringLiteral("-o"), out}, 60000);
        if (p.exitCode != 0) {
            // Unblock the writer when the import never opened the FIFO.
            int fd = ::open(fifo.toLocal8Bit().constData(), O_RDONLY | O_NONBLOCK);
            writer.join();
            ::close(fd);
        } else {
            writer.join();
        }
        QVERIFY2(p.exitCode == 0, qPrintable(p.err));
        QVERIFY2(p.out.contains(QStringLiteral("2 kernels")), qPrintable(p.out));
        QCOMPARE(kernels(), qint64(2));
    }
    // No writer at all: one line after a short wait, not a hang.
    auto p = runCli({QStringLiteral("import"), fifo, QStringLiteral("-o"), out}, 60000);
    QCOMPARE(p.exitCode, 1);
    QCOMPARE(p.err.trimmed().count(QLatin1Char('\n')), 0);
    QVERIFY2(p.err.contains(QStringLiteral("no writer")), qPrintable(p.err));
    // Standard input as '-': a pipe, and a file redirected into it.
    const QString trace = dir + QStringLiteral("/t.json");
    writeFile(trace, kTrace);
    const QString cli = qEnvironmentVariable("WHERETIME_CLI");
    p = test::runProgram(QStringLiteral("/bin/sh"), {QStringLiteral("-c"), QStringLiteral("cat \"$1\" | \"$0\" import - -o \"$2\""), cli, trace, out}, 60000);
    QVERIFY2(p.exitCode == 0, qPrintable(p.err));
    QVERIFY2(p.out.contains(QStringLiteral("2 kernels")), qPrintable(p.out));
    p = test::runProgram(QStringLiteral("/bin/sh"), {QStringLiteral("-c"), QStringLiteral("\"$0\" import - -o \"$2\" < \"$1\""), cli, trace, out}, 60000);
    QVERIFY2(p.exitCode == 0, qPrintable(p.err));
    QCOMPARE(kernels(), qint64(6));
    // gzip through a pipe.
    p = test::runProgram(QStringLiteral("/bin/sh"), {QStringLiteral("-c"), QStringLiteral("gzip -c \"$1\" | \"$0\" import - -o \"$2\""), cli, trace, out}, 60000);
    QVERIFY2(p.exitCode == 0, qPrintable(p.err));
    QCOMPARE(kernels(), qint64(8));
    // Nothing on standard input.
    p = runCli({QStringLiteral("import"), QStringLiteral("-"), QStringLiteral("-o"), out});
    QCOMPARE(p.exitCode, 1);
    QVERIFY2(p.err.contains(QStringLiteral("empty standard input")), qPrintable(p.err));
    QCOMPARE(kernels(), qint64(8));
}

void TestCli::inputsThatAreNotFiles()
{
    const QString dir = freshDir("not-files");
    const QString out = dir + QStringLiteral("/out.wt");
    // A directory said "empty file".
    auto p = runCli({QStringLiteral("import"), dir, QStringLiteral("-o"), out});
    QCOMPARE(p.exitCode, 1);
    QCOMPARE(p.err.trimmed().count(QLatin1Char('\n')), 0);
    QVERIFY2(p.err.contains(QStringLiteral("is a directory")), qPrintable(p.err));
    QVERIFY(!QFileInfo::exists(out));
    // An endless device fails on its first bytes instead of being read forever.
    p = runCli({QStringLiteral("import"), QStringLiteral("/dev/zero"), QStringLiteral("-o"), out}, 60000);
    QCOMPARE(p.exitCode, 1);
    QVERIFY2(p.err.contains(QStringLiteral("unknown format")), qPrintable(p.err));
    p = runCli({QStringLiteral("import"), QStringLiteral("/dev/null"), QStringLiteral("-o"), out});
    QCOMPARE(p.exitCode, 1);
    QVERIFY2(p.err.contains(QStringLiteral("empty")), qPrintable(p.err));
    QVERIFY(!QFileInfo::exists(out));
}

void TestCli::statsPartialWhileCapturing()
{
    // A capture in a child process: while it writes the run, stats prints what is committed,
    // marked partial; once it ends (SIGINT keeps the run as interrupted) the mark is gone.
    const QString file = QString::fromStdString(test::tempPath("partial.wt"));
    QProcess capture;
    capture.start(qEnvironmentVariable("WHERETIME_CLI"),
                  {QStringLiteral("capture"), QStringLiteral("--workload"), QStringLiteral("gcn"), QStringLiteral("--preset"),
                   QStringLiteral("small"), QStringLiteral("--backend"), QStringLiteral("cpu"), QStringLiteral("--steps"),
                   QStringLiteral("1000000"), QStringLiteral("--warmup"), QStringLiteral("0"), QStringLiteral("-o"), file});
    QVERIFY(capture.waitForStarted());
    auto cleanup = qScopeGuard([&] {
        if (capture.state() != QProcess::NotRunning) {
            capture.kill();
            capture.waitForFinished(10000);
        }
    });
    // Wait until the run is writing with committed kernels (stats then reads it).
    QJsonObject json;
    QTRY_VERIFY_WITH_TIMEOUT(([&] {
        auto r = runCli({QStringLiteral("stats"), file, QStringLiteral("--json")});
        json = QJsonDocument::fromJson(r.out.toUtf8()).object();
        return r.exitCode == 0 && json[QStringLiteral("kernels")].toInteger() > 0;
    }()), 60000);
    QCOMPARE(json[QStringLiteral("status")].toString(), QStringLiteral("writing"));
    QCOMPARE(json[QStringLiteral("partial")].toBool(false), true);
    auto text = runCli({QStringLiteral("stats"), file});
    QCOMPARE(text.exitCode, 0);
    QVERIFY2(text.out.contains(QStringLiteral("partial: the capture is still running")), qPrintable(text.out));
    QVERIFY(text.out.contains(QStringLiteral("(writing)")));
    auto csv = runCli({QStringLiteral("stats"), file, QStringLiteral("--csv")});
    QCOMPARE(csv.exitCode, 0);
    QVERIFY(csv.out.startsWith(QStringLiteral("name,path,time_ns")));   // the CSV stays clean
    QVERIFY(csv.err.contains(QStringLiteral("partial")));

    ::kill(pid_t(capture.processId()), SIGINT);
    QVERIFY(capture.waitForFinished(60000));
    QCOMPARE(capture.exitCode(), 130);
    auto done = runCli({QStringLiteral("stats"), file, QStringLiteral("--json")});
    QCOMPARE(done.exitCode, 0);
    json = QJsonDocument::fromJson(done.out.toUtf8()).object();
    QCOMPARE(json[QStringLiteral("status")].toString(), QStringLiteral("interrupted"));
    QCOMPARE(json[QStringLiteral("partial")].toBool(true), false);
    text = runCli({QStringLiteral("stats"), file});
    QVERIFY(!text.out.contains(QStringLiteral("partial")));
}

void TestCli::lockMessageNamesHolder()
{
    // A reader holds the file (`wheretime sql` inside a read transaction, statements from its
    // standard input): a capture into it waits out the busy timeout and then says that a reader
    // holds it, and which process, not "locked by another writer". The file keeps its runs.
    const QString file = QString::fromStdString(test::tempPath("locked.wt"));
    QFile::remove(file);
    QVERIFY(QFile::copy(m_file, file));
    const QByteArray before = readFile(file);
    QProcess reader;
    reader.start(qEnvironmentVariable("WHERETIME_CLI"), {QStringLiteral("sql"), file});
    QVERIFY(reader.waitForStarted());
    auto cleanup = qScopeGuard([&] {
        reader.closeWriteChannel();
        if (!reader.waitForFinished(10000))
            reader.kill();
    });
    reader.write("BEGIN;\nSELECT count(*) AS n FROM runs;\n");
    QByteArray answered;
    QTRY_VERIFY2_WITH_TIMEOUT((answered += reader.readAllStandardOutput()).contains("n\n2"), // inside its read transaction
                              qPrintable(QString::fromUtf8(answered + reader.readAllStandardError())), 30000);

    auto capture = runCli({QStringLiteral("capture"), QStringLiteral("--workload"), QStringLiteral("gcn"),
                           QStringLiteral("--preset"), QStringLiteral("tiny"), QStringLiteral("--backend"),
                           QStringLiteral("cpu"), QStringLiteral("--steps"), QStringLiteral("1"), QStringLiteral("-o"), file});
    QCOMPARE(capture.exitCode, 1);
    QCOMPARE(capture.err.count(QLatin1Char('\n')), 1);
    const QString holder = QStringLiteral("the file is being read by process %1 (wheretime sql ").arg(reader.processId());
    QVERIFY2(capture.err.contains(holder), qPrintable(capture.err));
    QVERIFY2(!capture.err.contains(QStringLiteral("writer")), qPrintable(capture.err));

    reader.write("COMMIT;\n");
    reader.closeWriteChannel();
    QVERIFY(reader.waitForFinished(30000));
    QCOMPARE(reader.exitCode(), 0);
    QCOMPARE(readFile(file), before);   // nothing was written, nothing lost
    auto runs = runCli({QStringLiteral("runs"), file, QStringLiteral("--json")});
    QCOMPARE(runs.exitCode, 0);
    QCOMPARE(QJsonDocument::fromJson(runs.out.toUtf8()).array().size(), 2);
}

void TestCli::damageNamesFileAndRun()
{
    // A damaged chunk or page: the one-line error names the file and, for a chunk, the run, and
    // the other run still reads.
    const QString file = QString::fromStdString(test::tempPath("damaged-chunks.wt"));
    QFile::remove(file);
    QVERIFY(QFile::copy(m_file, file));
    QFile::setPermissions(file, QFile::ReadOwner | QFile::WriteOwner);
    auto exec = [&](const char* sql) {
        sqlite3* db = nullptr;
        QCOMPARE(sqlite3_open(file.toUtf8().constData(), &db), SQLITE_OK);
        char* err = nullptr;
        const int rc = sqlite3_exec(db, sql, nullptr, nullptr, &err);
        QVERIFY2(rc == SQLITE_OK, err ? err : "");
        sqlite3_close(db);
    };
    const QString second = QString::number(m_second.runId);
    const QString prefix = QStringLiteral("wheretime: error: %1: run %2 is damaged (").arg(file, second);
    const QString suffix = QStringLiteral("); the file's other runs can still be read\n");

    exec(qPrintable(QStringLiteral("UPDATE scope_instance_chunks SET data = X'09' || substr(data, 2) WHERE run_id = %1").arg(second)));
    auto instances = runCli({QStringLiteral("export"), file + QLatin1Char(':') + second, QStringLiteral("--format"),
                             QStringLiteral("chrome"), QStringLiteral("-o"), QString::fromStdString(test::tempPath("damaged.json"))});
    QCOMPARE(instances.exitCode, 1);
    QCOMPARE(instances.err, prefix + QStringLiteral("corrupt scope instance chunk: unknown format") + suffix);
    QCOMPARE(runCli({QStringLiteral("stats"), file + QLatin1Char(':') + QString::number(m_first.runId)}).exitCode, 0);

    QVERIFY(QFile::remove(file));
    QVERIFY(QFile::copy(m_file, file));
    QFile::setPermissions(file, QFile::ReadOwner | QFile::WriteOwner);
    exec(qPrintable(QStringLiteral("UPDATE activity_chunks SET data = X'09' || substr(data, 2) WHERE track_id = "
                                   "(SELECT min(id) FROM tracks WHERE run_id = %1)").arg(second)));
    auto activities = runCli({QStringLiteral("export"), file + QLatin1Char(':') + second, QStringLiteral("--format"),
                              QStringLiteral("csv"), QStringLiteral("-o"), QString::fromStdString(test::tempPath("damaged.csv"))});
    QCOMPARE(activities.exitCode, 1);
    QCOMPARE(activities.err.count(QLatin1Char('\n')), 1);
    QVERIFY2(activities.err.startsWith(prefix + QStringLiteral("corrupt activity chunk: unknown format, track ")), qPrintable(activities.err));
    QVERIFY2(activities.err.endsWith(suffix), qPrintable(activities.err));
    QCOMPARE(runCli({QStringLiteral("stats"), file + QLatin1Char(':') + QString::number(m_first.runId)}).exitCode, 0);

    // A damaged page (the file's last pages overwritten): the message names the file.
    QVERIFY(QFile::remove(file));
    QVERIFY(QFile::copy(m_file, file));
    QFile::setPermissions(file, QFile::ReadOwner | QFile::WriteOwner);
    {
        QFile f(file);
        QVERIFY(f.open(QIODevice::ReadWrite));
        const qint64 size = f.size();
        QVERIFY(f.seek(size / 2));
        f.write(QByteArray(int(size - size / 2), char(0x5a)));
    }
    auto page = runCli({QStringLiteral("export"), file + QLatin1Char(':') + second, QStringLiteral("--format"),
                        QStringLiteral("csv"), QStringLiteral("-o"), QString::fromStdString(test::tempPath("damaged.csv"))});
    QCOMPARE(page.exitCode, 1);
    QCOMPARE(page.err.count(QLatin1Char('\n')), 1);
    QVERIFY2(page.err.startsWith(QStringLiteral("wheretime: error: %1: ").arg(file)), qPrintable(page.err));
}

void TestCli::controlCharactersInNames()
{
    // Kernel names with an embedded NUL, a newline, a tab and an escape byte: the text table
    // writes them escaped on one line each (neither cut at the NUL nor broken by the newline);
    // CSV and JSON keep the raw names.
    const QString json = QString::fromStdString(test::tempPath("control-names.json"));
    writeFile(json, R"([
 {"ph":"X","cat":"kernel","name":"gemm\u0000hidden","pid":0,"tid":3,"ts":100,"dur":10,"args":{"device":0,"stream":3}},
 {"ph":"X","cat":"kernel","name":"line1\nline2\ttab\u001b[31m","pid":0,"tid":3,"ts":120,"dur":5,"args":{"device":0,"stream":3}}
])");
    const QString file = QString::fromStdString(test::tempPath("control-names.wt"));
    QFile::remove(file);
    auto imported = runCli({QStringLiteral("import"), json, QStringLiteral("-o"), file});
    QVERIFY2(imported.exitCode == 0, qPrintable(imported.err));

    auto text = runCli({QStringLiteral("stats"), file, QStringLiteral("--group-by"), QStringLiteral("kernel")});
    QCOMPARE(text.exitCode, 0);
    const QStringList lines = text.out.split(QLatin1Char('\n'));
    auto lineWith = [&](const QString& needle) {
        return std::count_if(lines.begin(), lines.end(), [&](const QString& l) { return l.contains(needle); });
    };
    QCOMPARE(lineWith(QStringLiteral("gemm\\0hidden ")), qsizetype(1));
    QCOMPARE(lineWith(QStringLiteral("line1\\nline2\\ttab\\x1b[31m ")), qsizetype(1));
    QVERIFY(!text.out.contains(QChar(0)));
    QVERIFY(!text.out.contains(QChar(0x1b)));
    QVERIFY(!text.out.contains(QStringLiteral("line1\n")));

    auto csv = runCli({QStringLiteral("stats"), file, QStringLiteral("--group-by"), QStringLiteral("kernel"), QStringLiteral("--csv")});
    QCOMPARE(csv.exitCode, 0);
    QVERIFY(csv.out.contains(QStringLiteral("\"line1\nline2\ttab\x1b[31m\"")));
    auto js = runCli({QStringLiteral("stats"), file, QStringLiteral("--group-by"), QStringLiteral("kernel"), QStringLiteral("--json")});
    QCOMPARE(js.exitCode, 0);
    QStringList names;
    for (const QJsonValue& g : QJsonDocument::fromJson(js.out.toUtf8()).object()[QStringLiteral("groups")].toArray())
        names << g.toObject()[QStringLiteral("name")].toString();
    QVERIFY2(names.contains(QString::fromUtf8("gemm\0hidden", 11)), qPrintable(names.join(QLatin1Char('|'))));
    QVERIFY2(names.contains(QStringLiteral("line1\nline2\ttab\x1b[31m")), qPrintable(names.join(QLatin1Char('|'))));
}

void TestCli::chromeExportTimeBase()
{
    // One time base: a capture's first kernel comes after its time 0; the CSV export, the Chrome
    // export's ts and `stats --range` all count from that 0, and importing the Chrome export
    // gives back the same times.
    const QString file = QString::fromStdString(test::tempPath("timebase.wt"));
    QFile::remove(file);
    auto cap = runCli({QStringLiteral("capture"), QStringLiteral("--workload"), QStringLiteral("gcn"), QStringLiteral("--preset"),
                       QStringLiteral("tiny"), QStringLiteral("--backend"), QStringLiteral("cpu"), QStringLiteral("--steps"),
                       QStringLiteral("2"), QStringLiteral("-o"), file});
    QVERIFY2(cap.exitCode == 0, qPrintable(cap.err));
    auto kernelsOfCsv = [](const QString& csvPath) {
        QFile f(csvPath);
        std::vector<std::pair<qint64, qint64>> out;
        if (!f.open(QIODevice::ReadOnly))
            return out;
        const QStringList lines = QString::fromUtf8(f.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        const QStringList header = lines.front().split(QLatin1Char(','));
        const qsizetype cs = header.indexOf(QStringLiteral("start_ns")), ce = header.indexOf(QStringLiteral("end_ns")),
                        ck = header.indexOf(QStringLiteral("kind"));
        for (qsizetype i = 1; i < lines.size(); ++i) {
            const QStringList c = lines[i].split(QLatin1Char(','));   // capture names hold no commas
            if (c.value(ck) == QLatin1String("kernel"))
                out.emplace_back(c.value(cs).toLongLong(), c.value(ce).toLongLong());
        }
        std::sort(out.begin(), out.end());
        return out;
    };
    const QString csv = QString::fromStdString(test::tempPath("timebase.csv"));
    const QString chrome = QString::fromStdString(test::tempPath("timebase.json"));
    QCOMPARE(runCli({QStringLiteral("export"), file, QStringLiteral("--format"), QStringLiteral("csv"), QStringLiteral("-o"), csv}).exitCode, 0);
    QCOMPARE(runCli({QStringLiteral("export"), file, QStringLiteral("--format"), QStringLiteral("chrome"), QStringLiteral("-o"), chrome}).exitCode, 0);
    const auto fromCsv = kernelsOfCsv(csv);
    QVERIFY(fromCsv.size() > 10);
    QVERIFY(fromCsv.front().first > 0);   // the first kernel comes after time 0

    // The Chrome export's kernels at the same times (ts and dur in us, exact to the ns).
    QFile jf(chrome);
    QVERIFY(jf.open(QIODevice::ReadOnly));
    const QJsonObject doc = QJsonDocument::fromJson(jf.readAll()).object();
    std::vector<std::pair<qint64, qint64>> fromChrome;
    for (const QJsonValue& v : doc[QStringLiteral("traceEvents")].toArray()) {
        const QJsonObject e = v.toObject();
        if (e[QStringLiteral("cat")].toString() != QLatin1String("kernel"))
            continue;
        const qint64 start = qRound64(e[QStringLiteral("ts")].toDouble() * 1000);
        fromChrome.emplace_back(start, start + qRound64(e[QStringLiteral("dur")].toDouble() * 1000));
    }
    std::sort(fromChrome.begin(), fromChrome.end());
    QCOMPARE(fromChrome, fromCsv);
    QVERIFY(doc[QStringLiteral("wheretime")].toObject()[QStringLiteral("origin_ns")].toInteger() != 0);

    // A kernel's ts and dur from the Chrome export, as a --range: exactly the kernels the CSV
    // says overlap it (brute force).
    const auto [k0, k1] = fromCsv[fromCsv.size() / 2];
    qint64 expected = 0;
    for (const auto& [s, e] : fromCsv)
        expected += (e == s ? (s >= k0 && s < k1) : (std::min(e, k1) - std::max(s, k0) > 0)) ? 1 : 0;
    auto ranged = runCli({QStringLiteral("stats"), file, QStringLiteral("--group-by"), QStringLiteral("kind"), QStringLiteral("--json"),
                          QStringLiteral("--range"), QStringLiteral("%1us:%2us").arg(double(k0) / 1000, 0, 'f', 3).arg(double(k1) / 1000, 0, 'f', 3)});
    QCOMPARE(ranged.exitCode, 0);
    qint64 counted = 0;
    for (const QJsonValue& g : QJsonDocument::fromJson(ranged.out.toUtf8()).object()[QStringLiteral("groups")].toArray())
        if (g.toObject()[QStringLiteral("name")].toString() == QLatin1String("kernel"))
            counted = g.toObject()[QStringLiteral("count")].toInteger();
    QCOMPARE(counted, expected);
    QVERIFY(expected >= 1);

    // Imported back, the run has the same times (not moved to start its first kernel at 0).
    const QString back = QString::fromStdString(test::tempPath("timebase-back.wt"));
    QFile::remove(back);
    auto imp = runCli({QStringLiteral("import"), chrome, QStringLiteral("-o"), back});
    QVERIFY2(imp.exitCode == 0, qPrintable(imp.err));
    const QString backCsv = QString::fromStdString(test::tempPath("timebase-back.csv"));
    QCOMPARE(runCli({QStringLiteral("export"), back, QStringLiteral("--format"), QStringLiteral("csv"), QStringLiteral("-o"), backCsv}).exitCode, 0);
    QCOMPARE(kernelsOfCsv(backCsv), fromCsv);
}

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
