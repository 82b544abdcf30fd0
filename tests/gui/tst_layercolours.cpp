// One palette (issue 27 item 2): every layer of a run gets its own colour, for every bundled
// workload and preset (the ops a model lists, no run needed), and a layer keeps its colour in
// every view of a real CPU capture: timeline (RunData), breakdown rows and pie slices, the
// headless report's source, and the sweep view's lines.
#include "analysis/sweep.h"
#include "app/gui/breakdown/breakdownsource.h"
#include "app/gui/core/layerpalette.h"
#include "app/gui/core/rundata.h"
#include "app/gui/variants/scalingplot.h"
#include "kernels/model.h"
#include "storage/database.h"
#include "storage/reader.h"
#include "tests/support/testsupport.h"

#include <QFileInfo>
#include <QTest>

#include <map>
#include <set>

using namespace wt;
using namespace wt::gui;

namespace {

// The layer of an op: its scope path is step/phase/layer/op.
std::set<std::string> layersOf(const std::vector<kernels::OpInfo>& ops)
{
    std::set<std::string> out;
    for (const kernels::OpInfo& op : ops) {
        const QStringList parts = QString::fromStdString(op.scope).split(QLatin1Char('/'));
        if (parts.size() >= 3)
            out.insert(parts[2].toStdString());
    }
    return out;
}

// Distinct and apart: no two layers share a colour or come within 50 of each other.
QString clash(const LayerPalette& palette, const std::set<std::string>& layers)
{
    for (auto a = layers.begin(); a != layers.end(); ++a)
        for (auto b = std::next(a); b != layers.end(); ++b)
            if (LayerPalette::distance(palette.color(*a), palette.color(*b)) < 50)
                return QStringLiteral("%1 and %2: #%3 vs #%4")
                    .arg(QString::fromStdString(*a), QString::fromStdString(*b))
                    .arg(palette.color(*a) & 0xffffff, 6, 16, QLatin1Char('0'))
                    .arg(palette.color(*b) & 0xffffff, 6, 16, QLatin1Char('0'));
    return {};
}

int64_t newestRun(const QString& file)
{
    Database db(file.toStdString(), OpenMode::ReadOnly);
    return Reader(db).resolveRun("");
}

}  // namespace

class TestLayerColours : public QObject {
    Q_OBJECT
private slots:
    void paletteIsApart()
    {
        for (int i = 0; i < LayerPalette::kCount; ++i)
            for (int j = i + 1; j < LayerPalette::kCount; ++j)
                QVERIFY2(LayerPalette::distance(LayerPalette::colorAt(i), LayerPalette::colorAt(j)) >= 50,
                         qPrintable(QStringLiteral("colours %1 and %2").arg(i).arg(j)));
    }

    void assignmentResolvesCollisions()
    {
        // softmax and conv4 hash to one slot: the shared rgb(134,188,182).
        QCOMPARE(LayerPalette::indexOf("softmax"), LayerPalette::indexOf("conv4"));
        const LayerPalette p({"conv4", "softmax", "embedding"});
        QVERIFY(p.color("softmax") != p.color("conv4"));
        // Only the set counts, not the order; the no-scope names stay neutral; others hash.
        const LayerPalette q({"embedding", "softmax", "conv4", "softmax"});
        for (const char* n : {"conv4", "softmax", "embedding"})
            QCOMPARE(q.color(n), p.color(n));
        QCOMPARE(p.color("(no scope)"), LayerPalette::neutral());
        QCOMPARE(p.color("sgemm_nt"), LayerPalette::hashColor("sgemm_nt"));
        // More layers than base colours: generated ones, still apart.
        std::set<std::string> many;
        for (int i = 0; i < 40; ++i)
            many.insert("layer" + std::to_string(i));
        const LayerPalette m({many.begin(), many.end()});
        QCOMPARE(m.layerCount(), many.size());
        QVERIFY2(clash(m, many).isEmpty(), qPrintable(clash(m, many)));
    }

