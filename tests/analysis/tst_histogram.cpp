// Histograms of a group's instance durations (analysis/histogram.h): the log bin edges against
// 10^(i/B) computed here, the counts of a tiny CPU capture's groups against a brute-force
// count over its CSV export (`wheretime export --format csv`), n, median, p95, the slowest
// list's order, the per-step counts and the overlay of two runs, the steps' GPU spans against
// the stored step instances, an empty group, near keys.
#include "analysis/compare.h"
#include "analysis/histogram.h"
#include "analysis/histogramtable.h"
#include "analysis/runprofile.h"
#include "storage/database.h"
#include "storage/reader.h"
#include "tests/support/testsupport.h"

#include <QFile>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>

using namespace wt;

namespace {

struct CsvRow {
    int64_t startNs = 0, endNs = 0, durationNs = 0;
    std::string kind, name, path;
};

std::vector<std::string> components(const std::string& path)
{
    std::vector<std::string> out(1);
    for (char c : path)
        if (c == '/')
            out.emplace_back();
        else
            out.back().push_back(c);
    return out;
}

// The sorted durations of the rows a predicate takes.
template <class Pred>
std::vector<int64_t> durationsOf(const std::vector<CsvRow>& rows, Pred&& take)
{
    std::vector<int64_t> d;
    for (const CsvRow& r : rows)
        if (take(r))
            d.push_back(r.durationNs);
    std::sort(d.begin(), d.end());
    return d;
}

// Checks a histogram against the brute-force durations of its group.
void checkAgainst(const Histogram& h, const std::vector<int64_t>& sorted)
{
    QVERIFY(!sorted.empty());
    QCOMPARE(h.count, int64_t(sorted.size()));
    QCOMPARE(h.minNs, sorted.front());
    QCOMPARE(h.maxNs, sorted.back());
    QCOMPARE(h.medianNs, sorted[(sorted.size() - 1) / 2]);
    QCOMPARE(h.p95Ns, sorted[size_t(std::ceil(0.95 * double(sorted.size()))) - 1]);
    int64_t sum = 0;
    for (int64_t v : sorted)
        sum += v;
    QCOMPARE(h.totalNs, sum);
    // Bins: contiguous, each [lo, hi) holding exactly the durations there, every lo an edge of
    // 10^(i/B) rounded up (or 0), the first holding the minimum and the last the maximum.
    QVERIFY(!h.bins.empty());
    int64_t total = 0;
    for (size_t b = 0; b < h.bins.size(); ++b) {
        const HistogramBin& bin = h.bins[b];
        QVERIFY(bin.loNs < bin.hiNs);
        if (b > 0)
            QCOMPARE(bin.loNs, h.bins[b - 1].hiNs);
        const auto brute = std::count_if(sorted.begin(), sorted.end(), [&](int64_t v) { return v >= bin.loNs && v < bin.hiNs; });
        QVERIFY2(bin.count == brute, qPrintable(QStringLiteral("bin [%1, %2): %3, brute force %4").arg(bin.loNs).arg(bin.hiNs).arg(bin.count).arg(brute)));
        total += bin.count;
        if (bin.loNs > 1) {
            const long double e = std::log10((long double)bin.loNs) * h.binsPerDecade;
            const long double prev = std::log10((long double)(bin.loNs - 1)) * h.binsPerDecade;
            // lo is the smallest integer at or above some 10^(i/B): i lies in (prev, e].
            QVERIFY2(std::floor(e + 1e-12L) > prev - 1e-12L, qPrintable(QStringLiteral("lo %1 is no rounded-up edge").arg(bin.loNs)));
        }
    }
    QCOMPARE(total, h.count);
    QVERIFY(h.bins.front().loNs <= h.minNs && h.minNs < h.bins.front().hiNs);
    QVERIFY(h.bins.back().loNs <= h.maxNs && h.maxNs < h.bins.back().hiNs);
    // The slowest: longest first, ties by start, and the longest durations of the group.
    for (size_t k = 0; k < h.slowest.size(); ++k) {
        QCOMPARE(h.slowest[k].durationNs, sorted[sorted.size() - 1 - k]);
        if (k > 0) {
            QVERIFY(h.slowest[k - 1].durationNs >= h.slowest[k].durationNs);
            if (h.slowest[k - 1].durationNs == h.slowest[k].durationNs)
                QVERIFY(h.slowest[k - 1].startNs <= h.slowest[k].startNs);
        }
    }
}

}  // namespace

