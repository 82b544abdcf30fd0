// analysis/jobsummary: the rank of a file name (data-driven), the straggler rule against its
// formula worked by hand (median, MAD, the 1% floor, fewer than 3 ranks), the job's file list
// (natural order, .wt only, hidden files skipped) and openJob's order and duplicate notes.
#include "analysis/jobsummary.h"
#include "analysis/jobtable.h"
#include "storage/database.h"
#include "storage/writer.h"
#include "tests/support/synthrun.h"
#include "tests/support/testsupport.h"

#include <QDir>
#include <QFile>
#include <QTest>

#include <cmath>

using namespace wt;

namespace {

RankSummary rankWithMedian(int64_t rank, double medianNs)
{
    RankSummary r;
    r.rank = rank;
    r.file = "rank-" + std::to_string(rank) + ".wt";
    r.step.n = 5;
    r.step.median = medianNs;
    r.step.mean = medianNs;
    return r;
}

void touch(const QString& path)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
}

}  // namespace

class TestJobSummary : public QObject {
    Q_OBJECT
private slots:
    void rankFromName_data();
    void rankFromName();
    void stragglerRule();
    void stragglerFloorAndFewRanks();
    void filesInNaturalOrder();
    void openJobSortsAndNotesDuplicates();
};

void TestJobSummary::rankFromName_data()
{
    QTest::addColumn<QString>("path");
    QTest::addColumn<int>("rank");   // -1: none
    QTest::newRow("rank-N") << "job/rank-12.wt" << 12;
    QTest::newRow("underscore, case") << "/x/Trace_RANK_3.wt" << 3;
    QTest::newRow("import of a .json.gz") << "rank-7.json.wt" << 7;
    QTest::newRow("dot before rank") << "trace.rank5.wt" << 5;
    QTest::newRow("rank-R-of-N") << "kineto_a100_nccl_rank-0-of-2.wt" << 0;
    QTest::newRow("rankless digits") << "worker-42.json.wt" << 42;
    QTest::newRow("digits after the first dot only") << "trace.pt.trace.json.wt" << -1;
    QTest::newRow("no digits") << "a.wt" << -1;
    QTest::newRow("word rank without digits, then digits") << "ranking-9.wt" << 9;
    QTest::newRow("too many digits") << "rank-12345678901.wt" << -1;
}

void TestJobSummary::rankFromName()
{
    QFETCH(QString, path);
    QFETCH(int, rank);
    const std::optional<int64_t> got = rankFromFileName(path.toStdString());
    QCOMPARE(got ? int(*got) : -1, rank);
}

void TestJobSummary::stragglerRule()
{
    // Medians 100, 101, 99, 102, 98, 150 (ms): M = 100.5, |m - M| = 0.5, 0.5, 1.5, 1.5, 2.5, 49.5
    // -> MAD = 1.5; threshold = 100.5 + max(3 x 1.4826 x 1.5, 1.005) = 107.1717.
    std::vector<RankSummary> ranks;
    const double ms[] = {100, 101, 99, 102, 98, 150};
    for (int i = 0; i < 6; ++i)
        ranks.push_back(rankWithMedian(i, ms[i] * 1e6));
    RankSummary none;   // a rank without steps: not counted, never a straggler
    none.rank = 6;
    ranks.push_back(none);
    const StragglerRule rule = markStragglers(ranks, 3);
    QCOMPARE(rule.ranks, size_t(6));
    QCOMPARE(rule.medianNs, 100.5e6);
    QCOMPARE(rule.madNs, 1.5e6);
    QVERIFY(std::fabs(rule.thresholdNs - (100.5e6 + 3 * 1.4826 * 1.5e6)) < 1);
    for (int i = 0; i < 7; ++i)
        QCOMPARE(ranks[i].straggler, i == 5);
    QVERIFY(std::fabs(ranks[5].vsMedian - 150.0 / 100.5) < 1e-12);
    QCOMPARE(ranks[6].vsMedian, 0.0);
    // K = 40: 100.5 + 88.96 > 150, no straggler.
    markStragglers(ranks, 40);
    for (const RankSummary& r : ranks)
        QVERIFY(!r.straggler);
}

void TestJobSummary::stragglerFloorAndFewRanks()
{
    // Identical ranks and one 0.5% slower: MAD 0, the 1% floor keeps it in; 2% is out.
    std::vector<RankSummary> ranks;
    for (int i = 0; i < 4; ++i)
        ranks.push_back(rankWithMedian(i, 10e6));
    ranks.push_back(rankWithMedian(4, 10.05e6));
    ranks.push_back(rankWithMedian(5, 10.2e6));
    const StragglerRule rule = markStragglers(ranks, 3);
    QCOMPARE(rule.madNs, 0.0);
    QCOMPARE(rule.thresholdNs, 10e6 * 1.01);
    QVERIFY(!ranks[4].straggler);
    QVERIFY(ranks[5].straggler);
    // Two ranks: no rule.
    std::vector<RankSummary> two{rankWithMedian(0, 10e6), rankWithMedian(1, 30e6)};
    const StragglerRule r2 = markStragglers(two, 3);
    QCOMPARE(r2.ranks, size_t(2));
    QCOMPARE(r2.thresholdNs, 0.0);
    QVERIFY(!two[0].straggler && !two[1].straggler);
}

