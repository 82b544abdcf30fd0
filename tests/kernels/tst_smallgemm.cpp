// The CPU backend's own small fp32 GEMM (kernels/smallgemm.h) against a float64 product:
// every transposition, the edges of its 8 x 32 tiles (rows and columns one short of, at and one
// past a tile, k of 0 and 1), leading dimensions wider than the matrices, alpha and beta (beta
// 0 never reads C); one product split by panels, and the backend's GEMM and batched GEMM, the
// same bits as the whole on one thread; and the backend's dispatch (its own kernel for the
// small products, OpenBLAS when switched off) within the same bound.
#include "kernels/backend.h"
#include "kernels/cpurows.h"
#include "kernels/smallgemm.h"
#include "kernelstest.h"

#include <QTest>

#include <algorithm>
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

class TestSmallGemm : public QObject {
    Q_OBJECT
private slots:
    void init()
    {
        if (!cpu::smallGemmAvailable())
            QSKIP("no AVX-512F on this CPU: the backend keeps OpenBLAS for every product");
    }
    void cleanup()
    {
        cpu::setSmallGemm(true);
        cpu::setThreads(0);
    }

    void againstFloat64EveryTranspositionAndEdge()
    {
        int checked = 0;
        for (bool ta : {false, true})
            for (bool tb : {false, true})
                for (int64_t M : {1, 7, 8, 9, 23})
                    for (int64_t N : {1, 16, 31, 32, 33, 70})
                        for (int64_t K : {0, 1, 5, 64}) {
                            const int64_t pad = (M + N + K) % 3;   // leading dimensions past the matrix
                            const Problem p = make(ta, tb, M, N, K, pad, uint64_t(M * 1000 + N * 10 + K));
                            for (auto [alpha, beta] : {std::pair<float, float>{1.f, 0.f}, {-0.75f, 1.5f}, {2.f, 1.f}}) {
                                std::vector<float> C = p.C0;
                                if (beta == 0.f)   // beta 0 writes C without reading it
                                    for (int64_t i = 0; i < M; ++i)
                                        C[size_t(i * p.ldc)] = std::numeric_limits<float>::quiet_NaN();
                                cpu::smallGemm(ta, tb, M, N, K, alpha, p.A.data(), p.lda, p.B.data(), p.ldb, beta, C.data(),
                                               p.ldc);
                                bool untouched = false;
                                const double r = worstRatio(p, C, alpha, beta, &untouched);
                                QVERIFY2(r <= 1.0, qPrintable(QStringLiteral("ta %1 tb %2 %3x%4x%5 alpha %6 beta %7: %8")
                                                                  .arg(ta).arg(tb).arg(M).arg(N).arg(K).arg(alpha).arg(beta).arg(r)));
                                QVERIFY(untouched);
                                ++checked;
                            }
                        }
        QCOMPARE(checked, 4 * 5 * 6 * 4 * 3);
    }

    void attentionShapesAgainstFloat64()
    {
        // The small presets' attention items: Q K^T (nt), P V (nn) and the gradients (nt, tn).
        const struct { bool ta, tb; int64_t M, N, K; } shapes[] = {
            {false, true, 128, 128, 64}, {false, false, 128, 64, 128}, {true, false, 128, 64, 128}, {false, true, 152, 256, 256},
            {false, false, 14, 64, 1500}, {true, false, 1500, 64, 14}};   // and a tail product's long k, and its gradient
        for (const auto& s : shapes) {
            const Problem p = make(s.ta, s.tb, s.M, s.N, s.K, 0, 7);
            std::vector<float> C = p.C0;
            cpu::smallGemm(s.ta, s.tb, s.M, s.N, s.K, 0.125f, p.A.data(), p.lda, p.B.data(), p.ldb, 0.f, C.data(), p.ldc);
            bool untouched = false;
            QVERIFY(worstRatio(p, C, 0.125f, 0.f, &untouched) <= 1.0);
        }
    }

