// `wheretime job DIR`: a directory of rank files (synthetic runs written through the Writer, and
// the shared HTA pair imported one file per rank) opened as one job. Per rank its steps, kernel
// time, step mean and median and a layer's time equal what `wheretime stats` says of the file;
// the slower rank is the one straggler; damaged files (truncated, not SQLite, a newer schema,
// empty) are named in one line each and the rest opens; an empty directory is an error;
// --rank N prints stats' own bytes.
#include "tests/support/synthrun.h"
#include "storage/database.h"
#include "storage/writer.h"
#include "tests/support/testsupport.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <sqlite3.h>

using namespace wt;
using test::runCli;

namespace {

// Steps of the synthetic workload: 272 kernels each (forward 129, backward 129, update 14).
constexpr int64_t kKernelsPerStep = 272;

void writeRank(const QString& path, uint64_t seed, double scale, int steps = 9)
{
    Database db(path.toStdString(), OpenMode::ReadWrite);
    Writer w(db);
    synth::Options o;
    o.kernels = kKernelsPerStep * steps;
    o.streams = 2;
    o.seed = seed;
    o.durationScale = scale;
    o.name = "rank seed " + std::to_string(seed);
    synth::generate(w, o);
}

bool near(double a, double b)
{
    return std::fabs(a - b) <= 1e-9 * std::max(1.0, std::fabs(b));
}

double medianOf(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Compares one rank row of `job --json` (with --layer) with `stats FILE --json`.
void compareWithStats(const QJsonObject& row, const QString& file, const QString& layer)
{
    const auto stats = runCli({QStringLiteral("stats"), file, QStringLiteral("--json")});
    QVERIFY2(stats.exitCode == 0, qPrintable(stats.err));
    const QJsonObject s = test::jsonObject(stats.out);
    QCOMPARE(row.value(QStringLiteral("kernels")).toDouble(), s.value(QStringLiteral("kernels")).toDouble());
    QCOMPARE(row.value(QStringLiteral("kernel_time_ns")).toDouble(), s.value(QStringLiteral("kernel_time_ns")).toDouble());
    const QJsonArray steps = s.value(QStringLiteral("steps")).toArray();
    QCOMPARE(row.value(QStringLiteral("steps")).toInt(), int(steps.size()));
    QVERIFY(!steps.isEmpty());
    std::vector<double> times;
    double sum = 0;
    for (const QJsonValue& st : steps) {
        times.push_back(st.toObject().value(QStringLiteral("kernel_time_ns")).toDouble());
        sum += times.back();
    }
    QVERIFY2(near(row.value(QStringLiteral("step_mean_ns")).toDouble(), sum / double(times.size())), qPrintable(file));
    QVERIFY2(near(row.value(QStringLiteral("step_median_ns")).toDouble(), medianOf(times)), qPrintable(file));
    double layerNs = -1;
    for (const QJsonValue& g : s.value(QStringLiteral("groups")).toArray())
        if (g.toObject().value(QStringLiteral("name")).toString() == layer)
            layerNs = g.toObject().value(QStringLiteral("time_ns")).toDouble();
    QVERIFY2(layerNs > 0, qPrintable(layer));
    QCOMPARE(row.value(QStringLiteral("layer_ns")).toDouble(), layerNs);
}

QStringList stderrLines(const QString& err)
{
    QStringList out;
    for (const QString& l : err.split(QLatin1Char('\n')))
        if (!l.trimmed().isEmpty())
            out << l;
    return out;
}

}  // namespace

class TestCliJob : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void ranksEqualStats();
    void slowRankIsTheStraggler();
    void damagedRanksLeftOut();
    void emptyDirectoryFails();
    void rankDetailIsStats();
    void usageErrors();
    void rankWithoutStoredStepTotals();
    void htaPairRanksFromDistributedInfo();

private:
    QString m_dir;
};

void TestCliJob::initTestCase()
{
    m_dir = QString::fromStdString(test::tempPath("job-ranks"));
    QVERIFY(QDir().mkpath(m_dir));
    // Five ranks of one job: four alike (seeds 1-4), rank 3 a third slower.
    for (int r = 0; r < 5; ++r)
        writeRank(m_dir + QStringLiteral("/rank-%1.wt").arg(r), uint64_t(r + 1), r == 3 ? 1.35 : 1.0);
}