void TestJobSummary::filesInNaturalOrder()
{
    const QString dir = QString::fromStdString(test::tempPath("jobsummary-files"));
    QVERIFY(QDir().mkpath(dir + QStringLiteral("/sub.wt")));   // a directory: not a file
    for (const char* n : {"rank-10.wt", "rank-2.wt", "rank-1.wt", "rank-02b.wt", ".rank-3.wt", "rank-4.wt.part", "notes.txt"})
        touch(dir + QLatin1Char('/') + QLatin1String(n));
    const std::vector<std::string> files = jobFiles(dir.toStdString());
    std::vector<std::string> names;
    for (const std::string& f : files)
        names.push_back(f.substr(f.find_last_of('/') + 1));
    const std::vector<std::string> want{"rank-1.wt", "rank-2.wt", "rank-02b.wt", "rank-10.wt"};
    QCOMPARE(names, want);
    QVERIFY_THROWS_EXCEPTION(std::runtime_error, jobFiles((dir + QStringLiteral("/missing")).toStdString()));
}

void TestJobSummary::openJobSortsAndNotesDuplicates()
{
    const QString dir = QString::fromStdString(test::tempPath("jobsummary-open"));
    QVERIFY(QDir().mkpath(dir));
    auto write = [&](const QString& name, uint64_t seed, const std::string& distributedInfo) {
        Database db((dir + QLatin1Char('/') + name).toStdString(), OpenMode::ReadWrite);
        Writer w(db);
        synth::Options o;
        o.kernels = 272 * 3;
        o.streams = 1;
        o.seed = seed;
        if (!distributedInfo.empty())
            o.metadata = {{"kineto.distributedInfo", distributedInfo}};
        synth::generate(w, o);
    };
    write(QStringLiteral("rank-5.wt"), 1, "");
    write(QStringLiteral("b.wt"), 2, "{\"rank\": 1, \"world_size\": 8}");   // metadata wins over the name
    write(QStringLiteral("zz.wt"), 3, "");                                 // no rank at all
    write(QStringLiteral("rank-1.wt"), 4, "");                             // rank 1 again
    touch(dir + QStringLiteral("/broken.wt"));
    const JobSummary job = openJob(jobFiles(dir.toStdString()), 2);
    QCOMPARE(job.ranks.size(), size_t(4));
    QCOMPARE(job.failures.size(), size_t(1));
    QVERIFY(job.failures[0].file.find("broken.wt") != std::string::npos);
    QVERIFY2(job.failures[0].error.rfind(job.failures[0].file, 0) == 0, job.failures[0].error.c_str());
    // Ranks 1, 1, 5, then the unnumbered one.
    QCOMPARE(job.ranks[0].rank, int64_t(1));
    QCOMPARE(job.ranks[1].rank, int64_t(1));
    QCOMPARE(job.ranks[2].rank, int64_t(5));
    QCOMPARE(job.ranks[3].rank, int64_t(-1));
    QCOMPARE(rankLabel(job.ranks[3]), std::string("zz.wt"));
    QVERIFY(job.ranks[2].rankSource == RankSource::FileName);
    QVERIFY(job.ranks[3].rankSource == RankSource::None);
    const bool metadataFirst = job.ranks[0].rankSource == RankSource::DistributedInfo || job.ranks[1].rankSource == RankSource::DistributedInfo;
    QVERIFY(metadataFirst);
    QCOMPARE(job.duplicates.size(), size_t(1));
    QVERIFY2(job.duplicates[0].find("rank 1 is in 2 files") == 0, job.duplicates[0].c_str());
    for (const RankSummary& r : job.ranks) {
        QCOMPARE(r.stepKernelNs.size(), size_t(3));
        QVERIFY(r.stepsStored);
        QVERIFY(!r.layers.empty());
    }
    // The ranks table: a row per rank, the duplicate as a note.
    const Table t = jobRanksTable(job);
    QCOMPARE(t.rows.size(), size_t(4));
    bool duplicateNote = false;
    for (const std::string& n : t.notes)
        duplicateNote |= n.find("rank 1 is in 2 files") != std::string::npos;
    QVERIFY(duplicateNote);
}

QTEST_GUILESS_MAIN(TestJobSummary)
#include "tst_jobsummary.moc"
