// The launchers say which CPU loops ran without a vectorized path (kernels/launch.h, loopDims):
// a functor with cpuRange / cpuRows / cpuColumns / cpuSum keeps its sizes; one without (the
// grouped convolution, the gathers) gets "scalar=1", as every functor does with
// cpu::vectorized() off. The predictor prices those at the calibration's scalar-loop rate.
#include "kernels/bertops.h"
#include "kernels/launch.h"
#include "kernels/opsmath.h"

#include <QTest>

#include <vector>

using namespace wt::kernels;

class TestScalarLoop : public QObject {
    Q_OBJECT
private slots:
    void taggedWhereTheLoopIsScalar();
};

void TestScalarLoop::taggedWhereTheLoopIsScalar()
{
    const int64_t n = 1 << 12, S = 64, C = 64, K = 3;
    std::vector<float> a(size_t(n), 1.f), b(size_t(n), 2.f), y(size_t(n), 0.f), w(size_t(C * K), 0.5f), bias(size_t(C), 0.f);
    auto run = [&](Runtime& rt) {
        std::vector<OpInfo> ops;
        rt.setListing(&ops);
        forEach(rt, ew("add", double(n), 1, 2, 1), {{"n", n}}, n, fn::Add{a.data(), b.data(), y.data()});
        forEach(rt, ew("add_in_place", double(n), 1, 2, 1), {{"n", n}}, n, fn::AddInPlace{a.data(), y.data()});
        forEach(rt, {"grouped_conv_forward", 2.0 * double(n * K), 4.0 * double(2 * n), 4.0 * double(n), 4.0 * double(n)},
                {{"T", n / C}, {"C", C}, {"K", K}, {"Cg", 1}}, n,
                fn::GroupConvForward{a.data(), w.data(), bias.data(), y.data(), S, C, K, 1});
        rt.setListing(nullptr);
        return ops;
    };
    {
        Runtime rt(makeCpuBackend());
        const std::vector<OpInfo> ops = run(rt);
        QCOMPARE(ops.size(), size_t(3));
        QCOMPARE(QString::fromStdString(ops[0].shapes), QString("n=4096"));
        QCOMPARE(QString::fromStdString(ops[1].shapes), QString("n=4096 scalar=1"));
        QCOMPARE(QString::fromStdString(ops[2].shapes), QString("T=64 C=64 K=3 Cg=1 scalar=1"));
        QCOMPARE(ops[2].dims.get("scalar"), int64_t(1));
        QCOMPARE(ops[0].dims.get("scalar"), int64_t(0));
    }
    {
        // A dry run (a prediction) lists the same sizes as the capture.
        Runtime rt(nullptr);
        const std::vector<OpInfo> ops = run(rt);
        QCOMPARE(QString::fromStdString(ops[0].shapes), QString("n=4096"));
        QCOMPARE(QString::fromStdString(ops[2].shapes), QString("T=64 C=64 K=3 Cg=1 scalar=1"));
    }
    {
        // The vectorized paths off: every loop is a scalar loop.
        const bool was = cpu::vectorized();
        cpu::setVectorized(false);
        Runtime rt(makeCpuBackend());
        const std::vector<OpInfo> ops = run(rt);
        cpu::setVectorized(was);
        QCOMPARE(QString::fromStdString(ops[0].shapes), QString("n=4096 scalar=1"));
    }
    QCOMPARE(y.size(), size_t(n));
}

QTEST_APPLESS_MAIN(TestScalarLoop)
#include "tst_scalarloop.moc"
