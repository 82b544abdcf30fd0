// The CPU backend's bfloat16 GEMM (kernels/bf16gemm.h) against a float64 product of the same
// bfloat16-rounded inputs: every transposition, edges of every block size (k past one block,
// columns past one packed block, odd k, the vector packing's edges, strides), alpha and beta;
// NaN and infinity through the packing; the native (vdpbf16ps) and the
// portable path; the same bits for 1 and 2 threads; and the rounding itself.
#include "kernels/bf16gemm.h"
#include "kernels/cpurows.h"
#include "kernelstest.h"

#include <QTest>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

using namespace wt::kernels;
using wt::test::randomVector;

namespace {

struct Case {
    int64_t M, N, K;
};

// The largest error of C against alpha * sum_k bf16(a) bf16(b) + beta * C0 in float64, over the
// bound 2 K 2^-24 sum_k |a b| + |beta C0| 2^-23 (fp32 sums of exact products).
// pad: extra elements per row of A, B and C (strides past the product's edge).
double worstRatio(bool ta, bool tb, const Case& c, float alpha, float beta, bool native, int64_t pad = 0)
{
    cpu::setBf16Native(native);
    const int64_t lda = (ta ? c.M : c.K) + pad, ldb = (tb ? c.K : c.N) + pad, ldc = c.N + pad;
    const std::vector<float> A = randomVector(size_t((ta ? c.K : c.M) * lda), 1, 2.f);
    const std::vector<float> B = randomVector(size_t((tb ? c.N : c.K) * ldb), 2, 3.f);
    std::vector<float> C = randomVector(size_t(c.M * ldc), 3);
    const std::vector<float> C0 = C;
    cpu::gemmBf16(ta, tb, c.M, c.N, c.K, alpha, A.data(), lda, B.data(), ldb, beta, C.data(), ldc);
    auto a = [&](int64_t i, int64_t k) { return double(cpu::fromBf16(cpu::toBf16(ta ? A[size_t(k * lda + i)] : A[size_t(i * lda + k)]))); };
    auto b = [&](int64_t k, int64_t j) { return double(cpu::fromBf16(cpu::toBf16(tb ? B[size_t(j * ldb + k)] : B[size_t(k * ldb + j)]))); };
    double worst = 0;
    for (int64_t i = 0; i < c.M; ++i)
        for (int64_t j = 0; j < c.N; ++j) {
            double s = 0, mag = 0;
            for (int64_t k = 0; k < c.K; ++k) {
                s += a(i, k) * b(k, j);
                mag += std::fabs(a(i, k) * b(k, j));
            }
            const double c0 = beta == 0.f ? 0.0 : double(beta) * C0[size_t(i * ldc + j)];
            const double want = double(alpha) * s + c0;
            const double bound = 2.0 * double(c.K + 2) * std::ldexp(1.0, -24) * std::fabs(alpha) * mag +
                                 std::fabs(c0) * std::ldexp(1.0, -22) + 1e-30;
            worst = std::max(worst, std::fabs(double(C[size_t(i * ldc + j)]) - want) / bound);
        }
    // The padding of C is not written.
    for (int64_t i = 0; i < c.M; ++i)
        for (int64_t j = c.N; j < ldc; ++j)
            if (std::memcmp(&C[size_t(i * ldc + j)], &C0[size_t(i * ldc + j)], 4) != 0)
                return 1e9;
    return worst;
}

}  // namespace

class TestBf16Gemm : public QObject {
    Q_OBJECT
private slots:
    void cleanup()
    {
        cpu::setBf16Native(true);
        cpu::setThreads(0);
    }

    void roundsToNearestEven()
    {
        QCOMPARE(cpu::toBf16(1.f), uint16_t(0x3f80));
        // 1 + 2^-8 is halfway between two bfloat16: ties to even (down); a bit more rounds up.
        QCOMPARE(cpu::toBf16(1.f + std::ldexp(1.f, -8)), uint16_t(0x3f80));
        QCOMPARE(cpu::toBf16(1.f + std::ldexp(1.f, -8) + std::ldexp(1.f, -16)), uint16_t(0x3f81));
        QCOMPARE(cpu::toBf16(1.f + 3 * std::ldexp(1.f, -8)), uint16_t(0x3f82));   // halfway, odd below: up
        QCOMPARE(cpu::toBf16(-2.5f), uint16_t(0xc020));
        QCOMPARE(cpu::fromBf16(cpu::toBf16(std::numeric_limits<float>::infinity())), std::numeric_limits<float>::infinity());
        QVERIFY(std::isnan(cpu::fromBf16(cpu::toBf16(std::numeric_limits<float>::quiet_NaN()))));
        // The largest float rounds to infinity (as in every bfloat16 conversion).
        QVERIFY(std::isinf(cpu::fromBf16(cpu::toBf16(std::numeric_limits<float>::max()))));
    }

    void againstFloat64_data()
    {
        QTest::addColumn<bool>("native");
        QTest::newRow("portable") << false;
        if (cpu::bf16Native())
            QTest::newRow("vdpbf16ps") << true;
    }
    void againstFloat64()
    {
        QFETCH(bool, native);
        const Case cases[] = {{1, 1, 1}, {7, 33, 5}, {9, 31, 385}, {17, 64, 768}, {3, 4100, 9}, {100, 40, 2}};
        for (const Case& c : cases)
            for (int t = 0; t < 4; ++t) {
                const bool ta = t & 1, tb = t & 2;
                const double r = worstRatio(ta, tb, c, 0.75f, t == 3 ? 0.f : 1.5f, native);
                QVERIFY2(r <= 1.0, qPrintable(QStringLiteral("M %1 N %2 K %3 ta %4 tb %5: error %6 of the bound")
                                                  .arg(c.M).arg(c.N).arg(c.K).arg(ta).arg(tb).arg(r)));
            }
    }