void TestCliJob::ranksEqualStats()
{
    const QString layer = QStringLiteral("decoder.3");
    const auto job = runCli({QStringLiteral("job"), m_dir, QStringLiteral("--json"), QStringLiteral("--layer"), layer});
    QVERIFY2(job.exitCode == 0, qPrintable(job.err));
    QVERIFY2(job.err.isEmpty(), qPrintable(job.err));
    const QJsonObject j = test::jsonObject(job.out);
    QCOMPARE(j.value(QStringLiteral("files")).toInt(), 5);
    const QJsonArray ranks = j.value(QStringLiteral("ranks")).toArray();
    QCOMPARE(ranks.size(), 5);
    for (int r = 0; r < 5; ++r) {
        const QJsonObject row = ranks[r].toObject();
        QCOMPARE(row.value(QStringLiteral("rank")).toInt(), r);   // from the file name, in rank order
        QCOMPARE(row.value(QStringLiteral("rank_source")).toString(), QStringLiteral("file name"));
        QCOMPARE(row.value(QStringLiteral("steps")).toInt(), 9);
        compareWithStats(row, m_dir + QStringLiteral("/rank-%1.wt").arg(r), layer);
    }
    // The layers table: every layer of every rank, min <= median <= max.
    const QJsonArray layers = j.value(QStringLiteral("layers")).toArray();
    QVERIFY(layers.size() >= 14);
    for (const QJsonValue& v : layers) {
        const QJsonObject l = v.toObject();
        QCOMPARE(l.value(QStringLiteral("ranks")).toInt(), 5);
        QVERIFY(l.value(QStringLiteral("min_ns")).toDouble() <= l.value(QStringLiteral("median_ns")).toDouble());
        QVERIFY(l.value(QStringLiteral("median_ns")).toDouble() <= l.value(QStringLiteral("max_ns")).toDouble());
    }
    // CSV: the same ranks table, one row per rank.
    const auto csv = runCli({QStringLiteral("job"), m_dir, QStringLiteral("--csv")});
    QCOMPARE(csv.exitCode, 0);
    const QStringList lines = csv.out.trimmed().split(QLatin1Char('\n'));
    QCOMPARE(lines.size(), 6);
    QVERIFY2(lines[0].startsWith(QStringLiteral("rank,file,run_id,run,rank_source,steps,kernels,kernel_time_ns,step_mean_ns")),
             qPrintable(lines[0]));
}

void TestCliJob::slowRankIsTheStraggler()
{
    const auto job = runCli({QStringLiteral("job"), m_dir, QStringLiteral("--json")});
    QCOMPARE(job.exitCode, 0);
    const QJsonObject j = test::jsonObject(job.out);
    QCOMPARE(j.value(QStringLiteral("stragglers")).toArray(), QJsonArray{3});
    const QJsonArray ranks = j.value(QStringLiteral("ranks")).toArray();
    for (const QJsonValue& v : ranks) {
        const QJsonObject row = v.toObject();
        const bool slow = row.value(QStringLiteral("rank")).toInt() == 3;
        QCOMPARE(row.value(QStringLiteral("straggler")).toInt(), slow ? 1 : 0);
        if (slow)
            QVERIFY(row.value(QStringLiteral("vs_median")).toDouble() > 1.25);
    }
    const QJsonObject rule = j.value(QStringLiteral("straggler_rule")).toObject();
    QCOMPARE(rule.value(QStringLiteral("ranks")).toInt(), 5);
    // The threshold as documented: median + max(k x 1.4826 x MAD, 1% of the median).
    const double median = rule.value(QStringLiteral("median_ns")).toDouble(), mad = rule.value(QStringLiteral("mad_ns")).toDouble();
    QVERIFY(near(rule.value(QStringLiteral("threshold_ns")).toDouble(), median + std::max(3 * 1.4826 * mad, 0.01 * median)));
    // The text names it in a note.
    const auto text = runCli({QStringLiteral("job"), m_dir});
    QCOMPARE(text.exitCode, 0);
    QVERIFY2(text.out.contains(QStringLiteral("stragglers (1): rank 3")), qPrintable(text.out));
    // A much larger K: no straggler.
    const auto lax = runCli({QStringLiteral("job"), m_dir, QStringLiteral("--mads"), QStringLiteral("1000"), QStringLiteral("--json")});
    QCOMPARE(lax.exitCode, 0);
    QVERIFY(test::jsonObject(lax.out).value(QStringLiteral("stragglers")).toArray().isEmpty());
}