    void everyBundledWorkloadHasDistinctLayerColours()
    {
        int checked = 0;
        for (const kernels::WorkloadInfo& w : kernels::workloads()) {
            for (const std::string& preset : kernels::presets()) {
                // Every softmax variant: a variant may add or rename layers.
                std::set<std::string> layers;
                for (const std::string& variant : kernels::variants()) {
                    try {
                        layers.merge(layersOf(kernels::Model::create(w.name, preset, variant, {})->listOps()));
                    } catch (const std::invalid_argument& e) {
                        qInfo("%s %s %s: %s", w.name.c_str(), preset.c_str(), variant.c_str(), e.what());
                    }
                }
                if (layers.empty())
                    continue;
                QVERIFY2(layers.size() >= 3, qPrintable(QString::fromStdString(w.name + " " + preset)));
                const LayerPalette palette({layers.begin(), layers.end()});
                const QString c = clash(palette, layers);
                QVERIFY2(c.isEmpty(), qPrintable(QString::fromStdString(w.name + " " + preset + ": ") + c));
                ++checked;
            }
        }
        QVERIFY2(checked >= int(kernels::workloads().size()), qPrintable(QString::number(checked)));
    }

    void aLayerHasOneColourInEveryView()
    {
        const QString file = QFileInfo(QString::fromStdString(test::tempPath("layercolours.wt"))).absoluteFilePath();
        // A sweep of two tiny GCN runs: a capture and the sweep view's lines from the same file.
        auto c = test::runCli({QStringLiteral("capture"), QStringLiteral("--workload"), QStringLiteral("gcn"), QStringLiteral("--preset"),
                               QStringLiteral("tiny"), QStringLiteral("--backend"), QStringLiteral("cpu"), QStringLiteral("--steps"),
                               QStringLiteral("2"), QStringLiteral("--sweep"), QStringLiteral("hidden=8,16"), QStringLiteral("-o"), file},
                              300000);
        QVERIFY2(c.exitCode == 0, qPrintable(c.err));
        const int64_t runId = newestRun(file);
        auto run = loadRun(file.toStdString(), runId);

        // The timeline: each layer node's colour; all layers of the run apart.
        std::map<std::string, QRgb> timeline;
        for (const ScopeNodeData& n : run->nodes)
            if (n.level == QStringLiteral("layer"))
                timeline[n.name.toStdString()] = n.color;
        QVERIFY2(timeline.size() >= 4, "layers of a gcn capture");
        QVERIFY(timeline.count("softmax") && timeline.count("embedding"));
        std::set<std::string> names;
        for (const auto& [name, color] : timeline)
            names.insert(name);
        QVERIFY2(clash(run->palette, names).isEmpty(), qPrintable(clash(run->palette, names)));

        // The breakdown table and pie of the loaded run, and the report's (headless) source.
        auto check = [&](const BreakdownSource& source, const char* where) {
            const BreakdownResult r = source.compute(BreakdownLevel{});
            int seen = 0;
            for (const BreakdownRow& row : r.rows)
                if (timeline.count(row.name)) {
                    QVERIFY2(row.color == timeline[row.name], qPrintable(QStringLiteral("%1: %2").arg(QLatin1String(where), QString::fromStdString(row.name))));
                    ++seen;
                }
            QCOMPARE(seen, int(timeline.size()));
            for (const PieSlice& s : pieSlices(r, 0.0))
                if (!s.other && timeline.count(s.name))
                    QCOMPARE(s.color, timeline[s.name]);
        };
        check(*BreakdownSource::load(run), "breakdown");
        check(*BreakdownSource::load(file.toStdString(), runId), "report");

        // The sweep view: one line per layer, in the layer's colour.
        Database db(file.toStdString(), OpenMode::ReadOnly);
        Reader reader(db);
        const std::vector<SweepInfo> sweeps = listSweeps(reader);
        QVERIFY(!sweeps.empty());
        const SweepTable t = loadSweep(reader, sweeps.front().id);
        const ScalingChartData d = scalingChartData(t, file, QString());
        int lines = 0;
        for (const ScalingLine& l : d.lines)
            if (timeline.count(l.layer.toStdString())) {
                QVERIFY2(l.color.rgb() == timeline[l.layer.toStdString()], qPrintable(l.layer));
                ++lines;
            }
        QCOMPARE(lines, int(timeline.size()));
    }
};

QTEST_MAIN(TestLayerColours)
#include "tst_layercolours.moc"
