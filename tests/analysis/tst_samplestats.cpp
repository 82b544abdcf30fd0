// The statistics of analysis/samplestats.h against numbers worked out by hand: sample summaries,
// the t quantile against printed t tables and closed forms (df 1: Cauchy, df 2: (2p-1)/sqrt(2p(1-p))),
// Welch's interval on samples whose variances make the degrees of freedom whole, Holm's adjusted
// p-values, and the verdicts.
#include "analysis/samplestats.h"

#include <QTest>

#include <cmath>

using namespace wt;

class TestSampleStats : public QObject {
    Q_OBJECT
private slots:
    void summaries()
    {
        SampleStats s = summarize({14, 10, 12});
        QCOMPARE(s.n, size_t(3));
        QCOMPARE(s.mean, 12.0);
        QCOMPARE(s.stddev, 2.0);   // ((4 + 0 + 4) / 2)^0.5
        QCOMPARE(s.median, 12.0);
        QCOMPARE(s.min, 10.0);
        QCOMPARE(s.max, 14.0);
        s = summarize({4, 1, 3, 2});
        QCOMPARE(s.median, 2.5);   // even n: the mean of the middle two
        QVERIFY(std::abs(s.stddev - std::sqrt(5.0 / 3)) < 1e-12);
        s = summarize({7});
        QCOMPARE(s.stddev, 0.0);
        QCOMPARE(s.median, 7.0);
        QCOMPARE(summarize({}).n, size_t(0));
    }

    void tQuantile_data()
    {
        QTest::addColumn<double>("p");
        QTest::addColumn<double>("df");
        QTest::addColumn<double>("t");      // a printed t table (4 decimals)
        QTest::addColumn<double>("tol");
        QTest::newRow("0.975 df 1") << 0.975 << 1.0 << 12.7062 << 1e-4;
        QTest::newRow("0.95 df 1") << 0.95 << 1.0 << 6.3138 << 1e-4;
        QTest::newRow("0.975 df 2") << 0.975 << 2.0 << 4.3027 << 1e-4;
        QTest::newRow("0.975 df 3") << 0.975 << 3.0 << 3.1824 << 1e-4;
        QTest::newRow("0.975 df 4") << 0.975 << 4.0 << 2.7764 << 1e-4;
        QTest::newRow("0.975 df 5") << 0.975 << 5.0 << 2.5706 << 1e-4;
        QTest::newRow("0.975 df 10") << 0.975 << 10.0 << 2.2281 << 1e-4;
        QTest::newRow("0.975 df 30") << 0.975 << 30.0 << 2.0423 << 1e-4;
        QTest::newRow("0.975 df 100") << 0.975 << 100.0 << 1.9840 << 1e-4;
        QTest::newRow("0.995 df 10") << 0.995 << 10.0 << 3.1693 << 1e-4;
        QTest::newRow("0.90 df 5") << 0.90 << 5.0 << 1.4759 << 1e-4;
        QTest::newRow("0.025 df 5") << 0.025 << 5.0 << -2.5706 << 1e-4;
        QTest::newRow("0.975 normal") << 0.975 << 1e9 << 1.95996 << 1e-5;
    }
    void tQuantile()
    {
        QFETCH(double, p);
        QFETCH(double, df);
        QFETCH(double, t);
        QFETCH(double, tol);
        const double got = studentTQuantile(p, df);
        QVERIFY2(std::abs(got - t) < tol, qPrintable(QString::number(got, 'g', 10)));
        QVERIFY(std::abs(studentTCdf(got, df) - p) < 1e-10);
    }

    void tClosedForms()
    {
        const double pi = std::acos(-1.0);
        for (double p : {0.6, 0.8, 0.9, 0.975, 0.999}) {
            QVERIFY(std::abs(studentTQuantile(p, 1) - std::tan(pi * (p - 0.5))) < 1e-8 * std::tan(pi * (p - 0.5)));
            const double two = (2 * p - 1) / std::sqrt(2 * p * (1 - p));
            QVERIFY(std::abs(studentTQuantile(p, 2) - two) < 1e-9 * two);
        }
        // df 2: F(t) = 1/2 + t / (2 sqrt(2 + t^2)).
        for (double t : {-3.0, -0.5, 0.0, 1.0, 6.928203})
            QVERIFY(std::abs(studentTCdf(t, 2) - (0.5 + t / (2 * std::sqrt(2 + t * t)))) < 1e-12);
        // Fractional df (Welch's) sits between its whole neighbours.
        const double t4 = studentTQuantile(0.975, 4), t45 = studentTQuantile(0.975, 4.5), t5 = studentTQuantile(0.975, 5);
        QVERIFY(t5 < t45 && t45 < t4);
        QVERIFY(std::isnan(studentTQuantile(1.0, 3)));
        QVERIFY(std::isnan(studentTQuantile(0.5, 0)));
        // I_x(1, 1) = x; I_x(a, b) = 1 - I_{1-x}(b, a).
        QVERIFY(std::abs(incompleteBeta(0.3, 1, 1) - 0.3) < 1e-14);
        QVERIFY(std::abs(incompleteBeta(0.3, 2.5, 4) + incompleteBeta(0.7, 4, 2.5) - 1) < 1e-13);
    }

