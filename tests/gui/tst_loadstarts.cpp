// The tracks' starts as 32-bit block offsets (ActivityStarts): exact at block edges, at the
// largest offset that fits and the first that does not (kept aside), at the extremes a run can
// hold, for unsorted input and sparse tracks (plain int64 then); a loaded run with a pause and a
// sparse stream has the stored starts; and a run loads the same on 1, 2 and 4 threads (the
// decoding thread's columns, the lanes merged in halves).
#include "app/gui/core/rundata.h"
#include "storage/database.h"
#include "storage/writer.h"
#include "tests/support/synthrun.h"
#include "tests/support/testsupport.h"

#include <QTest>

#include <algorithm>
#include <random>

using namespace wt;
using namespace wt::gui;

namespace {

constexpr int64_t kFarOffset = int64_t(ActivityStarts::kFar);   // 2^32-1: the first offset kept aside

bool sameStarts(const ActivityStarts& s, const std::vector<int64_t>& v, QString* why)
{
    if (s.size() != v.size()) {
        *why = QStringLiteral("size %1, expected %2").arg(s.size()).arg(v.size());
        return false;
    }
    const ActivityStarts::View view = s.view();
    for (size_t i = 0; i < v.size(); ++i)
        if (s[i] != v[i] || view[i] != v[i]) {
            *why = QStringLiteral("start %1: %2 / %3, expected %4").arg(i).arg(s[i]).arg(view[i]).arg(v[i]);
            return false;
        }
    return true;
}

#define CHECK_STARTS(s, v)                                                                     \
    do {                                                                                       \
        QString why;                                                                           \
        QVERIFY2(sameStarts((s), (v), &why), qPrintable(why));                                 \
    } while (0)

ActivityStarts build(const std::vector<int64_t>& v)
{
    ActivityStarts s;
    s.reserve(v.size());
    for (int64_t x : v)
        s.push_back(x);
    return s;
}

// Every column of two loaded runs, compared (what the timeline and analysis/ read).
void compareRuns(const RunData& a, const RunData& b)
{
    QCOMPARE(a.kernelCount, b.kernelCount);
    QCOMPARE(a.activityCount, b.activityCount);
    QCOMPARE(a.spanStartNs, b.spanStartNs);
    QCOMPARE(a.spanEndNs, b.spanEndNs);
    QCOMPARE(a.tracks.size(), b.tracks.size());
    for (size_t k = 0; k < a.tracks.size(); ++k) {
        const TrackData& x = a.tracks[k];
        const TrackData& y = b.tracks[k];
        QCOMPARE(x.id, y.id);
        QCOMPARE(x.size(), y.size());
        QVERIFY(std::equal(x.startNs.begin(), x.startNs.end(), y.startNs.begin()));
        QVERIFY(x.durationNs == y.durationNs);
        QVERIFY(x.nameId == y.nameId);
        QVERIFY(x.instance == y.instance);
        QVERIFY(x.config == y.config);
        QVERIFY(x.bytes == y.bytes);
        QVERIFY(x.activityKind == y.activityKind);
        QVERIFY(x.launch == y.launch);
        QCOMPARE(x.maxDurationNs, y.maxDurationNs);
    }
    QVERIFY(a.instances.node == b.instances.node);
    QVERIFY(a.instances.parent == b.instances.parent);
    QCOMPARE(a.instances.size(), b.instances.size());
    for (size_t i = 0; i < a.instances.size(); ++i) {
        QCOMPARE(a.instances.gpuStart(i), b.instances.gpuStart(i));
        QCOMPARE(a.instances.gpuEnd(i), b.instances.gpuEnd(i));
    }
    QCOMPARE(a.lanes.size(), b.lanes.size());
    for (size_t l = 0; l < a.lanes.size(); ++l) {
        QCOMPARE(a.lanes[l].deviceIndex, b.lanes[l].deviceIndex);
        QCOMPARE(a.lanes[l].depth, b.lanes[l].depth);
        QVERIFY(a.lanes[l].items == b.lanes[l].items);
        QCOMPARE(a.lanes[l].maxDurationNs, b.lanes[l].maxDurationNs);
    }
    QCOMPARE(a.launchConfigs.size(), b.launchConfigs.size());
    for (size_t c = 0; c < a.launchConfigs.size(); ++c)
        QVERIFY(a.launchConfigs[c] == b.launchConfigs[c]);
}

}  // namespace