    void panelsAndThreadsGiveTheSameBits()
    {
        for (bool tb : {false, true}) {
            const Problem p = make(false, tb, 37, 200, 48, 1, 11);   // 7 panels, the last one 8 wide
            std::vector<float> whole = p.C0, split = p.C0;
            cpu::smallGemm(false, tb, p.M, p.N, p.K, 1.f, p.A.data(), p.lda, p.B.data(), p.ldb, 0.5f, whole.data(), p.ldc);
            for (auto [lo, hi] : {std::pair<int64_t, int64_t>{0, 2}, {2, 3}, {3, 7}})
                cpu::smallGemm(false, tb, p.M, p.N, p.K, 1.f, p.A.data(), p.lda, p.B.data(), p.ldb, 0.5f, split.data(),
                               p.ldc, lo, hi);
            QVERIFY(sameBits(whole, split));
            // The backend: one product and a batch of 6, on 1 and on 2 threads.
            auto backend = makeCpuBackend();
            const int64_t batch = 6, sA = p.M * p.lda, sB = (tb ? p.N : p.K) * p.ldb, sC = p.M * p.ldc;   // op(B) = B^T: N rows of ldb
            const std::vector<float> A = randomVector(size_t(batch * sA), 12), B = randomVector(size_t(batch * sB), 13);
            std::vector<float> one[2], many[2];
            for (int t = 0; t < 2; ++t) {
                cpu::setThreads(t + 1);
                one[t] = p.C0;
                backend->gemm(false, tb, int(p.M), int(p.N), int(p.K), 1.f, p.A.data(), int(p.lda), p.B.data(), int(p.ldb),
                              0.5f, one[t].data(), int(p.ldc));
                many[t] = randomVector(size_t(batch * sC), 14);
                backend->gemmBatched(false, tb, int(p.M), int(p.N), int(p.K), 1.f, A.data(), int(p.lda), sA, B.data(),
                                     int(p.ldb), sB, 0.f, many[t].data(), int(p.ldc), sC, int(batch));
            }
            QVERIFY(sameBits(one[0], one[1]));
            QVERIFY(sameBits(one[0], whole));   // the backend took our kernel for this product
            QVERIFY(sameBits(many[0], many[1]));
        }
    }

    void groupsRowRangesAndCopiesAgainstFloat64()
    {
        // The paths of the panel groups: k small enough for many panels per group (16: up to 128)
        // and so large that a group is one panel (4,000); 16 columns or fewer on the 16-column tile
        // (16 and 4 in place, 48's last 16, B^T's copy), 17-31 on the full one; B's panels copied
        // (64 rows or more, rows 1 KiB apart) and read in place; row ranges that start and end
        // inside a tile, partial last tiles; every transposition.
        int checked = 0;
        for (bool ta : {false, true})
            for (bool tb : {false, true})
                for (auto [M, N, K] : {std::tuple<int64_t, int64_t, int64_t>{39, 1000, 16}, {45, 97, 64}, {13, 70, 4000},
                                       {130, 33, 152}, {33, 161, 9}, {50, 16, 300}, {9, 4, 2000}, {20, 48, 40},
                                       {17, 23, 5}, {700, 255, 200},   // rows of B 1 KiB apart copied
                                       // k of 64 or less runs the row tiles outer (each over a group's panels):
                                       // two groups (128 panels of k 4, 32 of k 64), and k 65 just past it
                                       {39, 4200, 4}, {21, 1100, 64}, {12, 1030, 65}}) {
                    const Problem p = make(ta, tb, M, N, K, 1, uint64_t(M + N + K));
                    for (auto [alpha, beta] : {std::pair<float, float>{1.f, 0.f}, {0.5f, -1.25f}}) {
                        std::vector<float> whole = p.C0, rows = p.C0, panels = p.C0;
                        cpu::smallGemm(ta, tb, M, N, K, alpha, p.A.data(), p.lda, p.B.data(), p.ldb, beta, whole.data(), p.ldc);
                        bool untouched = false;
                        const double r = worstRatio(p, whole, alpha, beta, &untouched);
                        QVERIFY2(r <= 1.0 && untouched, qPrintable(QStringLiteral("ta %1 tb %2 %3x%4x%5: %6")
                                                                       .arg(ta).arg(tb).arg(M).arg(N).arg(K).arg(r)));
                        // Rows in three ranges (cut at 5 and 2 M / 3), panels in two: the same bits.
                        const int64_t cut1 = std::min<int64_t>(5, M), cut2 = std::max(cut1, 2 * M / 3);
                        for (auto [r0, r1] : {std::pair<int64_t, int64_t>{0, cut1}, {cut1, cut2}, {cut2, M}})
                            cpu::smallGemm(ta, tb, M, N, K, alpha, p.A.data(), p.lda, p.B.data(), p.ldb, beta, rows.data(),
                                           p.ldc, 0, -1, r0, r1);
                        const int64_t np = cpu::smallGemmPanels(N), half = np / 2;
                        cpu::smallGemm(ta, tb, M, N, K, alpha, p.A.data(), p.lda, p.B.data(), p.ldb, beta, panels.data(),
                                       p.ldc, 0, half);
                        cpu::smallGemm(ta, tb, M, N, K, alpha, p.A.data(), p.lda, p.B.data(), p.ldb, beta, panels.data(),
                                       p.ldc, half, np);
                        QVERIFY(sameBits(whole, rows));
                        QVERIFY(sameBits(whole, panels));
                        ++checked;
                    }
                }
        QCOMPARE(checked, 4 * 13 * 2);
    }

