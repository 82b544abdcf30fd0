// Op features in the GUI (issue 14): a CPU capture's FLOPs and bytes reach the breakdown
// table (FLOPs, FLOP/s, B/s columns, hidden for runs without features) and the details panel
// (the selected kernel's launch, a selected scope, the whole run), with the same sums as the
// file's launches.
#include "app/gui/breakdown/breakdownmodel.h"
#include "app/gui/breakdown/breakdownsource.h"
#include "app/gui/core/rundata.h"
#include "app/gui/core/viewstate.h"
#include "app/gui/widgets/detailspanel.h"
#include "analysis/activitystats.h"
#include "analysis/breakdown.h"
#include "render/textformat.h"
#include "storage/database.h"
#include "storage/reader.h"
#include "tests/support/testsupport.h"

#include <QTest>
#include <QTreeWidget>

using namespace wt;
using namespace wt::gui;

namespace {

// The value of the first item labelled `key` under `parent` (depth first), empty if none.
QString valueOf(QTreeWidgetItem* parent, const QString& key)
{
    for (int i = 0; i < parent->childCount(); ++i) {
        QTreeWidgetItem* c = parent->child(i);
        if (c->text(0).startsWith(key))
            return c->text(1);
        const QString v = valueOf(c, key);
        if (!v.isEmpty())
            return v;
    }
    return {};
}

}  // namespace

