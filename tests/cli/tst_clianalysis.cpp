// `wheretime import --step/--layer-depth/--categories` and `wheretime stats --group-by
// step|category`, `devices` and `steps` in `stats --json`, full names and `--width` (60 on a
// terminal), and
// `compare --group-by category`, on the real HTA rank-0 trace (../shared/traces; its README
// has the reference numbers).
#include "tests/support/testsupport.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTest>

#include <cmath>

using namespace wt;
using test::runCli;

namespace {

QJsonObject jsonOf(const test::ProcessResult& r)
{
    return QJsonDocument::fromJson(r.out.toUtf8()).object();
}

QJsonObject groupNamed(const QJsonObject& stats, const QString& path)
{
    for (const auto& v : stats[QStringLiteral("groups")].toArray())
        if (v.toObject()[QStringLiteral("path")].toString() == path)
            return v.toObject();
    return {};
}

}  // namespace

class TestCliAnalysis : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void statsBySteps();
    void statsJsonDevicesAndSteps();
    void categories();
    void namesFullOrElided();
    void layerDepth();
    void badSettings();
    void groupByEchoed();

private:
    QString m_file;
    bool m_have = false;
};

void TestCliAnalysis::initTestCase()
{
    const QString trace = test::sharedTrace("kineto-hta_2ranks_rank-0.json.gz");
    if (trace.isEmpty())
        return;   // each test fails (CI) or skips with the file's name
    m_have = true;
    m_file = QString::fromStdString(test::tempPath("analysis.wt"));
    const QString rules = QString::fromStdString(test::tempPath("rules.txt"));
    QFile f(rules);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("# SendRecv apart\nnccl.*SendRecv -> point-to-point\n");
    f.close();
    auto plain = runCli({QStringLiteral("import"), trace, QStringLiteral("-o"), m_file, QStringLiteral("--name"), QStringLiteral("plain")});
    QVERIFY2(plain.exitCode == 0, qPrintable(plain.err));
    auto set = runCli({QStringLiteral("import"), trace, QStringLiteral("-o"), m_file, QStringLiteral("--name"), QStringLiteral("set"),
                       QStringLiteral("--categories"), rules, QStringLiteral("--layer-depth"), QStringLiteral("2")});
    QVERIFY2(set.exitCode == 0, qPrintable(set.err));
}

#define NEED_TRACE()                                                    \
    if (!m_have)                                                        \
    WT_MISSING_TRACE("kineto-hta_2ranks_rank-0.json.gz")

void TestCliAnalysis::statsBySteps()
{
    NEED_TRACE();
    auto text = runCli({QStringLiteral("stats"), m_file + QStringLiteral(":plain"), QStringLiteral("--group-by"), QStringLiteral("step")});
    QVERIFY2(text.exitCode == 0, qPrintable(text.err));
    QVERIFY(text.out.contains(QStringLiteral("ProfilerStep#551")));
    QVERIFY(text.out.contains(QStringLiteral("ProfilerStep#552")));
    // The devices table, then the steps table (render::text of devicesTable and stepsTable).
    QVERIFY(text.out.contains(QStringLiteral("\ndevice ")));
    QVERIFY(text.out.contains(QStringLiteral("\nGPU 0 ")));
    QVERIFY(text.out.indexOf(QStringLiteral("\ndevice ")) < text.out.indexOf(QStringLiteral("\nstep ")));
    auto csv = runCli({QStringLiteral("stats"), m_file + QStringLiteral(":plain"), QStringLiteral("--group-by"), QStringLiteral("step"),
                       QStringLiteral("--csv")});
    QVERIFY2(csv.exitCode == 0, qPrintable(csv.err));
    const QStringList lines = csv.out.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 3);
    // The first ten columns where they have always been; the rest of analysis's stepsTable after them.
    QCOMPARE(lines[0], QStringLiteral("name,start_ns,end_ns,kernels,kernel_time_ns,busy_ns,idle_ns,span_ns,comm_ns,comm_overlap_ns,"
                                      "idle_share,compute_ns,non_compute_ns,comm_exposed_ns,memory_ops,memory_ns,memory_overlap_ns,"
                                      "memory_exposed_ns,index"));
    qint64 kernels = 0;
    for (int i = 1; i < 3; ++i) {
        const QStringList f = lines[i].split(QLatin1Char(','));
        kernels += f[3].toLongLong();
        QCOMPARE(f[5].toLongLong() + f[6].toLongLong(), f[7].toLongLong());   // busy + idle = span
        QVERIFY(f[11].toLongLong() <= f[5].toLongLong());                     // compute <= busy
        QVERIFY(f[15].toLongLong() > 0 && f[15].toLongLong() <= f[5].toLongLong());   // memory: this rank's memcpys
        QCOMPARE(f[12].toLongLong(), f[5].toLongLong() - f[11].toLongLong());            // non-compute = busy - compute
        QCOMPARE(f[18].toLongLong(), qint64(i - 1));                                      // index
    }
    QCOMPARE(kernels, qint64(1154));
    // Steps and ranges exclude each other.
    QCOMPARE(runCli({QStringLiteral("stats"), m_file, QStringLiteral("--group-by"), QStringLiteral("step"), QStringLiteral("--range"),
                     QStringLiteral("0:1ms")})
                 .exitCode,
             2);
}

