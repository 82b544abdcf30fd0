// Loading a run into the timeline's arrays: counts, order, GPU spans of scope instances
// (checked against a brute-force walk), lanes, stable layer colors, cancel, bad files.
#include "app/gui/core/layerpalette.h"
#include "app/gui/core/rangesummary.h"
#include "app/gui/core/rundata.h"
#include "app/gui/core/timelinelayout.h"
#include "tests/support/synthrun.h"
#include "storage/database.h"
#include "storage/storageerror.h"
#include "storage/writer.h"
#include "tests/support/testsupport.h"

#include <QTest>

#include <climits>
#include <fstream>

using namespace wt::gui;

namespace {

std::string makeRun(int64_t kernels, uint64_t seed, wt::synth::Result* result = nullptr)
{
    std::string path = wt::test::tempPath("run.wt");
    wt::Database db(path, wt::OpenMode::ReadWrite);
    wt::Writer writer(db);
    wt::synth::Options o;
    o.kernels = kernels;
    o.seed = seed;
    o.layers = 3;
    auto r = wt::synth::generate(writer, o);
    if (result)
        *result = r;
    return path;
}

}  // namespace

class TstRunData : public QObject {
    Q_OBJECT
private slots:
    void loadsEveryKernelSorted()
    {
        wt::synth::Result res;
        std::string path = makeRun(20000, 1, &res);
        auto run = loadRun(path, res.runId);
        QVERIFY(run);
        QCOMPARE(run->kernelCount, res.kernels);
        QCOMPARE(run->activityCount, res.kernels + res.memcpys);
        int64_t kernelTime = 0;
        for (const TrackData& t : run->tracks) {
            QVERIFY(std::is_sorted(t.startNs.begin(), t.startNs.end()));
            QCOMPARE(t.durationNs.size(), t.size());
            for (size_t i = 0; i < t.size(); ++i) {
                QVERIFY(t.instance[i] == kNone || t.instance[i] < run->instances.size());
                QVERIFY(t.endNs(i) - t.startNs[i] <= t.maxDurationNs);
                if (t.kind == wt::TrackKind::Kernel)
                    kernelTime += t.durationNs[i];
            }
        }
        QCOMPARE(kernelTime, res.kernelTimeNs);
        QCOMPARE(run->devices.size(), size_t(1));
        // 24 bytes per activity plus the scope instances: well under the 64 B/kernel budget.
        QVERIFY2(double(run->memoryBytes()) / double(run->kernelCount) < 64.0,
                 qPrintable(QString::number(double(run->memoryBytes()) / double(run->kernelCount))));
    }

    void scopeSpansFromKernels()
    {
        wt::synth::Result res;
        std::string path = makeRun(5000, 2, &res);
        auto run = loadRun(path, res.runId);
        QVERIFY(run);
        const InstanceData& in = run->instances;
        // Brute force: every kernel extends the span of each of its ancestors.
        std::vector<int64_t> lo(in.size(), INT64_MAX), hi(in.size(), INT64_MIN);
        for (const TrackData& t : run->tracks) {
            if (t.kind != wt::TrackKind::Kernel)
                continue;
            for (size_t i = 0; i < t.size(); ++i)
                for (uint32_t a = t.instance[i]; a != kNone; a = in.parent[a]) {
                    lo[a] = std::min(lo[a], t.startNs[i]);
                    hi[a] = std::max(hi[a], t.endNs(i));
                }
        }
        size_t withSpan = 0;
        for (size_t i = 0; i < in.size(); ++i) {
            QCOMPARE(in.gpuStart(i), lo[i]);
            QCOMPARE(in.gpuEnd(i), hi[i]);
            withSpan += in.hasSpan(i);
        }
        QVERIFY(withSpan > 100);
        // Lanes: step, phase, layer, op; each sorted by GPU start, holding every spanned instance.
        QCOMPARE(run->lanes.size(), size_t(4));
        QCOMPARE(run->lanes[0].level, QStringLiteral("step"));
        QCOMPARE(run->lanes[2].level, QStringLiteral("layer"));
        size_t inLanes = 0;
        for (const LaneData& l : run->lanes) {
            inLanes += l.items.size();
            for (size_t k = 1; k < l.items.size(); ++k)
                QVERIFY(in.gpuStart(l.items[k - 1]) <= in.gpuStart(l.items[k]));
            for (uint32_t idx : l.items)
                QCOMPARE(run->nodes[in.node[idx]].depth, l.depth);
        }
        QCOMPARE(inLanes, withSpan);
    }

    void foldIndexesBuiltAtLoad()
    {
        // Every track and lane carries a FoldIndex over exactly its items, and a zoomed-out
        // draw list built through it covers every kernel of a track once.
        wt::synth::Result res;
        std::string path = makeRun(30000, 4, &res);
        auto run = loadRun(path, res.runId);
        QVERIFY(run);
        for (const TrackData& t : run->tracks) {
            QVERIFY(t.index.builtFor(t.size()));
            TrackSequence seq{run.get(), &t};
            for (size_t i = 0; i < t.size(); i += 97)
                for (double d : {-0.5, 0.0, 0.5})
                    QCOMPARE(t.index.lowerBound(seq, double(t.startNs[i]) + d),
                             lowerBoundStart(seq, 0, t.size(), double(t.startNs[i]) + d));
            QCOMPARE(t.index.levels.front().color[0], run->activityColor(t, 0));
        }
        for (const LaneData& l : run->lanes)
            QVERIFY(l.index.builtFor(l.items.size()));
        TimelineLayout layout;
        layout.build(*run, {});
        TimeMapping m(double(run->spanStartNs), double(run->spanEndNs), 1000);
        DrawList dl;
        buildDrawList(*run, layout, m, {}, dl);
        for (size_t r = 0; r < layout.rows().size(); ++r) {
            if (layout.rows()[r].kind != Row::Track)
                continue;
            size_t sum = 0;
            for (const DrawItem& d : dl.rows[r])
                sum += d.count;
            QCOMPARE(sum, run->tracks[size_t(layout.rows()[r].index)].size());
        }
        QVERIFY(run->memoryBytes() < size_t(run->activityCount) * 64);
    }