    // Equal n and equal variances: Welch's df is 2 (n - 1) = 4.
    void welchWholeDf()
    {
        const SampleStats a = summarize({10, 12, 14}), b = summarize({14, 16, 18});
        const auto w = welchInterval(a, b);
        QVERIFY(w);
        QCOMPARE(w->delta, 4.0);
        QVERIFY(std::abs(w->se - std::sqrt(8.0 / 3)) < 1e-12);     // (4/3 + 4/3)^0.5
        QVERIFY(std::abs(w->df - 4) < 1e-12);
        const double half = 2.7764451 * std::sqrt(8.0 / 3);        // t(0.975, 4) x se = 4.5339
        QVERIFY(std::abs(w->low - (4 - half)) < 1e-5);
        QVERIFY(std::abs(w->high - (4 + half)) < 1e-5);
        QVERIFY(w->low < 0 && w->high > 0);
        QVERIFY(w->p > 0.05 && w->p < 0.1);                         // t = 2.449 on 4 df: p = 0.0705
        QVERIFY(verdictOf(w, w->p) == Verdict::WithinNoise);
    }

    // One side constant: df = n_a - 1 = 2, where the t distribution has a closed form.
    void welchOneSideConstant()
    {
        const SampleStats a = summarize({10, 12, 14}), b = summarize({20, 20, 20});
        const auto w = welchInterval(a, b);
        QVERIFY(w);
        QCOMPARE(w->delta, 8.0);
        QVERIFY(std::abs(w->df - 2) < 1e-12);
        const double se = std::sqrt(4.0 / 3);
        const double t975 = 0.95 / std::sqrt(2 * 0.975 * 0.025);   // 4.302653
        QVERIFY(std::abs(w->low - (8 - t975 * se)) < 1e-9);         // 3.0317
        QVERIFY(std::abs(w->high - (8 + t975 * se)) < 1e-9);        // 12.968
        const double t = 8 / se;                                    // 6.928
        QVERIFY(std::abs(w->p - (1 - t / std::sqrt(2 + t * t))) < 1e-12);   // 0.0202
        QVERIFY(verdictOf(w, w->p) == Verdict::Slower);
        const auto back = welchInterval(b, a);
        QVERIFY(verdictOf(back, back->p) == Verdict::Faster);
        QVERIFY(std::abs(back->low + w->high) < 1e-9);
    }

    void welchEdges()
    {
        QVERIFY(!welchInterval(summarize({1, 2}), summarize({1, 2, 3})));   // n < 3: not enough
        QVERIFY(verdictOf(welchInterval(summarize({5}), summarize({1, 2, 3})), 0.0) == Verdict::NotEnoughSamples);
        const auto same = welchInterval(summarize({5, 5, 5}), summarize({5, 5, 5}));
        QVERIFY(same);
        QCOMPARE(same->p, 1.0);
        QVERIFY(verdictOf(same, same->p) == Verdict::WithinNoise);
        const auto moved = welchInterval(summarize({5, 5, 5}), summarize({6, 6, 6}));
        QCOMPARE(moved->low, 1.0);
        QCOMPARE(moved->high, 1.0);
        QVERIFY(verdictOf(moved, moved->p) == Verdict::Slower);
    }

    void holm()
    {
        // Sorted: 0.005 x 4 = 0.02, 0.01 x 3 = 0.03, 0.03 x 2 = 0.06, 0.04 x 1 = 0.04 -> 0.06 (monotone).
        const std::vector<double> adj = holmAdjust({0.01, 0.04, 0.03, 0.005});
        QCOMPARE(adj.size(), size_t(4));
        QVERIFY(std::abs(adj[0] - 0.03) < 1e-15);
        QVERIFY(std::abs(adj[1] - 0.06) < 1e-15);
        QVERIFY(std::abs(adj[2] - 0.06) < 1e-15);
        QVERIFY(std::abs(adj[3] - 0.02) < 1e-15);
        QCOMPARE(holmAdjust({0.5, 0.9}), (std::vector<double>{1.0, 1.0}));
        QVERIFY(holmAdjust({}).empty());
        // A rejection at 0.05 alone that Holm keeps as noise among many tests.
        const auto w = welchInterval(summarize({10, 12, 14}), summarize({20, 20, 20}));
        QVERIFY(verdictOf(w, holmAdjust({w->p, 0.5, 0.5, 0.5})[0]) == Verdict::WithinNoise);
    }

    void names()
    {
        QCOMPARE(toString(Verdict::NotEnoughSamples), std::string_view("not_enough_samples"));
        QCOMPARE(verdictLabel(Verdict::WithinNoise), std::string_view("within noise"));
    }
};

QTEST_APPLESS_MAIN(TestSampleStats)
#include "tst_samplestats.moc"