class TestHistogram : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void edges_data();
    void edges();
    void edgesAgainstPowers();
    void binIndexAgreesWithEdges();
    void zeroDurations();
    void randomAgainstBruteForce();
    void emptyGroup();
    void kernelGroupAgainstCsv();
    void layerGroupAgainstCsv();
    void withinFilter();
    void stepsAgainstStepInstances();
    void scopeInstancesOfLayer();
    void perStepAndOverlay();
    void slowestTable();
    void nearKeys();

private:
    QString m_file;
    std::vector<CsvRow> m_rows;
    std::shared_ptr<const RunProfile> m_profile;
    std::unique_ptr<Database> m_db;
    std::unique_ptr<ActivityColumns> m_columns;
    int64_t m_runId = 0;
    int64_t m_steps = 0;
};

void TestHistogram::initTestCase()
{
    m_file = QString::fromStdString(test::tempPath("tst_histogram.wt"));
    const auto cap = test::runCli({QStringLiteral("capture"), QStringLiteral("--workload"), QStringLiteral("gcn"), QStringLiteral("--preset"),
                                   QStringLiteral("tiny"), QStringLiteral("--backend"), QStringLiteral("cpu"), QStringLiteral("--steps"),
                                   QStringLiteral("3"), QStringLiteral("-o"), m_file});
    QVERIFY2(cap.exitCode == 0, qPrintable(cap.err));
    const QString csv = QString::fromStdString(test::tempPath("tst_histogram.csv"));
    const auto ex = test::runCli({QStringLiteral("export"), m_file, QStringLiteral("--format"), QStringLiteral("csv"), QStringLiteral("-o"), csv});
    QVERIFY2(ex.exitCode == 0, qPrintable(ex.err));
    QFile f(csv);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const std::vector<std::string> header = test::csvFields(f.readLine().trimmed().toStdString());
    auto col = [&](const char* id) { return size_t(std::find(header.begin(), header.end(), id) - header.begin()); };
    const size_t cs = col("start_ns"), ce = col("end_ns"), cd = col("duration_ns"), ck = col("kind"), cn = col("name"), cp = col("scope_path");
    QVERIFY(cp < header.size());
    while (!f.atEnd()) {
        const std::vector<std::string> v = test::csvFields(f.readLine().trimmed().toStdString());
        QVERIFY(v.size() == header.size());
        m_rows.push_back({std::stoll(v[cs]), std::stoll(v[ce]), std::stoll(v[cd]), v[ck], v[cn], v[cp]});
    }
    QVERIFY(m_rows.size() > 100);

    m_db = std::make_unique<Database>(m_file.toStdString(), OpenMode::ReadOnly);
    Reader reader(*m_db);
    m_runId = reader.resolveRun("");
    m_profile = RunProfile::load(reader, m_runId, nullptr);
    m_columns = std::make_unique<ActivityColumns>(ActivityColumns::load(reader, m_runId, m_profile->tree));
    m_steps = countSteps(reader, m_runId, m_profile->tree);
    QCOMPARE(m_steps, int64_t(3));
}

void TestHistogram::edges_data()
{
    QTest::addColumn<int>("i");
    QTest::addColumn<int>("perDecade");
    QTest::addColumn<qint64>("edge");
    QTest::newRow("1 ns") << 0 << 10 << qint64(1);
    QTest::newRow("10^0.1 = 1.26 -> 2") << 1 << 10 << qint64(2);
    QTest::newRow("10^0.5 = 3.16 -> 4") << 5 << 10 << qint64(4);
    QTest::newRow("10 ns") << 10 << 10 << qint64(10);
    QTest::newRow("10^1.1 = 12.59 -> 13") << 11 << 10 << qint64(13);
    QTest::newRow("1 us") << 30 << 10 << qint64(1000);
    QTest::newRow("10^3.1 = 1258.9 -> 1259") << 31 << 10 << qint64(1259);
    QTest::newRow("10^0.2 = 1.585 -> 2 (5/decade)") << 1 << 5 << qint64(2);
    QTest::newRow("10^(9/5) = 63.1 -> 64") << 9 << 5 << qint64(64);
    QTest::newRow("1 s") << 90 << 10 << qint64(1000000000);
    QTest::newRow("one per decade: 1 ms") << 6 << 1 << qint64(1000000);
}