    void layerColorsAreStable()
    {
        // FNV-1a is fixed: pin it so a change of the palette mapping is a visible decision.
        QCOMPARE(LayerPalette::hash("a"), 0xe40c292cu);
        QCOMPARE(LayerPalette::hashColor("softmax"), LayerPalette::colorAt(int(LayerPalette::hash("softmax") % 20)));
        wt::synth::Result r1, r2;
        std::string p1 = makeRun(3000, 5, &r1), p2 = makeRun(4000, 9, &r2);
        auto a = loadRun(p1, r1.runId), b = loadRun(p2, r2.runId);
        auto colorOf = [](const RunData& run, const QString& layer) {
            for (const ScopeNodeData& n : run.nodes)
                if (run.nodes[n.layerNode].name == layer && n.level == QStringLiteral("op"))
                    return n.color;
            return QRgb(0);
        };
        for (const QString& layer : {QStringLiteral("softmax"), QStringLiteral("embedding"), QStringLiteral("decoder.1")}) {
            QRgb c = colorOf(*a, layer);
            QVERIFY(c != 0);
            QCOMPARE(c, colorOf(*b, layer));
            QCOMPARE(c, a->palette.color(layer.toStdString()));
        }
        // Kernels take their layer's color.
        const TrackData& t = a->tracks.front();
        uint32_t inst = t.instance[0];
        QCOMPARE(a->activityColor(t, 0), a->nodes[a->nodes[a->instances.node[inst]].layerNode].color);
    }

    void rangeSummaryMatchesKernels()
    {
        wt::synth::Result res;
        std::string path = makeRun(3000, 3, &res);
        auto run = loadRun(path, res.runId);
        wt::RangeSummary all = summarizeRange(*run, double(run->spanStartNs), double(run->spanEndNs));
        QCOMPARE(all.kernels, res.kernels);
        QCOMPARE(all.kernelTimeNs, res.kernelTimeNs);
        int64_t byLayer = 0;
        for (const wt::Group& e : all.layers.groups)
            byLayer += e.timeNs;
        QCOMPARE(byLayer, all.kernelTimeNs);
        double mid = double(run->spanStartNs + run->spanEndNs) / 2;
        wt::RangeSummary half = summarizeRange(*run, double(run->spanStartNs), mid);
        wt::RangeSummary rest = summarizeRange(*run, mid, double(run->spanEndNs));
        QVERIFY(qAbs(double(half.kernelTimeNs + rest.kernelTimeNs - all.kernelTimeNs)) <= 2);
    }

    void cancelAndErrors()
    {
        wt::synth::Result res;
        std::string path = makeRun(1000, 4, &res);
        LoadCallbacks cancel;
        cancel.progress = [](int64_t, int64_t) { return false; };
        QVERIFY(!loadRun(path, res.runId, cancel));
        QVERIFY_THROWS_EXCEPTION(wt::StorageError, loadRun(path, res.runId + 100));
        std::string bad = wt::test::tempPath("corrupt.wt");
        std::ofstream(bad) << "this is not a database";
        QVERIFY_THROWS_EXCEPTION(wt::StorageError, loadRun(bad, 1));
    }

    void memoryBytesCountsInstanceIds()
    {
        // A skeleton of a run whose instance ids have holes keeps every id (8 bytes each):
        // the memory cap's accounting (windowBudget) must see them.
        RunData d;
        d.profile = std::make_shared<const wt::RunProfile>();
        const size_t before = d.memoryBytes();
        d.instanceIds.resize(100000);
        QVERIFY2(d.memoryBytes() >= before + 100000 * sizeof(int64_t),
                 qPrintable(QStringLiteral("%1 -> %2 bytes").arg(before).arg(d.memoryBytes())));
    }

    void damagedRunRefused()
    {
        // A scope parent cycle (UPDATE scopes SET parent_id = id) made the GUI's layer grouping
        // loop forever: the reader refuses that run with one line; the file's other run loads.
        std::string path = wt::test::tempPath("damaged.wt");
        int64_t good = 0, damaged = 0;
        {
            wt::Database db(path, wt::OpenMode::ReadWrite);
            wt::synth::Options o;
            o.kernels = 2000;
            o.layers = 3;
            { wt::Writer w(db); good = wt::synth::generate(w, o).runId; }
            { wt::Writer w(db); damaged = wt::synth::generate(w, o).runId; }
            db.exec(("UPDATE scopes SET parent_id = id WHERE run_id = " + std::to_string(damaged)).c_str());
        }
        try {
            loadRun(path, damaged);
            QFAIL("the damaged run loaded");
        } catch (const wt::StorageError& e) {
            std::string msg = e.what();
            QVERIFY2(msg.find("is damaged") != std::string::npos && msg.find('\n') == std::string::npos, msg.c_str());
        }
        auto run = loadRun(path, good);
        QVERIFY(run);
        QCOMPARE(run->kernelCount, int64_t(2000));
    }
};

QTEST_GUILESS_MAIN(TstRunData)
#include "tst_rundata.moc"
