// The CUPTI tracer's record handling without a GPU: synthetic CUPTI-like records (mangled
// kernel names as nvcc and cuBLAS emit them, external correlations, API calls that launch
// nothing, incomplete records of a forced flush) fed into CuptiRecords, written through a real
// RecordSink and read back from the file. Also the kernel naming rules.
#include "capture/cuptirecords.h"
#include "capture/kernelname.h"
#include "capture/recordsink.h"
#include "storage/database.h"
#include "storage/reader.h"
#include "storage/writer.h"
#include "tests/support/testsupport.h"

#include <QTest>

#include <map>

using namespace wt;
using namespace wt::capture;

namespace {

// Real device symbols of our launch templates (nm on kernels/softmax.cpp.o of a CUDA build).
const char* kOwnRow = "_ZN2wt7kernels9rowKernelINS0_2fn17LogSoftmaxForwardEEEvT_l";
const char* kOwnForEach = "_ZN2wt7kernels13forEachKernelINS0_2fn10GatherPickEEEvT_l";
// Library kernels as CUPTI names them: a CUTLASS template and a cuBLAS template, both mangled,
// and a cuBLAS kernel with a plain C name.
const char* kCutlass = "_ZN7cutlass7Kernel2I42cutlass_80_simt_sgemm_128x64_8x5_nt_align1EEvNT_6ParamsE";
const char* kCutlassReadable =
    "void cutlass::Kernel2<cutlass_80_simt_sgemm_128x64_8x5_nt_align1>(cutlass_80_simt_sgemm_128x64_8x5_nt_align1::Params)";
const char* kGemmk1 = "_Z13gemmk1_kernelIfLi256ELi5ELb0ELb0ELb0ELb0EEvPKT_S2_PS0_iiif";
const char* kGemmk1Readable = "void gemmk1_kernel<float, 256, 5, false, false, false, false>(float const*, float const*, float*, int, int, int, float)";
const char* kPlain = "sm90_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize128x128x32_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas";

// One file, one run, a sink; close() writes everything and finishes the run.
struct Fixture {
    std::string file = test::tempPath("cuptirecords-" + std::to_string(++counter) + ".wt");
    Database db{file, OpenMode::ReadWrite};
    Writer writer{db};
    int64_t runId = 0;
    std::unique_ptr<RecordSink> sink;
    static inline int counter = 0;
    Fixture()
    {
        RunInfo info;
        info.name = "synthetic";
        info.backend = "cupti";
        runId = writer.beginRun(info);
        sink = std::make_unique<RecordSink>(writer);
    }
    void close()
    {
        sink->close();
        sink.reset();
        writer.finishRun(RunStatus::Complete, 1000);
    }
};

struct Row {
    std::string name, scope;
    int64_t startNs, endNs, correlation;
};

// Activities by correlation id, with the name of their innermost scope.
std::map<int64_t, Row> readBack(Fixture& f)
{
    Reader r(f.db);
    std::map<int64_t, std::string> scopeNames, instanceScope;
    for (const ScopeNode& n : r.scopes(f.runId))
        scopeNames[n.id] = r.string(n.nameId);
    std::map<int64_t, std::string> byInstance;
    for (const ScopeInstance& si : r.scopeInstances(f.runId))
        byInstance[si.id] = scopeNames[si.scopeId];
    std::map<int64_t, Row> rows;
    r.forEachActivity(f.runId, [&](const Activity& a) {
        rows[a.correlationId] = Row{r.string(a.nameId), a.scopeInstanceId ? byInstance[a.scopeInstanceId] : "",
                                    a.startNs, a.endNs, a.correlationId};
        return true;
    });
    return rows;
}

CuptiRecords::Kernel kernel(const char* raw, uint32_t correlation, uint64_t start, uint64_t end)
{
    CuptiRecords::Kernel k;
    k.rawName = raw;
    k.correlation = correlation;
    k.startNs = start;
    k.endNs = end;
    k.stream = 7;
    return k;
}

}  // namespace

class TestCuptiRecords : public QObject {
    Q_OBJECT
private slots:
    void names_data();
    void names();
    void attribution();
    void incompleteDropped();
    void tablesStayBounded();
    void recordsStraddlingAFlush();
};

void TestCuptiRecords::names_data()
{
    QTest::addColumn<QString>("raw");
    QTest::addColumn<QString>("op");
    QTest::addColumn<QString>("expected");
    QTest::addColumn<bool>("own");
    QTest::newRow("own row kernel by op") << kOwnRow << "log_softmax_forward" << "log_softmax_forward" << true;
    QTest::newRow("own forEach by op") << kOwnForEach << "gather_pick" << "gather_pick" << true;
    QTest::newRow("own, op unknown: demangled")
        << kOwnRow << "" << "void wt::kernels::rowKernel<wt::kernels::fn::LogSoftmaxForward>(wt::kernels::fn::LogSoftmaxForward, long)"
        << true;
    QTest::newRow("own, internal linkage") << "_ZN2wt7kernelsL9rowKernelINS0_2fn8MeanLossEEEvT_l" << "mean_loss" << "mean_loss" << true;
    QTest::newRow("cutlass demangled, not the op") << kCutlass << "sgemm_nt" << kCutlassReadable << false;
    QTest::newRow("cublas template demangled") << kGemmk1 << "sgemm_nn" << kGemmk1Readable << false;
    QTest::newRow("plain C name kept") << kPlain << "sgemm_tn" << kPlain << false;
    QTest::newRow("memcpy name kept") << "[CUDA memcpy HtoD]" << "" << "[CUDA memcpy HtoD]" << false;
    QTest::newRow("bad mangling kept") << "_Z_not_a_name" << "" << "_Z_not_a_name" << false;
    QTest::newRow("another namespace wt") << "_ZN2wt5other6kernelEv" << "x" << "wt::other::kernel()" << false;
}

