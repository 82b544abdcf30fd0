// The loader's narrowed arrays keep their extreme values: scope instance GPU spans (32-bit
// offsets from a block base and 32-bit lengths, exact side table, plain arrays when many are
// far) round-trip starts and lengths beyond 2^32 ns, and a loaded run longer than 2^32 ns has
// the spans a brute-force walk gives; launch configurations as 16-bit indices round-trip up to
// kMaxLaunchConfigs and one more is refused with a clear message.
#include "app/gui/core/rundata.h"
#include "storage/database.h"
#include "storage/storageerror.h"
#include "storage/writer.h"
#include "tests/support/testsupport.h"

#include <QTest>

#include <climits>
#include <map>
#include <random>

using namespace wt;
using namespace wt::gui;

namespace {

constexpr int64_t k32 = int64_t(1) << 32;

void checkSpans(const InstanceSpans& sp, const std::vector<int64_t>& lo, const std::vector<int64_t>& hi)
{
    QCOMPARE(sp.size(), lo.size());
    for (size_t i = 0; i < lo.size(); ++i) {
        const bool has = lo[i] <= hi[i];
        QVERIFY2(sp.has(i) == has, qPrintable(QStringLiteral("instance %1").arg(i)));
        QCOMPARE(sp.start(i), has ? lo[i] : INT64_MAX);
        QCOMPARE(sp.end(i), has ? hi[i] : INT64_MIN);
    }
}

// One track; instances written with their kernels' times; returns the expected GPU span per
// instance index (id - 1) for ops and the one step above them.
struct Written {
    std::string path;
    int64_t runId = 0;
    std::vector<int64_t> lo, hi;
};

Written writeRun(const std::string& name, const std::vector<int64_t>& kernelStarts, int64_t kernelNs)
{
    Written out;
    out.path = test::tempPath(name);
    Database db(out.path, OpenMode::ReadWrite);
    Writer w(db);
    RunInfo info;
    info.name = name;
    info.backend = "cpu";
    out.runId = w.beginRun(info);
    const int64_t track = w.addTrack(0, 1, TrackKind::Kernel);
    const int64_t step = w.addScope(0, "step", "step");
    const int64_t op = w.addScope(step, "op", "op");
    const int64_t si = w.beginScopeInstance(step, 0, 0);
    out.lo.push_back(INT64_MAX);
    out.hi.push_back(INT64_MIN);
    for (int64_t at : kernelStarts) {
        Activity a;
        a.trackId = track;
        a.startNs = at;
        a.endNs = at + kernelNs;
        a.nameId = w.intern("k");
        a.scopeInstanceId = w.addScopeInstance(op, si, at, at + kernelNs);
        w.addActivity(a);
        out.lo.push_back(at);
        out.hi.push_back(at + kernelNs);
        out.lo[0] = std::min(out.lo[0], at);
        out.hi[0] = std::max(out.hi[0], at + kernelNs);
    }
    const int64_t end = kernelStarts.empty() ? 0 : kernelStarts.back() + kernelNs;
    w.endScopeInstance(si, end);
    w.finishRun(RunStatus::Complete, end);
    return out;
}

}  // namespace

class TstLoadCompact : public QObject {
    Q_OBJECT
private slots:
    void spansRoundTripExtremes()
    {
        const size_t n = 3 * InstanceSpans::kBlock + 17;
        std::vector<int64_t> lo(n), hi(n);
        std::mt19937_64 rng(7);
        const int64_t maxT = kMaxTimeNs - 1;
        for (size_t i = 0; i < n; ++i) {
            const int64_t base = int64_t(i / InstanceSpans::kBlock) * 1000000000;
            lo[i] = base + int64_t(rng() % 50000000);
            hi[i] = lo[i] + int64_t(rng() % 100000);
        }
        auto set = [&](size_t i, int64_t s, int64_t e) {
            lo[i] = s;
            hi[i] = e;
        };
        set(0, INT64_MAX, INT64_MIN);                 // no span
        set(1, -maxT, maxT);                          // the widest span a run can hold
        set(2, 5, 5);                                 // zero length
        set(3, lo[4], lo[4] + k32 - 2);               // longest 32-bit length
        set(5, lo[6], lo[6] + k32 - 1);               // first one kept aside
        set(6, lo[6], lo[6] + k32);
        set(7, lo[8] + 3 * k32, lo[8] + 3 * k32 + 10);   // start far from its block's base
        set(8, lo[9] - k32, lo[9] - k32 + 10);           // and before it
        set(9, lo[10] + k32 / 2 - 1, lo[10] + k32 / 2);   // near the window's edge
        set(InstanceSpans::kBlock + 1, maxT, maxT);
        set(2 * InstanceSpans::kBlock, INT64_MAX, INT64_MIN);
        set(n - 1, -maxT, -maxT + 1);
        InstanceSpans sp;
        sp.assign(lo, hi);
        QVERIFY(sp.compact());
        QVERIFY(sp.exceptions() >= 5 && sp.exceptions() < 10);
        QVERIFY2(double(sp.bytes()) / double(n) < 8.5, qPrintable(QString::number(double(sp.bytes()) / double(n))));
        checkSpans(sp, lo, hi);
        // Encoded on several threads (a part of the blocks each, far lists joined in order):
        // the same spans and side table.
        for (int threads : {2, 3, 4, 8}) {
            InstanceSpans par;
            par.assign(lo.data(), hi.data(), n, threads);
            QVERIFY(par.compact());
            QCOMPARE(par.exceptions(), sp.exceptions());
            checkSpans(par, lo, hi);
        }

        // Ids not in time order (every start far from its neighbours): plain arrays, same values.
        for (size_t i = 0; i < n; ++i) {
            lo[i] = int64_t(rng() % uint64_t(int64_t(1) << 60)) - (int64_t(1) << 59);
            hi[i] = i % 5 == 0 ? lo[i] - 1 : lo[i] + int64_t(rng() % uint64_t(k32 * 4));
        }
        sp.assign(lo, hi);
        QVERIFY(!sp.compact());
        checkSpans(sp, lo, hi);
        for (int threads : {2, 4}) {
            InstanceSpans par;
            par.assign(lo.data(), hi.data(), n, threads);
            QVERIFY(!par.compact());
            checkSpans(par, lo, hi);
        }

        sp.assign({}, {});
        QCOMPARE(sp.size(), size_t(0));
    }

