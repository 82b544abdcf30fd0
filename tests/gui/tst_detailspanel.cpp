// The details panel as analysis tables (issue 23) and what it says of CPU runs and single-rank
// imports (issue 27 items 6, 7): a CPU capture's kernel shows no grid, block, registers or
// shared memory and its scopes no "GPU" span; the run summary and a range summary are
// analysis's tables, whose export is `wheretime stats --summary [--range] --csv` byte for
// byte; the device, step and rank figures come from a worker, not the GUI thread; a Kineto trace that lists
// eight GPUs of which one ran kernels has one rank, and no per-rank table.
#include "app/gui/breakdown/breakdownsource.h"
#include "app/gui/core/rundata.h"
#include "app/gui/core/tablemodel.h"
#include "app/gui/core/viewstate.h"
#include "app/gui/widgets/detailspanel.h"
#include "app/gui/widgets/timelinewidget.h"
#include "analysis/gputime.h"
#include "analysis/kernelcategory.h"
#include "analysis/summarytable.h"
#include "app/gui/core/timeformat.h"
#include "storage/database.h"
#include "storage/reader.h"
#include "tests/support/testsupport.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <algorithm>
#include <QTableView>
#include <QTest>
#include <QTreeWidget>

using namespace wt;
using namespace wt::gui;

namespace {

// Labels of the children of a top-level item, with their values.
QMap<QString, QString> fieldsOf(QTreeWidgetItem* top)
{
    QMap<QString, QString> out;
    for (int i = 0; top && i < top->childCount(); ++i)
        out.insert(top->child(i)->text(0), top->child(i)->text(1));
    return out;
}

QTreeWidgetItem* topItem(const DetailsPanel& panel, const QString& label)
{
    for (int i = 0; i < panel.tree()->topLevelItemCount(); ++i)
        if (panel.tree()->topLevelItem(i)->text(0) == label)
            return panel.tree()->topLevelItem(i);
    return nullptr;
}

}  // namespace

