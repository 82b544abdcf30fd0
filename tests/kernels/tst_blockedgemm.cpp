// The CPU backend's blocked fp32 GEMM (kernels/blockedgemm.h) against a float64 product: every
// transposition; sizes one short of, at and one past every block boundary (the 8 x 32 tile,
// the k block, the rows per task, the columns of a packed B block); leading dimensions wider
// than the matrices; alpha and beta (beta 0 never reads C, alpha 0 never reads A or B); the
// same bits on 1 and 2 threads, the bits of smallGemm for alpha 1 and beta 0, and the
// backend's dispatch (ours, or OpenBLAS when switched off) within the same bound.
#include "kernels/backend.h"
#include "kernels/blockedgemm.h"
#include "kernels/cpurows.h"
#include "kernels/smallgemm.h"
#include "kernelstest.h"

#include <QTest>

#include <cmath>
#include <cstring>
#include <limits>
#include <tuple>
#include <vector>

using namespace wt::kernels;
using wt::test::randomVector;
using wt::test::Problem;
using wt::test::make;
using wt::test::sameBits;
using wt::test::worstRatio;

namespace {

// C from the blocked GEMM; with beta 0, C's first column is NaN beforehand (never read).
std::vector<float> run(const Problem& p, float alpha, float beta)
{
    std::vector<float> C = p.C0;
    if (beta == 0.f)
        for (int64_t i = 0; i < p.M; ++i)
            C[size_t(i * p.ldc)] = std::numeric_limits<float>::quiet_NaN();
    cpu::blockedGemm(p.ta, p.tb, p.M, p.N, p.K, alpha, p.A.data(), p.lda, p.B.data(), p.ldb, beta, C.data(), p.ldc);
    return C;
}

const std::pair<float, float> kAlphaBeta[] = {{1.f, 0.f}, {-0.75f, 1.5f}, {1.f, 1.f}, {2.f, 0.f}};

}  // namespace

class TestBlockedGemm : public QObject {
    Q_OBJECT
private slots:
    void init()
    {
        if (!cpu::blockedGemmAvailable())
            QSKIP("no AVX-512F on this CPU: the backend keeps OpenBLAS for every product");
    }
    void cleanup()
    {
        cpu::setSmallGemm(true);
        cpu::setThreads(0);
    }

    void blockSizesAreTheOnesTheTestsCross()
    {
        const auto s = cpu::blockedGemmSizes();
        QCOMPARE(s.mr, 8);
        QCOMPARE(s.nr, 32);
        QCOMPARE(s.kc, 256);
        QCOMPARE(s.mc, 256);
        QCOMPARE(s.nc, 4096);
    }

    void againstFloat64TilesAndKBlocks()
    {
        int checked = 0;
        for (bool ta : {false, true})
            for (bool tb : {false, true})
                for (int64_t M : {1, 8, 9, 33})
                    for (int64_t N : {1, 31, 33, 70})
                        for (int64_t K : {0, 1, 255, 256, 257, 513}) {
                            const int64_t pad = (M + N + K) % 3;
                            const Problem p = make(ta, tb, M, N, K, pad, uint64_t(M * 100000 + N * 1000 + K));
                            for (auto [alpha, beta] : kAlphaBeta) {
                                bool untouched = false;
                                const double r = worstRatio(p, run(p, alpha, beta), alpha, beta, &untouched);
                                QVERIFY2(r <= 1.0, qPrintable(QStringLiteral("ta %1 tb %2 %3x%4x%5 alpha %6 beta %7: %8")
                                                                  .arg(ta).arg(tb).arg(M).arg(N).arg(K).arg(alpha).arg(beta).arg(r)));
                                QVERIFY(untouched);
                                ++checked;
                            }
                        }
        QCOMPARE(checked, 4 * 4 * 4 * 6 * 4);
    }

    void againstFloat64RowAndColumnBlocks()
    {
        // Rows past the 256 of a full task (1,100 rows: tasks of 256 on one thread) and past
        // a task of any size; columns past a packed B block of 4,096; on 1 and 2 threads.
        const struct { int64_t M, N, K; } shapes[] = {{1100, 40, 300}, {301, 97, 64}, {20, 4130, 260}, {9, 4097, 7}};
        for (int threads : {1, 2}) {
            cpu::setThreads(threads);
            for (const auto& s : shapes)
                for (bool ta : {false, true})
                    for (bool tb : {false, true}) {
                        const Problem p = make(ta, tb, s.M, s.N, s.K, 1, uint64_t(s.M + s.N + s.K));
                        for (auto [alpha, beta] : {kAlphaBeta[0], kAlphaBeta[1]}) {
                            bool untouched = false;
                            const double r = worstRatio(p, run(p, alpha, beta), alpha, beta, &untouched);
                            QVERIFY2(r <= 1.0, qPrintable(QStringLiteral("threads %1 ta %2 tb %3 %4x%5x%6: %7")
                                                              .arg(threads).arg(ta).arg(tb).arg(s.M).arg(s.N).arg(s.K).arg(r)));
                            QVERIFY(untouched);
                        }
                    }
        }
    }