    // Every edge of the blocking and of the vector packing (8 x 8 word blocks, 16 k at a time,
    // full panels only): k past one and two blocks, odd and not a multiple of 16; rows past one
    // task's block and not a multiple of the tile; columns past one packed block and not a
    // multiple of 32; strides past the edge; alpha 1 (a later k block continues the sum read
    // from C) and not, beta 0 and not; every transposition; both paths.
    void blockEdges_data() { againstFloat64_data(); }
    void blockEdges()
    {
        QFETCH(bool, native);
        const cpu::Bf16GemmSizes z = cpu::bf16GemmSizes();
        QVERIFY(z.kc % 2 == 0 && z.mr == 8 && z.nr == 32);
        const Case cases[] = {{z.mc + 13, 45, z.kc + 17},
                              {2 * z.mc + 8, 64, 2 * z.kc + 3},
                              {11, z.nc + 37, z.kc - 1},
                              {z.mr, z.nr, 16},
                              {z.mr + 1, z.nr + 1, 31}};
        for (const Case& c : cases)
            for (int t = 0; t < 4; ++t)
                for (int v = 0; v < 4; ++v) {
                    const bool ta = t & 1, tb = t & 2;
                    const float alpha = v & 1 ? 0.75f : 1.f, beta = v & 2 ? 1.5f : 0.f;
                    const int64_t pad = (t + v) % 3 == 0 ? 0 : 5;
                    const double r = worstRatio(ta, tb, c, alpha, beta, native, pad);
                    QVERIFY2(r <= 1.0, qPrintable(QStringLiteral("M %1 N %2 K %3 ta %4 tb %5 alpha %6 beta %7 pad %8: "
                                                                 "error %9 of the bound")
                                                      .arg(c.M).arg(c.N).arg(c.K).arg(ta).arg(tb).arg(alpha).arg(beta)
                                                      .arg(pad).arg(r)));
                }
    }

    // NaN and infinity reach C through the packing (vector and scalar) as through toBf16.
    void specialValuesThroughThePacking_data() { againstFloat64_data(); }
    void specialValuesThroughThePacking()
    {
        QFETCH(bool, native);
        cpu::setBf16Native(native);
        const int64_t M = 16, N = 32, K = 32;
        for (int t = 0; t < 4; ++t) {
            const bool ta = t & 1, tb = t & 2;
            std::vector<float> A(size_t(M * K), 1.f), B(size_t(K * N), 1.f), C(size_t(M * N), 0.f);
            A[size_t(ta ? 3 * M + 5 : 5 * K + 3)] = std::numeric_limits<float>::quiet_NaN();   // op(A)(5, 3)
            B[size_t(tb ? 7 * K + 2 : 2 * N + 7)] = std::numeric_limits<float>::infinity();    // op(B)(2, 7)
            cpu::gemmBf16(ta, tb, M, N, K, 1.f, A.data(), ta ? M : K, B.data(), tb ? K : N, 0.f, C.data(), N);
            for (int64_t i = 0; i < M; ++i)
                for (int64_t j = 0; j < N; ++j) {
                    const float v = C[size_t(i * N + j)];
                    if (i == 5)
                        QVERIFY2(std::isnan(v), qPrintable(QStringLiteral("t %1 (%2, %3)").arg(t).arg(i).arg(j)));
                    else if (j == 7)
                        QVERIFY2(std::isinf(v) && v > 0, qPrintable(QStringLiteral("t %1 (%2, %3)").arg(t).arg(i).arg(j)));
                    else
                        QCOMPARE(v, float(K));
                }
        }
    }

    void betaZeroOverwritesAndAlphaZeroScalesOnly()
    {
        std::vector<float> A(12, 1.f), B(12, 1.f), C(9, std::numeric_limits<float>::quiet_NaN());
        cpu::gemmBf16(false, false, 3, 3, 4, 1.f, A.data(), 4, B.data(), 3, 0.f, C.data(), 3);
        for (float v : C)
            QCOMPARE(v, 4.f);
        cpu::gemmBf16(false, false, 3, 3, 4, 0.f, A.data(), 4, B.data(), 3, 2.f, C.data(), 3);
        for (float v : C)
            QCOMPARE(v, 8.f);
    }

    void sameBitsForAnyThreadCount()
    {
        const int64_t M = 300, N = 200, K = 777;
        const std::vector<float> A = randomVector(size_t(M * K), 4), B = randomVector(size_t(K * N), 5);
        std::vector<float> C[2];
        for (int t = 0; t < 2; ++t) {
            cpu::setThreads(t + 1);
            C[t].assign(size_t(M * N), 0.f);
            cpu::gemmBf16(false, true, M, N, K, 1.f, A.data(), K, B.data(), K, 0.f, C[t].data(), N);
        }
        QVERIFY(std::memcmp(C[0].data(), C[1].data(), C[0].size() * 4) == 0);
    }
};

QTEST_APPLESS_MAIN(TestBf16Gemm)
#include "tst_bf16gemm.moc"