class TstLoadStarts : public QObject {
    Q_OBJECT
private slots:
    void compactAtTheEdges()
    {
        const size_t B = ActivityStarts::kBlock;
        std::mt19937_64 rng(11);
        std::vector<int64_t> v;
        int64_t t = -(int64_t(1) << 40);
        for (size_t i = 0; i < 5 * B + 3; ++i) {
            // Block 1's last start at the largest offset kept inline (the others of the block
            // span at most ~2 s: increments up to 2 ms).
            if (i == 2 * B - 1)
                t = v[B] + kFarOffset - 1;
            v.push_back(t);
            t += int64_t(rng() % 2000000);
        }
        const int64_t base1 = v[B];
        QVERIFY(std::is_sorted(v.begin(), v.end()));
        ActivityStarts s = build(v);
        QVERIFY(s.compact());
        QCOMPARE(s.exceptions(), size_t(0));
        CHECK_STARTS(s, v);
        QVERIFY2(double(s.bytes()) / double(v.size()) < 4.2, qPrintable(QString::number(double(s.bytes()) / double(v.size()))));

        // One nanosecond later does not fit: that start (and only it) is kept aside.
        std::vector<int64_t> w(v.begin(), v.begin() + ptrdiff_t(2 * B));
        w[2 * B - 1] = base1 + kFarOffset;
        s = build(w);
        QVERIFY(s.compact());
        QCOMPARE(s.exceptions(), size_t(1));
        CHECK_STARTS(s, w);

        // The extremes of a run's clock (+-2^61 ns) in one track: the far one is exact.
        const int64_t maxT = kMaxTimeNs - 1;
        std::vector<int64_t> x = {-maxT, -maxT + 1, 0, maxT - 1, maxT};
        s = build(x);
        QVERIFY(s.compact());
        QCOMPARE(s.exceptions(), size_t(3));
        CHECK_STARTS(s, x);
    }

    void pauseKeepsAsideSparseAndUnsortedArePlain()
    {
        const size_t B = ActivityStarts::kBlock;
        // 10 blocks of kernels 1 us apart with a 60 s pause in the middle of block 4.
        std::vector<int64_t> v;
        for (size_t i = 0; i < 10 * B; ++i)
            v.push_back(int64_t(i) * 1000 + (i >= 4 * B + 100 ? int64_t(60) * 1000000000 : 0));
        ActivityStarts s = build(v);
        QVERIFY(s.compact());
        QCOMPARE(s.exceptions(), B - 100);   // the rest of the pause's block
        CHECK_STARTS(s, v);
        s.shrink();
        QVERIFY2(double(s.bytes()) / double(v.size()) < 6.0, qPrintable(QString::number(double(s.bytes()) / double(v.size()))));

        // A sparse stream: kernels 2 s apart, so most of every block is far: plain starts.
        std::vector<int64_t> sparse;
        for (size_t i = 0; i < 20 * B; ++i)
            sparse.push_back(int64_t(i) * 2000000000);
        s = build(sparse);
        QVERIFY(!s.compact());
        CHECK_STARTS(s, sparse);

        // A start before its block's base (not sorted): plain, every value kept; assign() of the
        // sorted values is compact again.
        std::vector<int64_t> unsorted = v;
        std::swap(unsorted[B + 5], unsorted[B]);
        s = build(unsorted);
        QVERIFY(!s.compact());
        CHECK_STARTS(s, unsorted);
        s.assign(v);
        QVERIFY(s.compact());
        CHECK_STARTS(s, v);
        s.shrink();
        CHECK_STARTS(s, v);

        // Searches over the view and the iterator agree with the plain array's.
        std::mt19937_64 rng(3);
        const ActivityStarts::View view = s.view();
        for (int k = 0; k < 2000; ++k) {
            const int64_t probe = int64_t(rng() % uint64_t(v.back() + 2000)) - 1000;
            const size_t expect = size_t(std::lower_bound(v.begin(), v.end(), probe) - v.begin());
            QCOMPARE(view.lowerBound(v.size(), probe), expect);
            QCOMPARE(size_t(std::lower_bound(s.begin(), s.end(), probe) - s.begin()), expect);
        }
        QVERIFY(std::is_sorted(s.begin(), s.end()));

        s.clear();
        QCOMPARE(s.size(), size_t(0));
        QVERIFY(s.compact());
    }