    void backendSplitsByRowsAndPanelsSameBits()
    {
        // The backend splits a product over its pool by panels, or by rows when the panels are
        // too few to balance (1,000 x 64, 3,000 x 4, and from 9 rows on: 13 x 64, 45 x 4), by
        // panels and row blocks when they are under 16 a thread (515 x 256, 800 x 250): 1 and 2
        // threads, and smallGemm on one thread, the same bits.
        auto backend = makeCpuBackend();
        for (bool ta : {false, true})
            for (auto [M, N, K] : {std::tuple<int64_t, int64_t, int64_t>{1000, 64, 150}, {60, 1500, 100}, {301, 301, 33},
                                   {39, 16, 12000}, {3000, 4, 400},   // and two the fits rule leaves out but 16 columns take
                                   {13, 64, 8000}, {45, 4, 9000}, {9, 16, 3000},   // the tails' few rows of a long k, by rows of 8
                                   {515, 256, 300}, {800, 250, 70}}) {   // 8 panels in row blocks (256 rows or more: 65 tiles over 2, 100 over 3)
                const Problem p = make(ta, true, M, N, K, 2, 31);
                std::vector<float> ref = p.C0;
                cpu::smallGemm(ta, true, M, N, K, 1.f, p.A.data(), p.lda, p.B.data(), p.ldb, 0.f, ref.data(), p.ldc);
                for (int t : {1, 2}) {
                    cpu::setThreads(t);
                    std::vector<float> C = p.C0;
                    backend->gemm(ta, true, int(M), int(N), int(K), 1.f, p.A.data(), int(p.lda), p.B.data(), int(p.ldb),
                                  0.f, C.data(), int(p.ldc));
                    QVERIFY2(sameBits(ref, C), qPrintable(QStringLiteral("ta %1 %2x%3x%4 on %5 threads")
                                                              .arg(ta).arg(M).arg(N).arg(K).arg(t)));
                }
            }
    }

    void backendAllocatesZeroedOnACacheLine()
    {
        // The GEMMs' 64-byte vectors meet a buffer's rows of 16k floats whole only when it starts
        // on a cache line (calloc's 16 bytes split each over two lines: half the rate writing C).
        auto backend = makeCpuBackend();
        std::vector<void*> held;
        for (size_t bytes : {size_t(0), size_t(1), size_t(4), size_t(100), size_t(4096), size_t(1) << 20, (size_t(6) << 20) + 12}) {
            auto* p = static_cast<unsigned char*>(backend->allocate(bytes));
            QVERIFY(p);
            QCOMPARE(reinterpret_cast<uintptr_t>(p) % 64, uintptr_t(0));
            QVERIFY(std::all_of(p, p + bytes, [](unsigned char c) { return c == 0; }));
            std::memset(p, 0xab, bytes);   // the whole of it is ours
            held.push_back(p);
        }
        for (void* p : held)
            backend->release(p);
        backend->release(nullptr);
    }

    void backendDispatchEitherWay()
    {
        // Our kernel and OpenBLAS (switched off) both within the fp32 bound of the same product,
        // one small enough for ours (bert's MLM transform) and one whose op(A) is too large.
        auto backend = makeCpuBackend();
        for (auto [M, N, K] : {std::tuple<int64_t, int64_t, int64_t>{152, 256, 256}, {2048, 40, 600}})
            for (bool own : {true, false}) {
                QCOMPARE(cpu::smallGemmFits(M, K), M < 1000);
                cpu::setSmallGemm(own);
                const Problem p = make(false, true, M, N, K, 0, 21);
                std::vector<float> C = p.C0;
                backend->gemm(false, true, int(M), int(N), int(K), 1.f, p.A.data(), int(p.lda), p.B.data(), int(p.ldb), 0.f,
                              C.data(), int(p.ldc));
                bool untouched = false;
                QVERIFY(worstRatio(p, C, 1.f, 0.f, &untouched) <= 1.0);
            }
    }
};

QTEST_APPLESS_MAIN(TestSmallGemm)
#include "tst_smallgemm.moc"