void TestCuptiRecords::names()
{
    QFETCH(QString, raw);
    QFETCH(QString, op);
    QFETCH(QString, expected);
    QFETCH(bool, own);
    QCOMPARE(isOwnKernel(raw.toStdString()), own);
    QCOMPARE(QString::fromStdString(readableKernelName(raw.toStdString(), op.toStdString())), expected);
}

void TestCuptiRecords::attribution()
{
    Fixture f;
    RecordSink& sink = *f.sink;
    int64_t softmax = sink.scopeNode(0, "softmax", "layer");
    int64_t conv = sink.scopeNode(0, "conv1", "layer");
    int64_t softmaxInst = sink.beginScope(softmax, 0, 10);
    int64_t convInst = sink.beginScope(conv, 0, 20);

    CuptiRecords rec(sink);
    rec.setOrigin(1000);
    uint64_t own = rec.beginLaunch(softmaxInst, "log_softmax_forward");
    uint64_t gemm = rec.beginLaunch(convInst, "sgemm_nt");
    uint64_t copy = rec.beginLaunch(convInst, "upload_tokens");
    QVERIFY(own && gemm && copy && own != gemm && gemm != copy);

    // Every API call inside a pushed launch gets an external correlation record; only some
    // launch anything.
    rec.external(10, own);    // cudaLaunchKernel
    rec.external(11, own);    // cudaGetLastError: launches nothing
    rec.external(20, gemm);   // cuBLAS set-up call: nothing
    rec.external(21, gemm);   // cuLaunchKernel of the CUTLASS kernel
    rec.external(22, gemm);   // cuLaunchKernel of the split-K reduction
    rec.external(30, copy);
    rec.kernel(kernel(kOwnRow, 10, 1100, 1200));
    rec.kernel(kernel(kCutlass, 21, 1300, 1500));
    rec.kernel(kernel(kPlain, 22, 1500, 1550));
    rec.kernel(kernel(kOwnForEach, 40, 1600, 1650));   // no external record: unattributed
    CuptiRecords::Memory m;
    m.name = "[CUDA memcpy HtoD]";
    m.correlation = 30;
    m.startNs = 1050;
    m.endNs = 1090;
    m.bytes = 4096;
    rec.memory(m);
    CuptiRecords::Api a;
    a.name = "cudaLaunchKernel";
    a.correlation = 10;
    a.startNs = 1020;
    a.endNs = 1030;
    rec.api(a);
    rec.cuptiDropped(5);
    rec.flush();
    // Correlations (used or not) and launches wait one more flush, then go.
    QCOMPARE(rec.correlationsHeld(), size_t(6));
    QCOMPARE(rec.launchesHeld(), size_t(3));
    rec.flush();
    QCOMPARE(rec.correlationsHeld(), size_t(0));
    QCOMPARE(rec.launchesHeld(), size_t(0));
    QCOMPARE(rec.dropped(), int64_t(5));
    auto raw = rec.rawNames();
    sink.endScope(softmaxInst, 2000);
    sink.endScope(convInst, 2000);
    f.close();

    auto rows = readBack(f);
    QCOMPARE(rows.size(), size_t(5));
    QCOMPARE(QString::fromStdString(rows[10].name), QStringLiteral("log_softmax_forward"));
    QCOMPARE(QString::fromStdString(rows[10].scope), QStringLiteral("softmax"));
    QCOMPARE(rows[10].startNs, int64_t(100));   // relative to the origin
    QCOMPARE(rows[10].endNs, int64_t(200));
    QCOMPARE(QString::fromStdString(rows[21].name), QString::fromLatin1(kCutlassReadable));
    QCOMPARE(QString::fromStdString(rows[21].scope), QStringLiteral("conv1"));
    QCOMPARE(QString::fromStdString(rows[22].name), QString::fromLatin1(kPlain));
    QCOMPARE(QString::fromStdString(rows[22].scope), QStringLiteral("conv1"));
    QCOMPARE(QString::fromStdString(rows[30].name), QStringLiteral("[CUDA memcpy HtoD]"));
    QCOMPARE(QString::fromStdString(rows[30].scope), QStringLiteral("conv1"));
    QCOMPARE(QString::fromStdString(rows[40].name),
             QStringLiteral("void wt::kernels::forEachKernel<wt::kernels::fn::GatherPick>(wt::kernels::fn::GatherPick, long)"));
    QCOMPARE(QString::fromStdString(rows[40].scope), QString());

    // Raw names kept beside the readable ones, only where they differ.
    QCOMPARE(raw.size(), size_t(3));
    QVERIFY(raw["log_softmax_forward"] == std::set<std::string>{kOwnRow});
    QVERIFY(raw[kCutlassReadable] == std::set<std::string>{kCutlass});
    QVERIFY(raw.count(kPlain) == 0);
    QVERIFY(raw["void wt::kernels::forEachKernel<wt::kernels::fn::GatherPick>(wt::kernels::fn::GatherPick, long)"] ==
            std::set<std::string>{kOwnForEach});
}