    void loadedRunHasTheStoredStarts()
    {
        // Stream 1: 6,000 kernels 1 us apart with a 60 s pause; stream 2: 9,000 kernels 3 s apart.
        const std::string path = test::tempPath("starts.wt");
        std::vector<int64_t> dense, sparse;
        int64_t runId = 0;
        {
            Database db(path, OpenMode::ReadWrite);
            Writer w(db);
            RunInfo info;
            info.name = "starts";
            info.backend = "cpu";
            runId = w.beginRun(info);
            const int64_t t1 = w.addTrack(0, 1, TrackKind::Kernel);
            const int64_t t2 = w.addTrack(0, 2, TrackKind::Kernel);
            const uint32_t name = w.intern("k");
            for (int64_t k = 0; k < 6000; ++k)
                dense.push_back(k * 1000 + (k >= 2500 ? int64_t(60) * 1000000000 : 0));
            for (int64_t k = 0; k < 9000; ++k)
                sparse.push_back(k * 3000000000);
            for (auto [track, starts] : {std::pair{t1, &dense}, std::pair{t2, &sparse}})
                for (int64_t at : *starts) {
                    Activity a;
                    a.trackId = track;
                    a.startNs = at;
                    a.endNs = at + 500;
                    a.nameId = name;
                    w.addActivity(a);
                }
            w.finishRun(RunStatus::Complete, sparse.back() + 500);
        }
        auto run = loadRun(path, runId);
        QVERIFY(run);
        QCOMPARE(run->tracks.size(), size_t(2));
        const TrackData& a = run->tracks[0];
        const TrackData& b = run->tracks[1];
        QCOMPARE(a.stream, int64_t(1));
        QVERIFY(a.startNs.compact());
        QVERIFY(a.startNs.exceptions() > 0);
        CHECK_STARTS(a.startNs, dense);
        QVERIFY(!b.startNs.compact());
        CHECK_STARTS(b.startNs, sparse);
        // analysis/ reads the same through the view.
        const ActivityView view = run->activities();
        QCOMPARE(view.tracks.size(), size_t(2));
        for (size_t i = 0; i < dense.size(); ++i)
            QCOMPARE(view.tracks[0].startNs[i], dense[i]);
        for (size_t i = 0; i < sparse.size(); ++i)
            QCOMPARE(view.tracks[1].startNs[i], sparse[i]);
        QCOMPARE(run->spanEndNs, sparse.back() + 500);
    }

    void sameRunOnOneTwoAndFourThreads()
    {
        const std::string path = test::tempPath("threads.wt");
        int64_t runId = 0;
        {
            Database db(path, OpenMode::ReadWrite);
            Writer w(db);
            synth::Options o;
            o.kernels = 150000;
            o.streams = 5;
            o.apiCalls = true;
            runId = synth::generate(w, o).runId;
        }
        LoadCallbacks one;
        one.threads = 1;
        auto base = loadRun(path, runId, one);
        QVERIFY(base);
        QCOMPARE(base->kernelCount, int64_t(150000));
        QVERIFY(base->lanes.size() >= 3);
        // The op lane is large enough to be merged in two halves on more than one thread.
        QVERIFY(std::any_of(base->lanes.begin(), base->lanes.end(),
                            [](const LaneData& l) { return l.items.size() >= (size_t(1) << 16); }));
        for (int threads : {2, 4}) {
            LoadCallbacks cb;
            cb.threads = threads;
            auto other = loadRun(path, runId, cb);
            QVERIFY(other);
            compareRuns(*base, *other);
            if (QTest::currentTestFailed())
                QFAIL(qPrintable(QStringLiteral("differs on %1 threads").arg(threads)));
        }
    }
};

QTEST_MAIN(TstLoadStarts)
#include "tst_loadstarts.moc"