void TestCliAnalysis::statsJsonDevicesAndSteps()
{
    NEED_TRACE();
    auto r = runCli({QStringLiteral("stats"), m_file + QStringLiteral(":plain"), QStringLiteral("--json")});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QJsonObject o = jsonOf(r);
    const QJsonArray devices = o[QStringLiteral("devices")].toArray();
    QCOMPARE(devices.size(), 1);
    const QJsonObject d = devices[0].toObject();
    QCOMPARE(d[QStringLiteral("name")].toString(), QStringLiteral("GPU 0"));
    const qint64 busy = d[QStringLiteral("busy_ns")].toInteger(), idle = d[QStringLiteral("idle_ns")].toInteger(),
                 span = d[QStringLiteral("span_ns")].toInteger();
    QCOMPARE(busy + idle, span);
    // The README's busy (547,303 us) and span (1,222,818 us) are of the kernels; busy and span
    // count the memcpys and memsets too (docs/definitions.md): 547,656 us of 1,222,847 us (the
    // union of every GPU activity of `wheretime export --format csv`, and HTA's temporal
    // breakdown with include_last_profiler_step).
    QCOMPARE(busy, qint64(547656000));
    QCOMPARE(span, qint64(1222847000));
    QCOMPARE(d[QStringLiteral("compute_ns")].toInteger() + d[QStringLiteral("non_compute_ns")].toInteger(), busy);
    const qint64 comm = d[QStringLiteral("comm_ns")].toInteger(), overlap = d[QStringLiteral("comm_overlap_ns")].toInteger();
    QVERIFY(comm > 0 && comm <= qint64(396200e3));
    QVERIFY(overlap > 0 && overlap < comm);
    const QJsonArray steps = o[QStringLiteral("steps")].toArray();
    QCOMPARE(steps.size(), 2);
    QCOMPARE(steps[0].toObject()[QStringLiteral("name")].toString(), QStringLiteral("ProfilerStep#551"));
    QCOMPARE(steps[1].toObject()[QStringLiteral("name")].toString(), QStringLiteral("ProfilerStep#552"));
    // Step times count from the run's time 0, as the CSV export's: the first step starts with the
    // run's first kernel, the first kernel row of the export.
    {
        auto csv = runCli({QStringLiteral("sql"), m_file, QStringLiteral("SELECT min(start_ns) FROM kernels WHERE run_id = "
                                                                         "(SELECT id FROM runs WHERE name = 'plain')"), QStringLiteral("--csv")});
        QVERIFY2(csv.exitCode == 0, qPrintable(csv.err));
        const qint64 firstKernel = csv.out.split(QLatin1Char('\n')).value(1).toLongLong();
        QVERIFY(firstKernel > 0);   // the trace's earliest event (a CPU op) comes before the first kernel
        QCOMPARE(steps[0].toObject()[QStringLiteral("start_ns")].toInteger(), firstKernel);
    }
    for (const auto& v : steps) {
        const QJsonObject s = v.toObject();
        QVERIFY(s[QStringLiteral("end_ns")].toInteger() > s[QStringLiteral("start_ns")].toInteger());
        // Busy counts memory operations (not in kernel time): compute + non-compute = busy.
        QCOMPARE(s[QStringLiteral("compute_ns")].toInteger() + s[QStringLiteral("non_compute_ns")].toInteger(),
                 s[QStringLiteral("busy_ns")].toInteger());
        QVERIFY(s[QStringLiteral("kernel_time_ns")].toInteger() >= s[QStringLiteral("compute_ns")].toInteger());
    }
    // A step's kernels read back through --range give the same kernel time (the same clock).
    const QJsonObject s0 = steps[0].toObject();
    auto ranged = runCli({QStringLiteral("stats"), m_file + QStringLiteral(":plain"), QStringLiteral("--json"), QStringLiteral("--range"),
                          QStringLiteral("%1:%2").arg(s0[QStringLiteral("start_ns")].toInteger()).arg(s0[QStringLiteral("end_ns")].toInteger())});
    QVERIFY2(ranged.exitCode == 0, qPrintable(ranged.err));
    QVERIFY(jsonOf(ranged)[QStringLiteral("total_ns")].toInteger() >= s0[QStringLiteral("kernel_time_ns")].toInteger());
}