void TestHistogram::edges()
{
    QFETCH(int, i);
    QFETCH(int, perDecade);
    QFETCH(qint64, edge);
    QCOMPARE(logBinEdge(i, perDecade), int64_t(edge));
}

void TestHistogram::edgesAgainstPowers()
{
    // edge(i) is the smallest integer >= 10^(i/B): edge - 1 < 10^(i/B) <= edge.
    for (int b : {1, 3, 5, 10, 20})
        for (int i = 1; i <= 10 * b; ++i) {
            const long double x = std::pow(10.0L, (long double)i / b);
            const int64_t e = logBinEdge(i, b);
            QVERIFY2((long double)e >= x * (1 - 1e-15L) && (long double)(e - 1) < x,
                     qPrintable(QStringLiteral("B=%1 i=%2 edge %3").arg(b).arg(i).arg(e)));
        }
}

void TestHistogram::binIndexAgreesWithEdges()
{
    for (int b : {1, 5, 10})
        for (int64_t d : {int64_t(1), int64_t(2), int64_t(9), int64_t(10), int64_t(12), int64_t(13), int64_t(99), int64_t(100),
                          int64_t(1258), int64_t(1259), int64_t(999999), int64_t(1000000), int64_t(4294967295)}) {
            const int i = logBinIndex(d, b);
            QVERIFY2(logBinEdge(i, b) <= d && d < logBinEdge(i + 1, b), qPrintable(QStringLiteral("B=%1 d=%2 i=%3").arg(b).arg(d).arg(i)));
        }
}

void TestHistogram::zeroDurations()
{
    std::vector<HistogramInstance> in;
    for (int64_t d : {0, 0, 5, 7, 1000, 1001})
        in.push_back({0, uint32_t(in.size()), int64_t(in.size()) * 10, d});
    const Histogram h = histogramOf(in);
    QCOMPARE(h.bins.front().loNs, int64_t(0));
    QCOMPARE(h.bins.front().hiNs, int64_t(1));
    QCOMPARE(h.bins.front().count, int64_t(2));
    checkAgainst(h, {0, 0, 5, 7, 1000, 1001});
    // All zero: one bin.
    const Histogram z = histogramOf({{0, 0, 0, 0}, {0, 1, 5, 0}});
    QCOMPARE(z.bins.size(), size_t(1));
    QCOMPARE(z.bins[0].count, int64_t(2));
}

void TestHistogram::randomAgainstBruteForce()
{
    // Durations over nine decades (0 ns to 4.29 s), with ties, against the brute-force count.
    std::mt19937_64 rng(3);
    for (int b : {1, 3, 10, 37, 100}) {
        std::vector<HistogramInstance> in;
        std::vector<int64_t> d;
        for (int i = 0; i < 20000; ++i) {
            const int64_t v = i % 97 == 0 ? 0 : int64_t(std::pow(10.0, double(rng() % 9600) / 1000.0)) + int64_t(rng() % 3);
            in.push_back({uint32_t(i % 4), uint32_t(i), int64_t(rng() % 1000), v});
            d.push_back(v);
        }
        std::sort(d.begin(), d.end());
        HistogramOptions o;
        o.binsPerDecade = b;
        o.slowest = 25;
        checkAgainst(histogramOf(in, o), d);
        if (QTest::currentTestFailed())
            return;
    }
}

