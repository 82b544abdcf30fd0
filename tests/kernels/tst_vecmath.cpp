// vecmath.h's exp and log against std::exp / std::log in double, over the float range the
// row kernels pass (exp: [-87.3, 88.7], every 7th float; log: normal positive floats, every
// 13th; erf, erfc and the normal CDF: [-9, 9], every 11th), with the error bounds the header
// documents; and the special values.
#include "kernels/vecmath.h"

#include <QTest>

#include <cmath>
#include <limits>

using wt::kernels::vec::asBits;
using wt::kernels::vec::asFloat;
using wt::kernels::vec::verf;
using wt::kernels::vec::verfcPos;
using wt::kernels::vec::vnormcdf;
using wt::kernels::vec::vexp;
using wt::kernels::vec::vlog;

class TestVecmath : public QObject {
    Q_OBJECT
private slots:
    void expRelativeError()
    {
        double worst = 0;
        float worstAt = 0;
        long checked = 0;
        // Walk the bit patterns: negative floats from -87.3 up to -0, then 0 up to 88.7.
        auto check = [&](float x) {
            const double ref = std::exp(double(x));
            const double err = std::fabs(double(vexp(x)) - ref) / ref;
            if (err > worst) {
                worst = err;
                worstAt = x;
            }
            ++checked;
        };
        for (uint32_t u = asBits(-87.3f); u >= 0x80000000u; u -= 7)
            check(asFloat(u));
        for (uint32_t u = 0; u <= asBits(88.7f); u += 7)
            check(asFloat(u));
        qInfo("vexp: %ld values, max relative error %.3g at %g", checked, worst, double(worstAt));
        QVERIFY2(worst < 3e-7, qPrintable(QString::number(worst)));
        QVERIFY(checked > 300000000L);
    }
    void expSpecialValues()
    {
        const float inf = std::numeric_limits<float>::infinity();
        QCOMPARE(vexp(0.f), 1.f);
        QCOMPARE(vexp(-inf), 0.f);
        QCOMPARE(vexp(-100.f), 0.f);
        QCOMPARE(vexp(inf), inf);
        QCOMPARE(vexp(89.f), inf);
        QVERIFY(std::isnan(vexp(std::nanf(""))));
        QVERIFY(std::isfinite(vexp(88.72f)));
        QVERIFY(vexp(-87.33f) > 0.f);
    }
    void logError()
    {
        double worstAbs = 0, worstRel = 0;
        long checked = 0;
        for (uint32_t u = asBits(std::numeric_limits<float>::min()); u < asBits(std::numeric_limits<float>::max());
             u += 13) {
            const float x = asFloat(u);
            const double ref = std::log(double(x));
            const double err = std::fabs(double(vlog(x)) - ref);
            if (x >= 0.5f && x <= 2.f)
                worstAbs = std::max(worstAbs, err);
            else
                worstRel = std::max(worstRel, err / std::fabs(ref));
            ++checked;
        }
        qInfo("vlog: %ld values, max absolute error %.3g in [0.5, 2], max relative error %.3g elsewhere", checked,
              worstAbs, worstRel);
        QVERIFY2(worstAbs < 1e-7, qPrintable(QString::number(worstAbs)));
        QVERIFY2(worstRel < 1.5e-7, qPrintable(QString::number(worstRel)));
    }
    void erfAbsoluteError()
    {
        double worst = 0, worstC = 0, worstCdf = 0;
        long checked = 0;
        for (uint32_t u = asBits(-9.f); u >= 0x80000000u; u -= 11) {
            const float x = asFloat(u);
            worst = std::max(worst, std::fabs(double(verf(x)) - std::erf(double(x))));
            worst = std::max(worst, std::fabs(double(verf(-x)) - std::erf(double(-x))));
            worstC = std::max(worstC, std::fabs(double(verfcPos(-x)) - std::erfc(double(-x))));
            // Phi(x) = erfc(-x / sqrt 2) / 2, on both sides of 0 (GELU's x up to 9 sqrt 2).
            for (float v : {x * 1.41421356f, -x * 1.41421356f})
                worstCdf = std::max(worstCdf, std::fabs(double(vnormcdf(v)) - 0.5 * std::erfc(-double(v) / std::sqrt(2.0))));
            checked += 2;
        }
        qInfo("verf: %ld values, max absolute error %.3g (verfcPos %.3g, vnormcdf %.3g)", checked, worst, worstC,
              worstCdf);
        QVERIFY2(worst < 7e-7, qPrintable(QString::number(worst)));
        QVERIFY2(worstC < 7e-7, qPrintable(QString::number(worstC)));
        QVERIFY2(worstCdf < 3.5e-7, qPrintable(QString::number(worstCdf)));
        const float inf = std::numeric_limits<float>::infinity();
        QCOMPARE(verf(inf), 1.f);
        QCOMPARE(verf(-inf), -1.f);
        QCOMPARE(verf(0.f), 0.f);
        QCOMPARE(verfcPos(0.f), 1.f);
        QCOMPARE(verfcPos(inf), 0.f);
        QCOMPARE(vnormcdf(0.f), 0.5f);
        QCOMPARE(vnormcdf(inf), 1.f);
        QCOMPARE(vnormcdf(-inf), 0.f);
        QVERIFY(std::isnan(verf(std::numeric_limits<float>::quiet_NaN())));
        QVERIFY(std::isnan(vnormcdf(std::numeric_limits<float>::quiet_NaN())));
    }
    void logSpecialValues()
    {
        const float inf = std::numeric_limits<float>::infinity();
        QCOMPARE(vlog(1.f), 0.f);
        QCOMPARE(vlog(0.f), -inf);
        QCOMPARE(vlog(inf), inf);
        QVERIFY(std::fabs(vlog(2.f) - 0.693147182f) < 1e-7f);
    }
};

QTEST_APPLESS_MAIN(TestVecmath)
#include "tst_vecmath.moc"