void TestCliAnalysis::categories()
{
    NEED_TRACE();
    auto plain = runCli({QStringLiteral("stats"), m_file + QStringLiteral(":plain"), QStringLiteral("--group-by"), QStringLiteral("category"),
                         QStringLiteral("--json")});
    QVERIFY2(plain.exitCode == 0, qPrintable(plain.err));
    const QJsonObject comm = groupNamed(jsonOf(plain), QStringLiteral("communication"));
    QCOMPARE(comm[QStringLiteral("count")].toInteger(), qint64(10));
    QVERIFY(std::abs(double(comm[QStringLiteral("time_ns")].toInteger()) - 396199e3) <= 1e3);
    // The run imported with a rules file keeps it.
    auto set = runCli({QStringLiteral("stats"), m_file + QStringLiteral(":set"), QStringLiteral("--group-by"), QStringLiteral("category"),
                       QStringLiteral("--json")});
    QVERIFY2(set.exitCode == 0, qPrintable(set.err));
    QCOMPARE(groupNamed(jsonOf(set), QStringLiteral("point-to-point"))[QStringLiteral("count")].toInteger(), qint64(10));
    QVERIFY(groupNamed(jsonOf(set), QStringLiteral("communication")).isEmpty());
    // stats --categories replaces the stored rules for one command.
    const QString other = QString::fromStdString(test::tempPath("other-rules.txt"));
    QFile f(other);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("xmma|gemm|sgemm -> matmul\n");
    f.close();
    auto over = runCli({QStringLiteral("stats"), m_file + QStringLiteral(":set"), QStringLiteral("--group-by"), QStringLiteral("category"),
                        QStringLiteral("--json"), QStringLiteral("--categories"), other});
    QVERIFY2(over.exitCode == 0, qPrintable(over.err));
    // The xmma/sgemm kernels move to the new category; the rest of gemm (cutlass, bmm...) stays.
    const qint64 matmul = groupNamed(jsonOf(over), QStringLiteral("matmul"))[QStringLiteral("count")].toInteger();
    const qint64 gemmBefore = groupNamed(jsonOf(set), QStringLiteral("gemm"))[QStringLiteral("count")].toInteger();
    const qint64 gemmAfter = groupNamed(jsonOf(over), QStringLiteral("gemm"))[QStringLiteral("count")].toInteger();
    QVERIFY(matmul > 0);
    QCOMPARE(matmul + gemmAfter, gemmBefore);
    QCOMPARE(groupNamed(jsonOf(over), QStringLiteral("communication"))[QStringLiteral("count")].toInteger(), qint64(10));
    // compare by category: the same categories matched across the two runs.
    auto cmp = runCli({QStringLiteral("compare"), m_file + QStringLiteral(":plain"), m_file + QStringLiteral(":set"),
                       QStringLiteral("--group-by"), QStringLiteral("category"), QStringLiteral("--json")});
    QVERIFY2(cmp.exitCode == 0, qPrintable(cmp.err));
    bool sawGemmInBoth = false, sawP2pInOne = false;
    for (const auto& v : jsonOf(cmp)[QStringLiteral("groups")].toArray()) {
        const QJsonObject g = v.toObject();
        const QJsonValue ns1 = g[QStringLiteral("ns_1")], ns2 = g[QStringLiteral("ns_2")];   // BASE, OTHER
        if (g[QStringLiteral("path")].toString() == QStringLiteral("gemm"))
            sawGemmInBoth = !ns1.isNull() && !ns2.isNull() && ns1.toDouble() == ns2.toDouble();
        if (g[QStringLiteral("path")].toString() == QStringLiteral("point-to-point"))
            sawP2pInOne = ns1.isNull() && !ns2.isNull();
    }
    QVERIFY(sawGemmInBoth);
    QVERIFY(sawP2pInOne);
}