void TestCuptiRecords::incompleteDropped()
{
    Fixture f;
    CuptiRecords rec(*f.sink);
    rec.setOrigin(1000);
    uint64_t l = rec.beginLaunch(0, "glu_forward");
    for (uint32_t c = 1; c <= 4; ++c)
        rec.external(c, l);
    rec.kernel(kernel(kOwnForEach, 1, 1100, 1200));
    rec.kernel(kernel(kOwnForEach, 2, 0, 1200));      // start never written
    rec.kernel(kernel(kOwnForEach, 3, 1300, 0));      // end never written (still running at the flush)
    CuptiRecords::Memory m;
    m.kind = ActivityKind::Memset;
    m.name = "[CUDA memset]";
    m.correlation = 4;
    m.startNs = 1400;
    m.endNs = 1390;                                  // ends before it starts
    rec.memory(m);
    rec.cuptiDropped(2);
    rec.flush();
    QCOMPARE(rec.incomplete(), int64_t(3));
    QCOMPARE(rec.dropped(), int64_t(5));
    f.close();
    auto rows = readBack(f);
    QCOMPARE(rows.size(), size_t(1));
    QCOMPARE(QString::fromStdString(rows[1].name), QStringLiteral("glu_forward"));
}

void TestCuptiRecords::tablesStayBounded()
{
    // 2,000 steps of 50 launches, each with 4 API calls of which one launches a kernel.
    Fixture f;
    CuptiRecords rec(*f.sink);
    rec.setOrigin(0);
    uint32_t corr = 1;
    uint64_t t = 1;
    size_t maxHeld = 0;
    for (int step = 0; step < 2000; ++step) {
        for (int i = 0; i < 50; ++i) {
            uint64_t l = rec.beginLaunch(0, i % 2 ? "glu_forward" : "glu_backward");
            for (int k = 0; k < 4; ++k)
                rec.external(corr + uint32_t(k), l);
            rec.kernel(kernel(kOwnForEach, corr + 1, t, t + 5));
            corr += 4;
            t += 10;
        }
        rec.flush();
        maxHeld = std::max(maxHeld, rec.correlationsHeld());
        QVERIFY(rec.launchesHeld() <= 100);
    }
    // Entries of two steps at most (4 per launch), not 2,000 steps' worth.
    QVERIFY2(maxHeld <= 2 * 50 * 4, qPrintable(QString::number(maxHeld)));
    QCOMPARE(rec.dropped(), int64_t(0));
    f.close();
    Reader r(f.db);
    QCOMPARE(r.run(f.runId).kernels, int64_t(2000 * 50));
    int64_t named = 0;
    r.forEachActivity(f.runId, [&](const Activity& a) {
        named += r.string(a.nameId).rfind("glu_", 0) == 0;
        return true;
    });
    QCOMPARE(named, int64_t(2000 * 50));
}

void TestCuptiRecords::recordsStraddlingAFlush()
{
    // A kernel whose record comes one flush after its launch is still named and attributed;
    // two flushes later its launch is forgotten.
    Fixture f;
    RecordSink& sink = *f.sink;
    int64_t node = sink.scopeNode(0, "softmax", "layer");
    int64_t inst = sink.beginScope(node, 0, 0);
    CuptiRecords rec(sink);
    uint64_t a = rec.beginLaunch(inst, "adaptive_head_logsoftmax");
    uint64_t b = rec.beginLaunch(inst, "adaptive_tail_logsoftmax");
    rec.external(1, a);
    rec.external(2, b);
    rec.flush();                      // step 1 ends before its records arrive
    rec.kernel(kernel(kOwnRow, 1, 10, 20));
    rec.flush();
    rec.flush();
    rec.kernel(kernel(kOwnRow, 2, 30, 40));   // too late: launch and correlation forgotten
    rec.flush();
    sink.endScope(inst, 50);
    f.close();
    auto rows = readBack(f);
    QCOMPARE(QString::fromStdString(rows[1].name), QStringLiteral("adaptive_head_logsoftmax"));
    QCOMPARE(QString::fromStdString(rows[1].scope), QStringLiteral("softmax"));
    QVERIFY(QString::fromStdString(rows[2].name).startsWith(QStringLiteral("void wt::kernels::rowKernel")));
    QCOMPARE(QString::fromStdString(rows[2].scope), QString());
}

QTEST_GUILESS_MAIN(TestCuptiRecords)
#include "tst_cuptirecords.moc"