void TestHistogram::emptyGroup()
{
    const Histogram h = histogramOf({}, HistogramOptions{10, 10, 3});
    QCOMPARE(h.count, int64_t(0));
    QVERIFY(h.bins.empty());
    QVERIFY(h.slowest.empty());
    QCOMPARE(h.binOf(100), -1);
    QCOMPARE(histogramTable(h).rows.size(), size_t(0));
    const Table s = histogramSummaryTable(h);
    QCOMPARE(s.rows.size(), size_t(1));
    QCOMPARE(numberOf(s.at(0, "count")), 0.0);
    QVERIFY(isNone(s.at(0, "median_ns")));
    QVERIFY(isNone(s.at(0, "min_ns")));
    // A key the run does not have: no instances, and not among the keys.
    HistogramGroup g;
    g.level.groupBy = GroupBy::Kernel;
    g.key = "no_such_kernel";
    const ActivityView view = m_columns->view();
    QCOMPARE(computeHistogram(view, m_profile->tree, m_profile->strings, g).count, int64_t(0));
    const auto keys = histogramKeys(view, m_profile->tree, m_profile->strings, g);
    QVERIFY(!std::binary_search(keys.begin(), keys.end(), g.key));
    QVERIFY(std::binary_search(keys.begin(), keys.end(), std::string("sgemm_nt")));
}

void TestHistogram::kernelGroupAgainstCsv()
{
    const ActivityView view = m_columns->view();
    for (const char* name : {"sgemm_nt", "sgd_update", "log_softmax_forward"}) {
        for (int b : {1, 5, 10, 20}) {
            HistogramGroup g;
            g.level.groupBy = GroupBy::Kernel;
            g.key = name;
            HistogramOptions o;
            o.binsPerDecade = b;
            o.slowest = 5;
            const Histogram h = computeHistogram(view, m_profile->tree, m_profile->strings, g, o);
            const auto sorted = durationsOf(m_rows, [&](const CsvRow& r) { return r.kind == "kernel" && r.name == name; });
            checkAgainst(h, sorted);
            if (QTest::currentTestFailed())
                return;
        }
    }
}

void TestHistogram::layerGroupAgainstCsv()
{
    // The tiny GCN's scopes are step/phase/layer/op: the layer is the path's third component.
    const ActivityView view = m_columns->view();
    for (const char* layer : {"softmax", "conv1", "embedding"}) {
        HistogramGroup g;
        g.key = layer;   // GroupBy::Layer by default
        const Histogram h = computeHistogram(view, m_profile->tree, m_profile->strings, g);
        const auto sorted = durationsOf(m_rows, [&](const CsvRow& r) {
            const auto c = components(r.path);
            return r.kind == "kernel" && c.size() >= 3 && c[2] == layer;
        });
        checkAgainst(h, sorted);
        if (QTest::currentTestFailed())
            return;
    }
}

void TestHistogram::withinFilter()
{
    // Kernel sgemm_nt only inside the softmax layer (stats --within layer=softmax).
    const ActivityView view = m_columns->view();
    HistogramGroup g;
    g.level.groupBy = GroupBy::Kernel;
    g.level.filters = {{GroupBy::Layer, "softmax"}};
    g.key = "sgemm_nt";
    const Histogram h = computeHistogram(view, m_profile->tree, m_profile->strings, g);
    const auto sorted = durationsOf(m_rows, [&](const CsvRow& r) {
        const auto c = components(r.path);
        return r.kind == "kernel" && r.name == "sgemm_nt" && c.size() >= 3 && c[2] == "softmax";
    });
    checkAgainst(h, sorted);
    // The fast path (no filters: a table per name id or node) and the Grouper's (any filter;
    // kind=kernel lets every kernel through) find the same instances.
    for (GroupBy by : {GroupBy::Kernel, GroupBy::Layer, GroupBy::Op, GroupBy::Scope, GroupBy::Phase}) {
        const ActivityView v = m_columns->view();
        HistogramGroup plain;
        plain.level.groupBy = by;
        plain.level.depth = 2;
        const auto keys = histogramKeys(v, m_profile->tree, m_profile->strings, plain);
        QVERIFY(!keys.empty());
        for (const std::string& key : keys) {
            plain.key = key;
            HistogramGroup filtered = plain;
            filtered.level.filters = {{GroupBy::Kind, "kernel"}};
            auto a = histogramInstances(v, m_profile->tree, m_profile->strings, plain);
            auto b = histogramInstances(v, m_profile->tree, m_profile->strings, filtered);
            QVERIFY2(!a.empty(), key.c_str());
            QCOMPARE(a.size(), b.size());
            for (size_t i = 0; i < a.size(); ++i)
                QVERIFY(a[i].track == b[i].track && a[i].index == b[i].index);
        }
    }
}