void TestCliAnalysis::namesFullOrElided()
{
    NEED_TRACE();
    const QString full = QStringLiteral("autograd::engine::evaluate_function: torch::autograd::AccumulateGrad");
    auto text = runCli({QStringLiteral("stats"), m_file + QStringLiteral(":plain")});
    QVERIFY2(text.exitCode == 0, qPrintable(text.err));
    QVERIFY(text.out.contains(full));
    auto narrow = runCli({QStringLiteral("stats"), m_file + QStringLiteral(":plain"), QStringLiteral("--width"), QStringLiteral("40")});
    QVERIFY2(narrow.exitCode == 0, qPrintable(narrow.err));
    QVERIFY(!narrow.out.contains(full));
    // The short name (docs/names.md): the autograd engine's prefix goes, the op stays.
    QVERIFY(narrow.out.contains(QStringLiteral("torch::autograd::AccumulateGrad ")));
    // Every table row: a name column of 40 characters, then the time.
    const QStringList lines = narrow.out.split(QLatin1Char('\n'));
    const qsizetype header = lines.indexOf(QRegularExpression(QStringLiteral("layer\\s+time.*")));
    QVERIFY(header > 0);
    for (qsizetype i = header + 1; i < lines.size(); ++i)
        if (!lines[i].isEmpty())
            QVERIFY2(lines[i].at(40) == QLatin1Char(' '), qPrintable(lines[i]));

    // On a terminal (script(1) gives the CLI a pty) text tables default to 60-character names;
    // --width 0 there, and a pipe (above), keep full names.
    const QString script = QStandardPaths::findExecutable(QStringLiteral("script"));
    if (script.isEmpty())
        QSKIP("no script(1) to run the CLI on a terminal");
    auto onTerminal = [&](const QString& extra) {
        QProcess p;
        const QString command = QStringLiteral("'%1' stats '%2:plain' --group-by kernel %3")
                                    .arg(qEnvironmentVariable("WHERETIME_CLI"), m_file, extra);
        p.start(script, {QStringLiteral("-qec"), command, QStringLiteral("/dev/null")});
        p.waitForFinished(120000);
        return QString::fromUtf8(p.readAllStandardOutput()).remove(QLatin1Char('\r'));
    };
    constexpr qsizetype kTerminal = 60;   // app/cli/commonoptions.h, kTerminalNameWidth
    const QString tty = onTerminal(QString());
    const QStringList rows = tty.split(QLatin1Char('\n'));
    const qsizetype head = rows.indexOf(QRegularExpression(QStringLiteral("kernel\\s+time.*")));
    QVERIFY2(head > 0, qPrintable(tty));
    int rowsSeen = 0;
    for (qsizetype i = head + 1; i < rows.size(); ++i)
        if (!rows[i].isEmpty()) {
            QVERIFY2(rows[i].at(kTerminal) == QLatin1Char(' '), qPrintable(rows[i]));
            ++rowsSeen;
        }
    QVERIFY(rowsSeen > 3);
    const QString wide = onTerminal(QStringLiteral("--width 0"));
    const QString pipe = runCli({QStringLiteral("stats"), m_file + QStringLiteral(":plain"), QStringLiteral("--group-by"), QStringLiteral("kernel")}).out;
    QCOMPARE(wide, pipe);   // full names, as through a pipe
    QVERIFY(wide.size() > tty.size());
}

void TestCliAnalysis::layerDepth()
{
    NEED_TRACE();
    auto one = runCli({QStringLiteral("stats"), m_file + QStringLiteral(":plain"), QStringLiteral("--json")});
    auto two = runCli({QStringLiteral("stats"), m_file + QStringLiteral(":set"), QStringLiteral("--json")});
    QVERIFY(!groupNamed(jsonOf(one), QStringLiteral("## forward ##")).isEmpty());
    QVERIFY(groupNamed(jsonOf(two), QStringLiteral("## forward ##")).isEmpty());   // --layer-depth 2 stored with the run
    QCOMPARE(jsonOf(one)[QStringLiteral("total_ns")].toInteger(), jsonOf(two)[QStringLiteral("total_ns")].toInteger());
    for (const auto& v : jsonOf(one)[QStringLiteral("groups")].toArray())
        QVERIFY(!v.toObject()[QStringLiteral("path")].toString().startsWith(QStringLiteral("ProfilerStep")));
}