class TestDetailsPanel : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        m_path = test::tempPath("detailspanel-cpu.wt");
        auto r = test::runCli({QStringLiteral("capture"), QStringLiteral("--workload"), QStringLiteral("gcn"),
                               QStringLiteral("--preset"), QStringLiteral("tiny"), QStringLiteral("--backend"),
                               QStringLiteral("cpu"), QStringLiteral("--steps"), QStringLiteral("3"), QStringLiteral("-o"),
                               QString::fromStdString(m_path)});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        Database db(m_path, OpenMode::ReadOnly);
        Reader reader(db);
        m_runId = reader.runs().at(0).id;
    }

    void cpuKernelShowsWhatTheCpuHas()
    {
        auto run = loadRun(m_path, m_runId);
        QVERIFY(run);
        QVERIFY(isCpuDevice(run->run.device));
        ViewState state;
        state.setRun(run);
        DetailsPanel panel(&state);
        // The figures are a worker's: none yet when the panel has just seen the run.
        QVERIFY(!panel.figures());
        QVERIFY(panel.devicesTable()->isHidden());
        panel.waitForFigures();
        QVERIFY(panel.figures());
        size_t track = run->tracks.size();
        for (size_t k = 0; k < run->tracks.size() && track == run->tracks.size(); ++k)
            if (run->tracks[k].kind == TrackKind::Kernel && run->tracks[k].size() > 0)
                track = k;
        QVERIFY(track < run->tracks.size());
        state.setSelection(Selection{Selection::Activity, uint32_t(track), 0});
        QTreeWidgetItem* kernel = topItem(panel, QStringLiteral("Kernel"));
        QVERIFY(kernel);
        const QMap<QString, QString> f = fieldsOf(kernel);
        for (const char* gpuOnly : {"grid", "block", "registers", "static shared memory", "dynamic shared memory"})
            QVERIFY2(!f.contains(QString::fromLatin1(gpuOnly)), gpuOnly);
        QVERIFY(f.value(QStringLiteral("device")).startsWith(QStringLiteral("CPU")));
        for (const char* field : {"track", "scope", "start", "duration"})
            QVERIFY2(f.contains(QString::fromLatin1(field)), field);
        // The timeline's tooltip of that kernel: no launch configuration either.
        TimelineWidget timeline(&state);
        timeline.resize(1000, 400);
        timeline.fit();   // the selected kernel fills the plot
        int rowY = -1;
        for (const Row& r : timeline.layout().rows())
            if (r.kind == Row::Track && r.index == int(track))
                rowY = r.y + r.height / 2;
        QVERIFY(rowY >= 0);
        const QString tip = timeline.toolTipAt(QPoint(timeline.plotRect().center().x(), timeline.plotRect().top() + rowY - timeline.scrollY()));
        QVERIFY2(tip.contains(QStringLiteral("duration")), qPrintable(tip));
        QVERIFY2(!tip.contains(QStringLiteral("grid")) && !tip.contains(QStringLiteral("registers")), qPrintable(tip));

        // A scope: its span without "GPU".
        uint32_t inst = kNone;
        for (uint32_t i = 0; i < run->instances.size() && inst == kNone; ++i)
            if (run->instances.hasSpan(i))
                inst = i;
        QVERIFY(inst != kNone);
        state.setSelection(Selection{Selection::Scope, 0, inst});
        const QMap<QString, QString> s = fieldsOf(topItem(panel, QStringLiteral("Scope")));
        QVERIFY(s.contains(QStringLiteral("start")) && s.contains(QStringLiteral("span")));
        for (const QString& k : s.keys())
            QVERIFY2(!k.contains(QStringLiteral("GPU")), qPrintable(k));

        // The run: the summary table's fields (steps of the capture, its CPU device).
        state.setSelection({});
        const QMap<QString, QString> r = fieldsOf(topItem(panel, QStringLiteral("Run")));
        QCOMPARE(r.value(QStringLiteral("steps")), QStringLiteral("3"));
        QVERIFY(r.value(QStringLiteral("device")).startsWith(QStringLiteral("CPU")));
        QVERIFY(!r.contains(QStringLiteral("devices")));   // one device: no count
        QCOMPARE(r.value(QStringLiteral("kernels")), QString::number(run->kernelCount));
        // The devices table: one CPU device, computed on the panel's worker.
        QVERIFY(panel.figures());
        QCOMPARE(panel.figures()->devices.size(), size_t(1));
        QCOMPARE(panel.devicesModel()->rowCount(), 1);
        QVERIFY(panel.ranksTable()->isHidden());
    }

    // The run summary and a range summary: the panel's CSV is the CLI's, byte for byte.
    void summariesAreTheClisTables()
    {
        auto run = loadRun(m_path, m_runId);
        ViewState state;
        state.setRun(run);
        DetailsPanel panel(&state);
        panel.waitForFigures();
        QString err;
        const QString file = QString::fromStdString(m_path);
        const QByteArray runCli = test::cliBytes({QStringLiteral("stats"), file, QStringLiteral("--summary"), QStringLiteral("--csv")}, &err);
        QVERIFY2(!runCli.isEmpty(), qPrintable(err));
        QVERIFY2(runCli == panel.runCsv().toUtf8(), qPrintable(test::firstDifference(runCli, panel.runCsv().toUtf8())));
        QCOMPARE(panel.rangeModel()->rowCount(), 0);

        // A range in the middle of the run, in ns from its time 0 (the CLI's --range).
        // It starts at the middle kernel, so it holds kernels however the CPU's timing fell.
        const TrackData* kernels = nullptr;
        for (const TrackData& t : run->tracks)
            if (!kernels && t.kind == TrackKind::Kernel && t.size() > 0)
                kernels = &t;
        QVERIFY(kernels);
        const int64_t t0 = kernels->startNs[kernels->size() / 2];
        const int64_t t1 = t0 + (run->spanEndNs - run->spanStartNs) / 4;
        state.setRangeSelection(double(t0), double(t1));
        QVERIFY(panel.rangeModel()->rowCount() > 2);   // the range, its layers, its kernels
        const QByteArray rangeCli = test::cliBytes({QStringLiteral("stats"), file, QStringLiteral("--summary"), QStringLiteral("--range"),
                                                    QStringLiteral("%1:%2").arg(t0).arg(t1), QStringLiteral("--csv")}, &err);
        QVERIFY2(!rangeCli.isEmpty(), qPrintable(err));
        QVERIFY2(rangeCli == panel.rangeCsv().toUtf8(), qPrintable(test::firstDifference(rangeCli, panel.rangeCsv().toUtf8())));
        // The tree shows the table's cells.
        const TableModel* m = panel.rangeModel();
        const QMap<QString, QString> f = fieldsOf(topItem(panel, QStringLiteral("Range")));
        QCOMPARE(f.value(QStringLiteral("kernels")), m->data(m->index(0, m->columnOf("count"))).toString());
        QCOMPARE(f.value(QStringLiteral("kernel time")), m->data(m->index(0, m->columnOf("time_ns"))).toString());
        QCOMPARE(m->data(m->index(0, m->columnOf("start_ns")), TableModel::RawRole).toLongLong(), t0);
        // The JSON is the same table.
        const QByteArray json = test::cliBytes({QStringLiteral("stats"), file, QStringLiteral("--summary"), QStringLiteral("--range"),
                                                QStringLiteral("%1:%2").arg(t0).arg(t1), QStringLiteral("--json")}, &err);
        QVERIFY(json.startsWith("{\"table\":\"range\""));
    }

    void oneRankOfAnEightGpuTrace()
    {
        const QString trace = test::sharedTrace("kineto_v100_ns-resolution.pt.trace.json.gz");
        if (trace.isEmpty()) {
            if (test::inCi())
                QFAIL("shared trace missing");
            QSKIP("shared trace missing");
        }
        const QString out = QString::fromStdString(test::tempPath("detailspanel-kineto.wt"));
        QFile::remove(out);
        auto r = test::runCli({QStringLiteral("import"), trace, QStringLiteral("-o"), out});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        auto run = loadRun(out.toStdString(), 1);
        QVERIFY(run->devices.size() > 1);   // the trace's deviceProperties list every GPU
        ViewState state;
        state.setRun(run);
        DetailsPanel panel(&state);
        panel.waitForFigures();
        QVERIFY(panel.figures());
        QCOMPARE(panel.figures()->ranks.size(), size_t(1));
        QCOMPARE(panel.figures()->steps.size(), size_t(5));
        QVERIFY(panel.ranksTable()->isHidden());
        QCOMPARE(fieldsOf(topItem(panel, QStringLiteral("Run"))).value(QStringLiteral("steps")), QStringLiteral("5"));
        auto dev = test::runCli({QStringLiteral("stats"), out, QStringLiteral("--group-by"), QStringLiteral("device"), QStringLiteral("--json")});
        QCOMPARE(dev.exitCode, 0);
        QCOMPARE(dev.out.count(QStringLiteral("\"device_id\"")), 1);
    }

    // Issue 26: the run's launch latency in the details (HTA's launch statistics) is the
    // CLI's `stats --json` launch_latency, computed here from the loaded run's joins.
    void launchLatencyIsTheClis_data()
    {
        QTest::addColumn<QString>("file");
        QTest::newRow("nsys two processes") << "nsys-2026.2_h100x2_fastvideo-1s.sqlite";
        QTest::newRow("kineto nccl") << "kineto_a100_nccl_rank-0-of-2.json.gz";
    }
    void launchLatencyIsTheClis()
    {
        QFETCH(QString, file);
        const QString trace = test::sharedTrace(file);
        if (trace.isEmpty()) {
            if (test::inCi())
                QFAIL("shared trace missing");
            QSKIP("shared trace missing");
        }
        const QString out = QString::fromStdString(test::tempPath("detailspanel-latency.wt"));
        QFile::remove(out);
        auto r = test::runCli({QStringLiteral("import"), trace, QStringLiteral("-o"), out});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        auto stats = test::runCli({QStringLiteral("stats"), out, QStringLiteral("--json")});
        QCOMPARE(stats.exitCode, 0);
        const QJsonArray cli = QJsonDocument::fromJson(stats.out.toUtf8()).object().value(QStringLiteral("launch_latency")).toArray();
        QVERIFY(!cli.isEmpty());
        auto run = loadRun(out.toStdString(), 1);
        ViewState state;
        state.setRun(run);
        DetailsPanel panel(&state);
        panel.waitForFigures();
        const std::vector<LaunchLatency>& gui = panel.figures()->launchLatency;
        QCOMPARE(qsizetype(gui.size()), cli.size());
        for (size_t i = 0; i < gui.size(); ++i) {
            const QJsonObject o = cli[qsizetype(i)].toObject();
            QCOMPARE(gui[i].kernels, qint64(o.value(QStringLiteral("kernels")).toDouble()));
            QCOMPARE(gui[i].launched, qint64(o.value(QStringLiteral("launched")).toDouble()));
            QCOMPARE(gui[i].medianNs, qint64(o.value(QStringLiteral("median_ns")).toDouble()));
            QCOMPARE(gui[i].p95Ns, qint64(o.value(QStringLiteral("p95_ns")).toDouble()));
            QCOMPARE(gui[i].shortKernels, qint64(o.value(QStringLiteral("short_kernels")).toDouble()));
            QCOMPARE(gui[i].outliers, qint64(o.value(QStringLiteral("outliers")).toDouble()));
        }
        QVERIFY(gui[0].launched > 1000);
        QTreeWidgetItem* latency = nullptr;
        QTreeWidgetItem* top = topItem(panel, QStringLiteral("Run"));
        for (int i = 0; top && i < top->childCount(); ++i)
            if (top->child(i)->text(0) == QStringLiteral("launch latency"))
                latency = top->child(i);
        QVERIFY(latency);
        QCOMPARE(latency->text(1), QStringLiteral("median %1, p95 %2").arg(formatDuration(double(gui[0].medianNs)), formatDuration(double(gui[0].p95Ns))));
        QCOMPARE(fieldsOf(latency).value(QStringLiteral("joined")), QStringLiteral("%1 of %2 kernels").arg(gui[0].launched).arg(gui[0].kernels));
    }

    // Issue 27 item 8: on the Nsight import whose memory lane is full, the category pie, the
    // devices table and the timeline's lanes say the same thing (docs/definitions.md): per
    // device, memory = the union of the memory lane's activities and memory kernels, busy = the
    // union of everything, idle = span - busy; the pie's memory slice is the summed durations of
    // the memory lanes (and memory kernels), which with one memory stream per device is the sum
    // of the devices' memory unions.
    void nsightViewsAgree()
    {
        const QString trace = test::sharedTrace("nsys-2026.2_h100x2_fastvideo-1s.sqlite");
        if (trace.isEmpty()) {
            if (test::inCi())
                QFAIL("shared trace missing");
            QSKIP("shared trace missing");
        }
        const QString out = QString::fromStdString(test::tempPath("detailspanel-nsys.wt"));
        QFile::remove(out);
        auto r = test::runCli({QStringLiteral("import"), trace, QStringLiteral("-o"), out});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        auto run = loadRun(out.toStdString(), 1);
        ViewState state;
        state.setRun(run);
        DetailsPanel panel(&state);
        panel.waitForFigures();
        const TableModel* m = panel.devicesModel();
        QCOMPARE(m->rowCount(), 2);
        auto raw = [m](int row, const char* id) { return int64_t(m->data(m->index(row, m->columnOf(id)), TableModel::RawRole).toLongLong()); };
        auto unionOf = [](std::vector<std::pair<int64_t, int64_t>> v) {
            std::sort(v.begin(), v.end());
            int64_t total = 0, end = INT64_MIN;
            for (auto [a, b] : v) {
                if (a > end)
                    total += b - a;
                else if (b > end)
                    total += b - end;
                end = std::max(end, b);
            }
            return total;
        };
        int64_t memorySum = 0, memoryUnions = 0;
        for (int row = 0; row < 2; ++row) {
            const int32_t device = int32_t(raw(row, "id"));
            std::vector<std::pair<int64_t, int64_t>> all, memory;
            for (const TrackData& t : run->tracks) {
                if (t.deviceId != device)
                    continue;
                for (size_t i = 0; i < t.size(); ++i) {
                    const ActivityKind kind = t.kind == TrackKind::Kernel ? ActivityKind::Kernel : ActivityKind(t.activityKind[i]);
                    all.emplace_back(t.startNs[i], t.endNs(i));
                    if (kind != ActivityKind::Kernel ||
                        KernelCategories::builtinCategoryOf(kind, run->name(t.nameId[i]).toStdString()) == "memory") {
                        memory.emplace_back(t.startNs[i], t.endNs(i));
                        memorySum += t.endNs(i) - t.startNs[i];
                    }
                }
            }
            QCOMPARE(raw(row, "memory_ns"), unionOf(memory));
            QCOMPARE(raw(row, "busy_ns"), unionOf(all));
            QCOMPARE(raw(row, "idle_ns"), raw(row, "span_ns") - raw(row, "busy_ns"));
            QVERIFY(raw(row, "busy_ns") > 9 * raw(row, "idle_ns"));   // the full memory lane is busy time
            memoryUnions += raw(row, "memory_ns");
        }
        // The pie's memory slice: the memory lanes' summed time.
        const BreakdownResult cats = BreakdownSource::load(run)->compute({GroupBy::Category, {}});
        auto memoryRow = std::find_if(cats.rows.begin(), cats.rows.end(), [](const BreakdownRow& g) { return g.path == "memory"; });
        QVERIFY(memoryRow != cats.rows.end());
        QCOMPARE(memoryRow->timeNs, memorySum);
        QCOMPARE(memoryRow->timeNs, memoryUnions);   // one memory stream per device: nothing overlaps
    }

private:
    std::string m_path;
    int64_t m_runId = 0;
};

QTEST_MAIN(TestDetailsPanel)
#include "tst_detailspanel.moc"