    void runLongerThan2To32Ns()
    {
        // 10,000 kernels 1 us apart, then 100 more 5 s later: the step spans > 2^32 ns and the
        // last block's instances start far from its base (kept exact aside); then a run whose
        // kernels are 2 s apart everywhere (plain arrays).
        for (int shape = 0; shape < 2; ++shape) {
            std::vector<int64_t> starts;
            if (shape == 0) {
                for (int64_t k = 0; k < 10000; ++k)
                    starts.push_back(k * 1000);
                for (int64_t k = 0; k < 100; ++k)
                    starts.push_back(5000000000 + k * 1000);
            } else {
                for (int64_t k = 0; k < 9000; ++k)
                    starts.push_back(k * 2000000000);
            }
            Written wr = writeRun(shape == 0 ? "long.wt" : "sparse.wt", starts, 700);
            auto run = loadRun(wr.path, wr.runId);
            QVERIFY(run);
            QCOMPARE(run->instances.spans.compact(), shape == 0);
            QCOMPARE(run->instances.size(), wr.lo.size());
            checkSpans(run->instances.spans, wr.lo, wr.hi);
            QVERIFY(run->instances.gpuEnd(0) - run->instances.gpuStart(0) > k32);
            QCOMPARE(run->spanEndNs - run->spanStartNs, starts.back() + 700 - starts.front());
        }
    }

    void launchConfigsUpToTheLimit()
    {
        for (size_t distinct : {kMaxLaunchConfigs, kMaxLaunchConfigs + 1}) {
            const std::string path = test::tempPath("configs.wt");
            int64_t runId = 0;
            std::vector<LaunchConfig> written;
            {
                Database db(path, OpenMode::ReadWrite);
                Writer w(db);
                RunInfo info;
                info.name = "configs";
                info.backend = "cpu";
                runId = w.beginRun(info);
                const int64_t track = w.addTrack(0, 1, TrackKind::Kernel);
                for (size_t k = 0; k < distinct + 100; ++k) {
                    Activity a;
                    a.trackId = track;
                    a.startNs = int64_t(k) * 100;
                    a.endNs = a.startNs + 50;
                    a.nameId = w.intern("k");
                    const size_t c = k < distinct ? k : k % 7;   // the last ones repeat earlier ones
                    a.config.grid[0] = int32_t(c % 256 + 1);
                    a.config.grid[1] = int32_t(c / 256 + 1);
                    a.config.block[0] = 128;
                    w.addActivity(a);
                    written.push_back(a.config);
                }
                w.finishRun(RunStatus::Complete, int64_t(distinct + 100) * 100);
            }
            if (distinct > kMaxLaunchConfigs) {
                try {
                    loadRun(path, runId);
                    QFAIL("a run with too many launch configurations loaded");
                } catch (const StorageError& e) {
                    const QString what = QString::fromUtf8(e.what());
                    QVERIFY2(what.contains(QStringLiteral("more than 65535 distinct launch configurations")), e.what());
                    QVERIFY2(!what.contains(QLatin1Char('\n')), e.what());
                }
                continue;
            }
            auto run = loadRun(path, runId);
            QVERIFY(run);
            QCOMPARE(run->launchConfigs.size(), kMaxLaunchConfigs);
            const TrackData& t = run->tracks.at(0);
            QCOMPARE(t.size(), written.size());
            for (size_t i = 0; i < t.size(); ++i)
                QVERIFY(run->launchConfigs[t.config[i]] == written[i]);
        }
    }
};

QTEST_MAIN(TstLoadCompact)
#include "tst_loadcompact.moc"