void TestHistogram::stepsAgainstStepInstances()
{
    // A step's GPU span: its first kernel's start to its last kernel's end, brute force from the
    // CSV over the stored step instance's (host) interval, which holds its kernels on the CPU.
    Reader reader(*m_db);
    std::vector<int64_t> spans;
    for (const ScopeInstance& si : reader.scopeInstances(m_runId)) {
        if (!m_profile->tree.isStep(si.scopeId))
            continue;
        int64_t lo = INT64_MAX, hi = INT64_MIN;
        for (const CsvRow& r : m_rows)
            if (r.kind == "kernel" && r.startNs >= si.startNs && r.endNs <= si.endNs)
                lo = std::min(lo, r.startNs), hi = std::max(hi, r.endNs);
        QVERIFY(lo <= hi);
        spans.push_back(hi - lo);
    }
    std::sort(spans.begin(), spans.end());
    QCOMPARE(spans.size(), size_t(3));
    HistogramGroup g;
    g.steps = true;   // every step
    const ActivityView view = m_columns->view();
    const Histogram h = computeHistogram(view, m_profile->tree, m_profile->strings, g);
    QVERIFY(h.group.of == HistogramOf::Scopes);
    checkAgainst(h, spans);
    for (const HistogramInstance& in : h.slowest)
        QCOMPARE(in.track, kScopeInstanceTrack);
    // By name: the capture's steps are all named "step".
    g.key = "step";
    QCOMPARE(computeHistogram(view, m_profile->tree, m_profile->strings, g).count, int64_t(3));
}

void TestHistogram::scopeInstancesOfLayer()
{
    // Scope instances of layer conv1: every instance of a layer-level node named conv1 that ran
    // kernels (forward, backward and update of each step), each spanning its own kernels.
    Reader reader(*m_db);
    const ScopeTree& tree = m_profile->tree;
    int64_t expected = 0;
    for (const ScopeInstance& si : reader.scopeInstances(m_runId))
        if (tree.level(si.scopeId) == "layer" && tree.name(si.scopeId) == "conv1")
            ++expected;
    QVERIFY(expected >= 3);
    HistogramGroup g;
    g.key = "conv1";
    g.of = HistogramOf::Scopes;
    const ActivityView view = m_columns->view();
    const Histogram h = computeHistogram(view, tree, m_profile->strings, g);
    QCOMPARE(h.count, expected);   // each of them ran kernels in this capture
    // Every span covers the kernels under the instance: at least the longest kernel of conv1.
    const auto kernels = durationsOf(m_rows, [](const CsvRow& r) {
        const auto c = components(r.path);
        return r.kind == "kernel" && c.size() >= 3 && c[2] == "conv1";
    });
    QVERIFY(h.maxNs >= kernels.back());
    // Kernel groupings have no scope instances.
    g.level.groupBy = GroupBy::Kernel;
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, histogramInstances(view, tree, m_profile->strings, g));
}