class TestOpCosts : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        m_path = test::tempPath("opcosts.wt");
        auto r = test::runCli({QStringLiteral("capture"), QStringLiteral("--workload"), QStringLiteral("gcn"),
                               QStringLiteral("--preset"), QStringLiteral("tiny"), QStringLiteral("--backend"),
                               QStringLiteral("cpu"), QStringLiteral("--steps"), QStringLiteral("2"), QStringLiteral("-o"),
                               QString::fromStdString(m_path)});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        Database db(m_path, OpenMode::ReadOnly);
        Reader reader(db);
        m_runId = reader.runs().at(0).id;
        for (const LaunchFeatures& l : reader.launches(m_runId)) {
            m_flops += l.flops;
            m_bytes += l.bytesRead + l.bytesWritten;
            ++m_launches;
        }
        QVERIFY(m_launches > 50);
        QVERIFY(m_flops > 0);
    }

    void runCostsMatchTheFile()
    {
        auto run = loadRun(m_path, m_runId);
        QVERIFY(run);
        const RunData::Cost all = run->costUnder(kNone);
        QCOMPARE(all.launches, m_launches);
        QCOMPARE(all.flops, m_flops);
        QCOMPARE(all.bytes, m_bytes);
        // The step instances together hold every launch; each step about half.
        double stepFlops = 0;
        int steps = 0;
        for (uint32_t i = 0; i < run->instances.size(); ++i)
            if (run->instances.parent[i] == kNone) {
                const RunData::Cost c = run->costUnder(i);
                QVERIFY(c.launches > 0);
                stepFlops += c.flops;
                ++steps;
            }
        QCOMPARE(steps, 2);
        QVERIFY(std::abs(stepFlops - m_flops) <= 1e-9 * m_flops);
    }

    void tableShowsRates()
    {
        auto run = loadRun(m_path, m_runId);
        auto source = BreakdownSource::load(std::shared_ptr<const RunData>(run));
        BreakdownModel model;
        model.setResult(source->compute({GroupBy::Layer, {}}));
        QVERIFY(model.hasCost());
        double flops = 0;
        for (int row = 0; row < model.rowCount(); ++row) {
            const BreakdownRow& r = model.result().rows[size_t(row)];
            QVERIFY(r.hasCost);
            flops += r.flops;
            const QString rate = model.index(row, BreakdownModel::FlopRateColumn).data().toString();
            QCOMPARE(rate, QString::fromStdString(formatQuantity(r.flops / (double(r.timeNs) * 1e-9), "FLOP/s")));
            QCOMPARE(model.index(row, BreakdownModel::FlopsColumn).data(BreakdownModel::SortRole).toDouble(), r.flops);
        }
        QVERIFY(std::abs(flops - m_flops) <= 1e-9 * m_flops);   // the layers partition the launches
        QVERIFY(model.toCsv().section(QLatin1Char('\n'), 0, 0).endsWith(QStringLiteral(",flops,bytes,flop_per_s,bytes_per_s")));
    }

    void detailsShowWork()
    {
        auto run = loadRun(m_path, m_runId);
        ViewState state;
        state.setRun(run);
        DetailsPanel panel(&state);
        // Nothing selected: the run, with the work of all its launches.
        QTreeWidgetItem* top = panel.tree()->topLevelItem(0);
        QVERIFY(top);
        QCOMPARE(valueOf(top, QStringLiteral("work (")).section(QLatin1Char(','), 0, 0),
                 QString::fromStdString(formatQuantity(m_flops, "FLOP")));
        // One definition of the achieved rate (docs/definitions.md): the run's is the breakdown's
        // by kind, row "kernel" (the kernel launches' FLOPs over the summed kernel time), the
        // figure `wheretime stats --group-by kind` prints.
        const Breakdown kinds = computeBreakdown(*run->profile, {GroupBy::Kind, {}});
        const Group* kernels = nullptr;
        for (const Group& g : kinds.groups)
            if (g.path == "kernel")
                kernels = &g;
        QVERIFY(kernels && kernels->hasCost);
        QCOMPARE(kernels->timeNs, run->profile->run.kernelTimeNs);
        QCOMPARE(valueOf(top, QStringLiteral("achieved")).section(QLatin1Char(','), 0, 0),
                 QString::fromStdString(formatQuantity(kernels->flopPerS(), "FLOP/s")));
        // A scope (the first step): its kernel launches over its summed kernel time, not its span.
        uint32_t step = 0;
        while (step < run->instances.size() && run->instances.parent[step] != kNone)
            ++step;
        QVERIFY(step < run->instances.size());
        state.setSelection(Selection{Selection::Scope, 0, step});
        const RunData::Cost sc = run->costUnder(step);
        const int64_t stepKernelNs = wt::kernelTimeUnder(run->activities(), step);
        QVERIFY(stepKernelNs > 0);
        QCOMPARE(valueOf(panel.tree()->topLevelItem(0), QStringLiteral("achieved")).section(QLatin1Char(','), 0, 0),
                 QString::fromStdString(formatQuantity(wt::achievedPerS(sc.kernelFlops, stepKernelNs), "FLOP/s")));
        state.setSelection(Selection{});
        // A GEMM kernel: its own launch, shape and achieved rate over its duration.
        bool found = false;
        for (uint32_t t = 0; t < run->tracks.size() && !found; ++t) {
            const TrackData& track = run->tracks[t];
            for (size_t i = 0; i < track.size() && !found; ++i) {
                if (!run->name(track.nameId[i]).startsWith(QStringLiteral("sgemm")) || track.instance[i] == kNone)
                    continue;
                const RunData::Cost c = run->costUnder(track.instance[i]);
                if (c.launches != 1 || c.m == 0)
                    continue;
                found = true;
                state.setSelection(Selection{Selection::Activity, t, uint32_t(i)});
                QTreeWidgetItem* k = panel.tree()->topLevelItem(0);
                QVERIFY(valueOf(k, QStringLiteral("work (this launch)")).startsWith(
                    QString::fromStdString(formatQuantity(c.flops, "FLOP"))));
                QCOMPARE(valueOf(k, QStringLiteral("GEMM shape")), QStringLiteral("m %1, n %2, k %3").arg(c.m).arg(c.n).arg(c.k));
                // The op's kernel launches over the op's summed kernel time: with one launch that
                // ran as one kernel, this kernel's duration.
                const int64_t ns = wt::kernelTimeUnder(run->activities(), track.instance[i]);
                QVERIFY(ns >= int64_t(track.durationNs[i]));
                QCOMPARE(valueOf(k, QStringLiteral("achieved")).section(QLatin1Char(','), 0, 0),
                         QString::fromStdString(formatQuantity(wt::achievedPerS(c.kernelFlops, ns), "FLOP/s")));
            }
        }
        QVERIFY(found);
    }

private:
    std::string m_path;
    int64_t m_runId = 0;
    double m_flops = 0, m_bytes = 0;
    int64_t m_launches = 0;
};

QTEST_MAIN(TestOpCosts)
#include "tst_opcosts.moc"
