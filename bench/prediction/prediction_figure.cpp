// prediction_figure FILE OUT.png: for every run of FILE tagged by a sweep (sweep_key/sweep_value
// metadata, as `wheretime predict --sweep` writes), the share of the "softmax" layer in the
// run's kernel time (analysis/breakdown's layer grouping, what `wheretime stats` prints),
// drawn against the swept value (log2 axis), one line per softmax variant; prints the table as
// Markdown on stdout. Runs offscreen.
#include "analysis/breakdown.h"
#include "analysis/runprofile.h"
#include "storage/database.h"
#include "storage/reader.h"

#include <QApplication>
#include <qcustomplot.h>

#include <cstdio>
#include <map>

using namespace wt;

int main(int argc, char** argv)
{
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    if (argc != 3) {
        std::fprintf(stderr, "usage: prediction_figure FILE OUT.png\n");
        return 2;
    }
    std::map<std::string, std::map<double, double>> series;   // variant -> value -> share
    std::string key, device;
    try {
        Database db(argv[1], OpenMode::ReadOnly);
        Reader reader(db);
        for (const RunInfo& run : reader.runs()) {
            std::string value;
            for (const auto& [k, v] : reader.metadata(run.id)) {
                if (k == "sweep_key")
                    key = v;
                if (k == "sweep_value")
                    value = v;
            }
            if (value.empty())
                continue;
            auto profile = RunProfile::load(reader, run.id);
            Breakdown b = computeBreakdown(*profile, GroupLevel{GroupBy::Layer, {}, kDefaultScopeDepth});
            double share = 0;
            for (const Group& g : b.groups)
                if (g.name == "softmax")
                    share = g.share;
            series[run.variant][std::stod(value)] = share;
            device = run.device;
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "prediction_figure: %s\n", e.what());
        return 1;
    }
    if (series.empty()) {
        std::fprintf(stderr, "prediction_figure: no sweep runs in %s\n", argv[1]);
        return 1;
    }
    QCustomPlot plot;
    plot.resize(900, 560);
    plot.legend->setVisible(true);
    plot.plotLayout()->insertRow(0);
    plot.plotLayout()->addElement(
        0, 0, new QCPTextElement(&plot, QStringLiteral("Predicted softmax share of a GCN training step (%1)").arg(QString::fromStdString(device)),
                                 QFont(QStringLiteral("sans"), 11, QFont::Bold)));
    plot.xAxis->setScaleType(QCPAxis::stLogarithmic);
    QSharedPointer<QCPAxisTickerLog> ticker(new QCPAxisTickerLog);
    ticker->setLogBase(2);
    plot.xAxis->setTicker(ticker);
    plot.xAxis->setNumberFormat(QStringLiteral("f"));
    plot.xAxis->setNumberPrecision(0);
    plot.xAxis->setLabel(QString::fromStdString(key.empty() ? "swept value" : key));
    plot.yAxis->setLabel(QStringLiteral("softmax layer share of step time (%)"));
    const QColor colours[] = {QColor(31, 119, 180), QColor(255, 127, 14), QColor(44, 160, 44), QColor(214, 39, 40),
                              QColor(148, 103, 189)};
    int i = 0;
    double lo = 1e300, hi = 0;
    std::printf("| %s |", key.c_str());
    for (const auto& [variant, points] : series)
        std::printf(" %s |", variant.c_str());
    std::printf("\n|---|");
    for (size_t k = 0; k < series.size(); ++k)
        std::printf("---|");
    std::printf("\n");
    std::map<double, std::map<std::string, double>> rows;
    for (const auto& [variant, points] : series) {
        QCPGraph* g = plot.addGraph();
        g->setName(QString::fromStdString(variant));
        g->setPen(QPen(colours[i++ % 5], 2));
        g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 6));
        for (const auto& [x, share] : points) {
            g->addData(x, share * 100);
            lo = std::min(lo, x);
            hi = std::max(hi, x);
            rows[x][variant] = share;
        }
    }
    for (const auto& [x, byVariant] : rows) {
        std::printf("| %.0f |", x);
        for (const auto& [variant, points] : series)
            std::printf(" %.1f%% |", byVariant.count(variant) ? byVariant.at(variant) * 100 : 0.0);
        std::printf("\n");
    }
    plot.xAxis->setRange(lo / 1.3, hi * 1.3);
    plot.yAxis->setRange(0, 100);
    if (!plot.savePng(QString::fromUtf8(argv[2]), 900, 560)) {
        std::fprintf(stderr, "prediction_figure: cannot write %s\n", argv[2]);
        return 1;
    }
    return 0;
}