void TestHistogram::perStepAndOverlay()
{
    const ActivityView view = m_columns->view();
    HistogramGroup g;
    g.key = "softmax";
    HistogramOptions o;
    o.steps = m_steps;
    const Histogram a = computeHistogram(view, m_profile->tree, m_profile->strings, g, o);
    const Table t = histogramTable(a);
    QCOMPARE(t.rows.size(), a.bins.size());
    for (size_t b = 0; b < a.bins.size(); ++b) {
        QCOMPARE(numberOf(t.at(b, "count")), double(a.bins[b].count));
        QCOMPARE(numberOf(t.at(b, "per_step")), double(a.bins[b].count) / 3.0);
    }
    // Without steps: per_step none.
    QVERIFY(isNone(histogramTable(computeHistogram(view, m_profile->tree, m_profile->strings, g)).at(0, "per_step")));

    // The overlay of the run (3 steps) with a synthetic one of twice the instances over 6 steps
    // and a far longer tail: per step the two agree where they overlap; the bins are common.
    std::vector<HistogramInstance> other;
    for (const HistogramInstance& in : histogramInstances(view, m_profile->tree, m_profile->strings, g))
        other.push_back(in), other.push_back(in);
    other.push_back({0, 0, 0, a.maxNs * 50});
    HistogramOptions o6 = o;
    o6.steps = 6;
    const Histogram b = histogramOf(other, o6);
    const Table ov = histogramOverlayTable(a, b);
    QVERIFY(ov.rows.size() > a.bins.size());
    int64_t sumA = 0, sumB = 0;
    for (size_t r = 0; r < ov.rows.size(); ++r) {
        const int64_t ca = int64_t(numberOf(ov.at(r, "base_count"))), cb = int64_t(numberOf(ov.at(r, "other_count")));
        sumA += ca;
        sumB += cb;
        QCOMPARE(numberOf(ov.at(r, "base_per_step")), double(ca) / 3.0);
        QCOMPARE(numberOf(ov.at(r, "other_per_step")), double(cb) / 6.0);
        if (numberOf(ov.at(r, "hi_ns")) <= double(a.maxNs))
            QCOMPARE(numberOf(ov.at(r, "base_per_step")), numberOf(ov.at(r, "other_per_step")));
        if (r > 0)
            QCOMPARE(numberOf(ov.at(r, "lo_ns")), numberOf(ov.at(r - 1, "hi_ns")));
    }
    QCOMPARE(sumA, a.count);
    QCOMPARE(sumB, b.count);
}

void TestHistogram::slowestTable()
{
    const ActivityView view = m_columns->view();
    HistogramGroup g;
    g.level.groupBy = GroupBy::Kernel;
    g.key = "sgd_update";
    HistogramOptions o;
    o.slowest = 4;
    const Histogram h = computeHistogram(view, m_profile->tree, m_profile->strings, g, o);
    const Table t = histogramSlowestTable(h, view, m_profile->tree, m_profile->strings);
    QCOMPARE(t.rows.size(), size_t(4));
    for (size_t r = 0; r < t.rows.size(); ++r) {
        QCOMPARE(textOf(t.at(r, "name")), std::string("sgd_update"));
        QCOMPARE(numberOf(t.at(r, "rank")), double(r + 1));
        // track and index lead back to the activity itself.
        const size_t tr = size_t(numberOf(t.at(r, "track"))), ix = size_t(numberOf(t.at(r, "index")));
        QCOMPARE(view.tracks[tr].startNs[ix], int64_t(numberOf(t.at(r, "start_ns"))));
        QCOMPARE(int64_t(view.tracks[tr].durationNs[ix]), int64_t(numberOf(t.at(r, "duration_ns"))));
        // A row of the CSV export has that start, duration and name.
        const int64_t start = int64_t(numberOf(t.at(r, "start_ns")));
        QVERIFY(std::any_of(m_rows.begin(), m_rows.end(), [&](const CsvRow& c) {
            return c.startNs == start && c.name == "sgd_update" && c.durationNs == int64_t(numberOf(t.at(r, "duration_ns")));
        }));
    }
}

void TestHistogram::nearKeys()
{
    const std::vector<std::string> keys{"conv1", "conv2", "embedding", "softmax"};
    const auto near = wt::nearKeys(keys, "sofmax", 2);
    QCOMPARE(near.size(), size_t(2));
    QCOMPARE(near[0], std::string("softmax"));
    // A substring ranks first.
    QCOMPARE(wt::nearKeys(keys, "CONV", 5).front(), std::string("conv1"));
    QVERIFY(wt::nearKeys({}, "x").empty());
}

QTEST_GUILESS_MAIN(TestHistogram)
#include "tst_histogram.moc"