void TestCliAnalysis::badSettings()
{
    NEED_TRACE();
    const QString trace = test::sharedTrace("kineto-hta_2ranks_rank-0.json.gz");
    const QString out = QString::fromStdString(test::tempPath("bad-settings.wt"));
    auto missing = runCli({QStringLiteral("import"), trace, QStringLiteral("-o"), out, QStringLiteral("--categories"),
                           out + QStringLiteral(".none")});
    QCOMPARE(missing.exitCode, 1);
    QVERIFY(missing.err.contains(QStringLiteral("cannot read the category rules file")));
    QVERIFY(!QFile::exists(out));   // nothing made
    const QString bad = QString::fromStdString(test::tempPath("bad-rules.txt"));
    QFile f(bad);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("gemm -> ok\n(broken -> x\n");
    f.close();
    auto broken = runCli({QStringLiteral("import"), trace, QStringLiteral("-o"), out, QStringLiteral("--categories"), bad});
    QCOMPARE(broken.exitCode, 1);
    QVERIFY2(broken.err.contains(QStringLiteral(":2: bad regular expression")), qPrintable(broken.err));
    QCOMPARE(broken.err.count(QLatin1Char('\n')), 1);
    QVERIFY(!QFile::exists(out));
    auto step = runCli({QStringLiteral("import"), trace, QStringLiteral("-o"), out, QStringLiteral("--step"), QStringLiteral("step(")});
    QCOMPARE(step.exitCode, 2);
    QVERIFY(step.err.contains(QStringLiteral("not a valid regular expression")));
    auto depth = runCli({QStringLiteral("import"), trace, QStringLiteral("-o"), out, QStringLiteral("--layer-depth"), QStringLiteral("0")});
    QCOMPARE(depth.exitCode, 2);
    QVERIFY(!QFile::exists(out));
    QCOMPARE(runCli({QStringLiteral("stats"), m_file, QStringLiteral("--width"), QStringLiteral("-1")}).exitCode, 2);
}

void TestCliAnalysis::groupByEchoed()
{
    // JSON answers the question asked: for every --group-by, group_by echoes it and the groups
    // are its groups (before, --group-by step said "layer" and listed the layers).
    NEED_TRACE();
    for (const char* by : {"layer", "scope", "phase", "op", "kernel", "kind", "category", "step", "device"}) {
        auto r = runCli({QStringLiteral("stats"), m_file + QStringLiteral(":plain"), QStringLiteral("--group-by"),
                         QString::fromLatin1(by), QStringLiteral("--json")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QJsonObject o = jsonOf(r);
        QCOMPARE(o[QStringLiteral("group_by")].toString(), QString::fromLatin1(by));
        const QJsonArray groups = o[QStringLiteral("groups")].toArray();
        QVERIFY2(!groups.isEmpty(), by);
        if (QByteArray(by) == "step") {
            // The steps, as the CSV lists them (one row each, same names, same order).
            auto csv = runCli({QStringLiteral("stats"), m_file + QStringLiteral(":plain"), QStringLiteral("--group-by"),
                               QStringLiteral("step"), QStringLiteral("--csv")});
            QStringList rows = csv.out.trimmed().split(QLatin1Char('\n'));
            rows.removeFirst();
            QCOMPARE(groups.size(), rows.size());
            for (qsizetype i = 0; i < groups.size(); ++i) {
                QVERIFY(rows[i].startsWith(groups[i].toObject()[QStringLiteral("name")].toString() + QLatin1Char(',')));
                QCOMPARE(groups[i].toObject()[QStringLiteral("index")].toInteger(), qint64(i));
                QVERIFY(groups[i].toObject().contains(QStringLiteral("busy_ns")));
            }
            const QJsonArray steps = o[QStringLiteral("steps")].toArray();   // the same steps as "steps"
            QCOMPARE(steps.size(), groups.size());
            for (qsizetype i = 0; i < steps.size(); ++i)
                QCOMPARE(steps[i].toObject()[QStringLiteral("start_ns")], groups[i].toObject()[QStringLiteral("start_ns")]);
        }
        if (QByteArray(by) == "kernel") {
            // Kernel names, not layer paths: the groups' names are the CSV's kernel names.
            auto csv = runCli({QStringLiteral("stats"), m_file + QStringLiteral(":plain"), QStringLiteral("--group-by"),
                               QStringLiteral("kernel"), QStringLiteral("--csv")});
            QCOMPARE(groups.size() + 1, csv.out.trimmed().split(QLatin1Char('\n')).size());
        }
    }
    for (const char* by : {"layer", "scope", "phase", "op", "kernel", "kind", "category"}) {
        auto r = runCli({QStringLiteral("compare"), m_file + QStringLiteral(":plain"), m_file + QStringLiteral(":set"),
                         QStringLiteral("--group-by"), QString::fromLatin1(by), QStringLiteral("--json")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(jsonOf(r)[QStringLiteral("group_by")].toString(), QString::fromLatin1(by));
    }
}

QTEST_GUILESS_MAIN(TestCliAnalysis)
#include "tst_clianalysis.moc"