void TestCliJob::damagedRanksLeftOut()
{
    const QString dir = QString::fromStdString(test::tempPath("job-damaged"));
    QVERIFY(QDir().mkpath(dir));
    for (int r = 0; r < 3; ++r)
        QVERIFY(QFile::copy(m_dir + QStringLiteral("/rank-%1.wt").arg(r), dir + QStringLiteral("/rank-%1.wt").arg(r)));
    // Truncated to its first page: the header reads, the tables do not.
    {
        const QByteArray bytes = test::fileBytes(m_dir + QStringLiteral("/rank-3.wt"));
        QVERIFY(bytes.size() > 8192);
        QFile f(dir + QStringLiteral("/rank-3.wt"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(bytes.left(4096));
    }
    {
        QFile f(dir + QStringLiteral("/rank-4.wt"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("this is no database\n");
    }
    QFile(dir + QStringLiteral("/rank-5.wt")).open(QIODevice::WriteOnly);   // empty
    // A newer schema than this build reads.
    const QString newer = dir + QStringLiteral("/rank-6.wt");
    QVERIFY(QFile::copy(m_dir + QStringLiteral("/rank-4.wt"), newer));
    QFile::setPermissions(newer, QFile::ReadOwner | QFile::WriteOwner);
    {
        sqlite3* db = nullptr;
        QCOMPARE(sqlite3_open(newer.toUtf8().constData(), &db), SQLITE_OK);
        QCOMPARE(sqlite3_exec(db, "PRAGMA user_version=99", nullptr, nullptr, nullptr), SQLITE_OK);
        sqlite3_close(db);
    }
    QFile(dir + QStringLiteral("/notes.txt")).open(QIODevice::WriteOnly);   // not a .wt: not looked at

    const auto job = runCli({QStringLiteral("job"), dir, QStringLiteral("--json")});
    QVERIFY2(job.exitCode == 0, qPrintable(job.err));
    const QStringList err = stderrLines(job.err);
    QCOMPARE(err.size(), 4);
    for (int r = 3; r <= 6; ++r) {
        const QString name = QStringLiteral("rank-%1.wt").arg(r);
        const auto hit = std::count_if(err.begin(), err.end(), [&](const QString& l) { return l.contains(name); });
        QVERIFY2(hit == 1, qPrintable(name + QStringLiteral(": ") + job.err));
    }
    for (const QString& l : err)
        QVERIFY2(l.startsWith(QStringLiteral("wheretime job: left out: ")), qPrintable(l));
    QVERIFY2(job.err.contains(QStringLiteral("newer")), qPrintable(job.err));
    const QJsonObject j = test::jsonObject(job.out);
    QCOMPARE(j.value(QStringLiteral("files")).toInt(), 7);
    QCOMPARE(j.value(QStringLiteral("ranks")).toArray().size(), 3);
    QCOMPARE(j.value(QStringLiteral("left_out")).toArray().size(), 4);
    // The text says how many are out; --strict turns them into exit 1 (the table still prints).
    const auto text = runCli({QStringLiteral("job"), dir});
    QCOMPARE(text.exitCode, 0);
    QVERIFY2(text.out.contains(QStringLiteral("job of 3 ranks (7 files, 4 left out)")), qPrintable(text.out));
    const auto strict = runCli({QStringLiteral("job"), dir, QStringLiteral("--strict")});
    QCOMPARE(strict.exitCode, 1);
    QVERIFY(strict.out.contains(QStringLiteral("rank-2.wt")));
    // Only damaged files: one line each, then the error, exit 1.
    const QString bad = QString::fromStdString(test::tempPath("job-all-bad"));
    QVERIFY(QDir().mkpath(bad));
    QVERIFY(QFile::copy(dir + QStringLiteral("/rank-4.wt"), bad + QStringLiteral("/rank-0.wt")));
    const auto none = runCli({QStringLiteral("job"), bad});
    QCOMPARE(none.exitCode, 1);
    QVERIFY2(none.err.contains(QStringLiteral("none of the 1 file(s) could be read")), qPrintable(none.err));
}

void TestCliJob::emptyDirectoryFails()
{
    const QString dir = QString::fromStdString(test::tempPath("job-empty"));
    QVERIFY(QDir().mkpath(dir));
    auto r = runCli({QStringLiteral("job"), dir});
    QCOMPARE(r.exitCode, 1);
    QCOMPARE(stderrLines(r.err).size(), 1);
    QVERIFY2(r.err.contains(QStringLiteral("no .wt files")), qPrintable(r.err));
    QVERIFY(r.out.isEmpty());
    // Other files only: the same.
    QFile(dir + QStringLiteral("/rank-0.json")).open(QIODevice::WriteOnly);
    r = runCli({QStringLiteral("job"), dir});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains(QStringLiteral("no .wt files")), qPrintable(r.err));
    // No such directory: one line naming it, nothing opens.
    r = runCli({QStringLiteral("job"), dir + QStringLiteral("/missing")});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains(QStringLiteral("/missing: no such directory")), qPrintable(r.err));
}

void TestCliJob::rankDetailIsStats()
{
    const QString file = m_dir + QStringLiteral("/rank-3.wt");
    QString err;
    for (const QStringList& extra : {QStringList{}, QStringList{QStringLiteral("--json")},
                                     QStringList{QStringLiteral("--group-by"), QStringLiteral("step"), QStringLiteral("--csv")}}) {
        const QByteArray viaJob = test::cliBytes(QStringList{QStringLiteral("job"), m_dir, QStringLiteral("--rank"), QStringLiteral("3")} + extra, &err);
        QVERIFY2(!viaJob.isEmpty(), qPrintable(err));
        const QByteArray direct = test::cliBytes(QStringList{QStringLiteral("stats"), file} + extra, &err);
        QVERIFY2(!direct.isEmpty(), qPrintable(err));
        QVERIFY2(viaJob == direct, qPrintable(test::firstDifference(viaJob, direct)));
    }
    const auto missing = runCli({QStringLiteral("job"), m_dir, QStringLiteral("--rank"), QStringLiteral("17")});
    QCOMPARE(missing.exitCode, 1);
    QVERIFY2(missing.err.contains(QStringLiteral("no rank '17'")), qPrintable(missing.err));
}

void TestCliJob::usageErrors()
{
    for (const QStringList& args : {QStringList{QStringLiteral("job")},
                                    QStringList{QStringLiteral("job"), m_dir, QStringLiteral("--mads"), QStringLiteral("0")},
                                    QStringList{QStringLiteral("job"), m_dir, QStringLiteral("--group-by"), QStringLiteral("op")},
                                    QStringList{QStringLiteral("job"), m_dir, QStringLiteral("--json"), QStringLiteral("--csv")},
                                    QStringList{QStringLiteral("job"), m_dir, QStringLiteral("--layers")}}) {
        const auto r = runCli(args);
        QVERIFY2(r.exitCode == 2, qPrintable(args.join(QLatin1Char(' ')) + QStringLiteral(": ") + r.err));
    }
    const auto unknown = runCli({QStringLiteral("job"), m_dir, QStringLiteral("--layer"), QStringLiteral("no-such-layer")});
    QCOMPARE(unknown.exitCode, 1);
    QVERIFY2(unknown.err.contains(QStringLiteral("no rank has a layer 'no-such-layer'")), qPrintable(unknown.err));
}

void TestCliJob::rankWithoutStoredStepTotals()
{
    // A file whose run has no stored step totals (as files migrated from schema 2): its steps are
    // read from the activities, with the same figures, and a note says so.
    const QString dir = QString::fromStdString(test::tempPath("job-unstored"));
    QVERIFY(QDir().mkpath(dir));
    const QString file = dir + QStringLiteral("/rank-0.wt");
    QVERIFY(QFile::copy(m_dir + QStringLiteral("/rank-0.wt"), file));
    QFile::setPermissions(file, QFile::ReadOwner | QFile::WriteOwner);
    {
        sqlite3* db = nullptr;
        QCOMPARE(sqlite3_open(file.toUtf8().constData(), &db), SQLITE_OK);
        QCOMPARE(sqlite3_exec(db, "DELETE FROM step_totals", nullptr, nullptr, nullptr), SQLITE_OK);
        QCOMPARE(sqlite3_changes(db), 1);
        sqlite3_close(db);
    }
    const QString layer = QStringLiteral("softmax");
    const auto job = runCli({QStringLiteral("job"), dir, QStringLiteral("--json"), QStringLiteral("--layer"), layer});
    QVERIFY2(job.exitCode == 0, qPrintable(job.err));
    const QJsonArray ranks = test::jsonObject(job.out).value(QStringLiteral("ranks")).toArray();
    QCOMPARE(ranks.size(), 1);
    QCOMPARE(ranks[0].toObject().value(QStringLiteral("steps")).toInt(), 9);
    compareWithStats(ranks[0].toObject(), file, layer);
    // The same numbers as the stored ones of the original file.
    const auto original = runCli({QStringLiteral("job"), m_dir + QStringLiteral("/rank-0.wt"), QStringLiteral("--json")});
    QCOMPARE(original.exitCode, 0);
    const QJsonObject a = ranks[0].toObject(), b = test::jsonObject(original.out).value(QStringLiteral("ranks")).toArray()[0].toObject();
    for (const char* key : {"step_mean_ns", "step_median_ns", "step_stddev_ns"})
        QCOMPARE(a.value(QLatin1String(key)).toDouble(), b.value(QLatin1String(key)).toDouble());
    const auto text = runCli({QStringLiteral("job"), dir});
    QVERIFY2(text.out.contains(QStringLiteral("1 rank file(s) without stored step totals")), qPrintable(text.out));
}

void TestCliJob::htaPairRanksFromDistributedInfo()
{
    WT_REQUIRE_TRACE(rank0, "kineto-hta_2ranks_rank-0.json.gz");
    WT_REQUIRE_TRACE(rank1, "kineto-hta_2ranks_rank-1.json.gz");
    const QString dir = QString::fromStdString(test::tempPath("job-hta"));
    QVERIFY(QDir().mkpath(dir));
    // Imported one file per rank, as a cluster would; the names say nothing of the ranks.
    const QString a = dir + QStringLiteral("/b.wt"), b = dir + QStringLiteral("/a.wt");
    for (const auto& [in, out] : {std::pair{rank0, a}, std::pair{rank1, b}}) {
        const auto r = runCli({QStringLiteral("import"), in, QStringLiteral("-o"), out});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    }
    const QString layer = QStringLiteral("## forward ##");
    const auto job = runCli({QStringLiteral("job"), dir, QStringLiteral("--json"), QStringLiteral("--layer"), layer});
    QVERIFY2(job.exitCode == 0, qPrintable(job.err));
    const QJsonArray ranks = test::jsonObject(job.out).value(QStringLiteral("ranks")).toArray();
    QCOMPARE(ranks.size(), 2);
    for (int r = 0; r < 2; ++r) {
        const QJsonObject row = ranks[r].toObject();
        QCOMPARE(row.value(QStringLiteral("rank")).toInt(), r);
        QCOMPARE(row.value(QStringLiteral("rank_source")).toString(), QStringLiteral("distributedInfo"));
        QCOMPARE(row.value(QStringLiteral("steps")).toInt(), 2);
        compareWithStats(row, r == 0 ? a : b, layer);
    }
    // Two ranks: too few for the straggler rule, and the table says so.
    const auto text = runCli({QStringLiteral("job"), dir});
    QVERIFY2(text.out.contains(QStringLiteral("stragglers need at least 3 ranks with steps")), qPrintable(text.out));
}

QTEST_GUILESS_MAIN(TestCliJob)
#include "tst_clijob.moc"
