// The scaling chart's noise over a hand-made sweep and twin: the time chart draws each measured
// point's 95% interval (the table's ci_low_ns / ci_high_ns) as an error bar of the right length,
// none on predicted lines or on the share chart, a point without an interval a bar of zero; a
// predicted point outside its measured interval is ringed (one legend entry), one inside is not;
// the tooltip says the interval and inside/outside.
#include "analysis/sweeptable.h"
#include "app/gui/variants/scalingplot.h"

#include <QTest>

using namespace wt;
using namespace wt::gui;

namespace {

SweepPoint point(const std::string& value, int64_t run, double ns, double stepNs, std::optional<std::pair<double, double>> ci)
{
    SweepPoint p;
    p.value = value;
    p.runId = run;
    p.present = true;
    p.ns = ns;
    p.stepNs = stepNs;
    p.share = ns / stepNs;
    p.repeatRunIds = {run};
    p.stats.n = ci ? 6 : 2;
    p.stats.mean = ns;
    if (ci) {
        MeanInterval m;
        m.low = ci->first;
        m.high = ci->second;
        m.halfWidth = (m.high - m.low) / 2;
        m.df = 5;
        p.interval = m;
    }
    return p;
}

// hidden 8: 100 us in [90, 110] us; 16: 200 us in [195, 205] us; 32: 2 samples, no interval.
SweepTable measured()
{
    SweepTable t;
    t.sweep.id = "m";
    t.sweep.key = "hidden";
    t.sweep.values = {"8", "16", "32"};
    t.sweep.runIds = {1, 2, 3};
    t.sweep.workload = "gcn";
    t.sweep.preset = "tiny";
    t.sweep.backend = "cpu";
    t.xKey = "hidden";
    t.numeric = true;
    t.xValues = t.sweep.values;
    t.layers = {"softmax"};
    t.series = {{"softmax", "softmax", "",
                 {point("8", 1, 100e3, 400e3, {{90e3, 110e3}}), point("16", 2, 200e3, 800e3, {{195e3, 205e3}}),
                  point("32", 3, 300e3, 900e3, std::nullopt)}}};
    return t;
}

// Predicted 105 us at 8 (inside), 180 us at 16 (outside), 310 us at 32 (no interval: none).
SweepTable predicted()
{
    SweepTable t = measured();
    t.sweep.id = "p";
    t.sweep.backend = "model";
    t.series = {{"softmax", "softmax", "",
                 {point("8", 11, 105e3, 400e3, std::nullopt), point("16", 12, 180e3, 800e3, std::nullopt),
                  point("32", 13, 310e3, 900e3, std::nullopt)}}};
    for (SweepPoint& p : t.series[0].points)
        p.stats = {};
    return t;
}

}  // namespace

class TestScalingNoise : public QObject {
    Q_OBJECT
private slots:
    void errorBarsAndOutsideMarks();
};

void TestScalingNoise::errorBarsAndOutsideMarks()
{
    const SweepTable m = measured(), p = predicted();
    const ScalingChartData d = scalingChartData(m, QStringLiteral("x.wt"), QString(), &p);
    QCOMPARE(d.lines.size(), size_t(2));
    QVERIFY(!d.lines[0].predicted && d.lines[1].predicted);
    QCOMPARE(*d.lines[0].points[0].ciLowNs, 90e3);
    QVERIFY(!d.lines[0].points[2].ciLowNs);
    QCOMPARE(*d.lines[1].points[0].inside, true);
    QCOMPARE(*d.lines[1].points[1].inside, false);
    QVERIFY(!d.lines[1].points[2].inside);

    ScalingPlot time(ScalingPlot::Kind::Time);
    time.resize(900, 600);
    time.setData(d);
    time.replot();
    QCPErrorBars* bars = time.errorBars(0);
    QVERIFY(bars);
    QVERIFY(!time.errorBars(1));   // predicted: no noise
    QCOMPARE(bars->dataCount(), 3);
    // The axis is in us (largest 310 us): bars of 10 us, 5 us, and 0 where there is no interval.
    const auto data = bars->data();
    QVERIFY(qAbs(data->at(0).errorMinus - 10.0) < 1e-9 && qAbs(data->at(0).errorPlus - 10.0) < 1e-9);
    QVERIFY(qAbs(data->at(1).errorMinus - 5.0) < 1e-9 && qAbs(data->at(1).errorPlus - 5.0) < 1e-9);
    QCOMPARE(data->at(2).errorMinus, 0.0);
    QCOMPARE(data->at(2).errorPlus, 0.0);
    QCPGraph* outside = time.outsideMarks();
    QVERIFY(outside);
    QCOMPARE(outside->dataCount(), 1);
    QCOMPARE(outside->data()->at(0)->key, 16.0);
    QCOMPARE(outside->data()->at(0)->value, 180.0);
    bool legendEntry = false;
    for (int i = 0; i < time.legend->itemCount(); ++i)
        if (auto* item = qobject_cast<QCPPlottableLegendItem*>(time.legend->item(i)))
            legendEntry |= item->plottable() == outside;
    QVERIFY(legendEntry);

    ScalingPlot share(ScalingPlot::Kind::Share);
    share.setData(d);
    QVERIFY(!share.errorBars(0));
    QVERIFY(!share.outsideMarks());

    // Without a twin nothing is ringed; the bars stay.
    ScalingPlot alone(ScalingPlot::Kind::Time);
    alone.setData(scalingChartData(m, QStringLiteral("x.wt"), QString()));
    QVERIFY(alone.errorBars(0));
    QVERIFY(!alone.outsideMarks());

    const QString measuredTip = scalingPointText(d, 0, 1);
    QVERIFY2(measuredTip.contains(QStringLiteral("95% interval")) && measuredTip.contains(QStringLiteral("outside")), qPrintable(measuredTip));
    QVERIFY(scalingPointText(d, 1, 0).contains(QStringLiteral("prediction inside the measured 95% interval")));
    QVERIFY(scalingPointText(d, 0, 2).contains(QStringLiteral("no interval (fewer than 3 samples)")));
}

QTEST_MAIN(TestScalingNoise)
#include "tst_scalingnoise.moc"