    void alphaZeroReadsNeitherAnorB()
    {
        Problem p = make(false, false, 5, 40, 10, 0, 3);
        std::fill(p.A.begin(), p.A.end(), std::numeric_limits<float>::quiet_NaN());
        std::vector<float> C = p.C0;
        cpu::blockedGemm(false, false, 5, 40, 10, 0.f, p.A.data(), p.lda, p.B.data(), p.ldb, 0.5f, C.data(), p.ldc);
        for (int64_t i = 0; i < 5 * 40; ++i)
            QCOMPARE(C[size_t(i)], 0.5f * p.C0[size_t(i)]);
    }

    void oneAndTwoThreadsGiveTheSameBits()
    {
        // Every transposition, alpha 1 (the running sum read back) and not, over 3 k blocks,
        // 2 B blocks, rows split differently on 1 and 2 threads; and narrow products of a long k
        // (the adaptive tails' shape, whose k blocks are packed at once and run by each task in
        // turn), against float64 too.
        for (auto [M, N, K] : {std::tuple<int64_t, int64_t, int64_t>{530, 4200, 600}, {39, 16, 1300}, {70, 200, 777}})
        for (bool ta : {false, true})
            for (bool tb : {false, true}) {
                const Problem p = make(ta, tb, M, N, K, 2, 31);
                for (auto [alpha, beta] : {kAlphaBeta[0], kAlphaBeta[1], kAlphaBeta[2]}) {
                    std::vector<float> c[2];
                    for (int t = 0; t < 2; ++t) {
                        cpu::setThreads(t + 1);
                        c[t] = run(p, alpha, beta);
                    }
                    QVERIFY2(sameBits(c[0], c[1]), qPrintable(QStringLiteral("%5x%6x%7 ta %1 tb %2 alpha %3 beta %4")
                                                                  .arg(ta).arg(tb).arg(alpha).arg(beta).arg(M).arg(N).arg(K)));
                    if (M < 100) {   // the float64 product of the large one is againstFloat64RowAndColumnBlocks' kind
                        bool untouched = false;
                        QVERIFY(worstRatio(p, c[1], alpha, beta, &untouched) <= 1.0);
                        QVERIFY(untouched);
                    }
                }
            }
    }

    void alphaOneBetaZeroHasSmallGemmsBits()
    {
        // One running fp32 sum over k in order, like smallGemm, across k blocks too.
        for (bool ta : {false, true})
            for (bool tb : {false, true}) {
                const Problem p = make(ta, tb, 45, 100, 700, 0, 41);
                std::vector<float> small = p.C0;
                cpu::smallGemm(ta, tb, p.M, p.N, p.K, 1.f, p.A.data(), p.lda, p.B.data(), p.ldb, 0.f, small.data(), p.ldc);
                QVERIFY(sameBits(run(p, 1.f, 0.f), small));
            }
    }

    void backendDispatchEitherWay()
    {
        // A product too large for smallGemm (op(A) 2,048 x 600): the backend's own blocked GEMM
        // (the same bits as blockedGemm) and OpenBLAS (switched off), both within the bound.
        auto backend = makeCpuBackend();
        for (bool tb : {false, true}) {
            const Problem p = make(false, tb, 2048, 40, 600, 0, 21);
            QVERIFY(!cpu::smallGemmFits(p.M, p.K));
            for (bool own : {true, false}) {
                cpu::setSmallGemm(own);
                std::vector<float> C = p.C0;
                backend->gemm(false, tb, int(p.M), int(p.N), int(p.K), 1.f, p.A.data(), int(p.lda), p.B.data(),
                              int(p.ldb), 0.f, C.data(), int(p.ldc));
                bool untouched = false;
                QVERIFY(worstRatio(p, C, 1.f, 0.f, &untouched) <= 1.0);
                if (own)
                    QVERIFY(sameBits(C, run(p, 1.f, 0.f)));
            }
        }
    }
};

QTEST_APPLESS_MAIN(TestBlockedGemm)
#include "tst_blockedgemm.moc"
