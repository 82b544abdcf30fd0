// The model tracer (capture/modeltracer.h): hand-made ops with known times replayed into a file
// and read back: the clock, one scope instance per run of consecutive ops under a scope, scope
// levels by depth, the tracks (kernel first, memory second on a GPU), copy bytes, the op features
// with the GEMM shape (kernels::gemmShape), the metadata; a size mismatch is refused.
#include "capture/modeltracer.h"
#include "capture/recordsink.h"
#include "kernels/runtime.h"
#include "storage/database.h"
#include "storage/reader.h"
#include "storage/writer.h"
#include "tests/support/testsupport.h"

#include <QTest>

#include <cstdio>
#include <map>
#include <stdexcept>

using namespace wt;

namespace {

kernels::OpInfo op(const char* name, const char* scope, kernels::LaunchKind kind, kernels::Dims dims = {},
                   double bytesRead = 0)
{
    kernels::OpInfo o;
    o.name = name;
    o.scope = scope;
    o.kind = kind;
    o.dims = dims;
    o.shapes = dims.str();
    o.flops = 100;
    o.bytesRead = bytesRead;
    o.bytesWritten = bytesRead;
    return o;
}

capture::PredictedRun sampleRun(bool memoryOps)
{
    using K = kernels::LaunchKind;
    capture::PredictedRun run;
    run.info.name = "predicted-test";
    run.info.workload = "gcn";
    run.info.device = "Test GPU";
    run.memoryOps = memoryOps;
    run.steps = 2;
    run.ops = {op("memcpy_htod_tokens", "step/forward/embedding/input", K::Memcpy, {{"bytes", 400}}, 400),
               op("sgemm_nt", "step/forward/conv1/conv_gemm", K::Gemm, {{"M", 4}, {"N", 8}, {"K", 2}}),
               op("sgemm_batched_nn", "step/forward/conv1/conv_gemm", K::Gemm, {{"M", 5}, {"N", 6}, {"K", 7}, {"batch", 3}}),
               op("glu_forward", "step/forward/conv1/glu", K::Kernel),
               op("sgd_update", "step/update/conv1", K::Kernel, {{"n", 64}})};
    run.opNs = {10, 20, 30, 40, 0};   // 0: at least 1 ns
    run.metadata = {{"predicted", "true"}, {"cost_model", "roofline"}};
    return run;
}

}  // namespace

class TestModelTracer : public QObject {
    Q_OBJECT
private slots:
    void gemmShapeOnce();
    void replayIntoFile();
    void cpuRunHasOneTrack();
    void sizeMismatchRefused();
};

void TestModelTracer::gemmShapeOnce()
{
    const kernels::GemmShape g = kernels::gemmShape(kernels::LaunchKind::Gemm, {{"M", 4}, {"N", 8}, {"K", 2}});
    QCOMPARE(g.m, int64_t(4));
    QCOMPARE(g.n, int64_t(8));
    QCOMPARE(g.k, int64_t(2));
    QCOMPARE(g.batch, int64_t(1));   // a single GEMM
    QCOMPARE(kernels::gemmShape(kernels::LaunchKind::Gemm, {{"M", 1}, {"N", 1}, {"K", 1}, {"batch", 9}}).batch, int64_t(9));
    const kernels::GemmShape k = kernels::gemmShape(kernels::LaunchKind::Kernel, {{"M", 4}});
    QCOMPARE(k.m + k.n + k.k + k.batch, int64_t(0));   // not a GEMM: no shape
}

void TestModelTracer::replayIntoFile()
{
    const std::string file = test::tempPath("modeltracer.wt");
    std::remove(file.c_str());
    int64_t runId = 0, span = 0;
    {
        Database db(file, OpenMode::ReadWrite);
        Writer writer(db);
        runId = capture::writePredictedRun(writer, sampleRun(true), &span);
    }
    QCOMPARE(span, int64_t(2 * (10 + 20 + 30 + 40 + 1)));
    Database db(file, OpenMode::ReadOnly);
    Reader r(db);
    const RunInfo info = r.runs().at(0);
    QCOMPARE(info.id, runId);
    QCOMPARE(info.backend, std::string("model"));
    QCOMPARE(info.durationNs, span);
    QVERIFY(info.status == RunStatus::Complete);
    std::map<std::string, std::string> meta;
    for (const auto& [k, v] : r.metadata(runId))
        meta[k] = v;
    QCOMPARE(meta["predicted"], std::string("true"));
    QCOMPARE(meta["cost_model"], std::string("roofline"));

    const auto tracks = r.tracks(runId);
    QCOMPARE(tracks.size(), size_t(2));
    QVERIFY(tracks[0].kind == TrackKind::Kernel);   // declared first, although the first op is a copy
    QVERIFY(tracks[1].kind == TrackKind::Memory);

    struct Seen { std::string name; int64_t start, end, bytes; ActivityKind kind; int64_t track, instance, correlation; };
    std::vector<Seen> acts;
    r.forEachActivity(runId, [&](const Activity& a) {
        acts.push_back({r.string(a.nameId), a.startNs, a.endNs, a.bytes, a.kind, a.trackId, a.scopeInstanceId, a.correlationId});
        return true;
    });
    std::sort(acts.begin(), acts.end(), [](const Seen& a, const Seen& b) { return a.start < b.start; });
    QCOMPARE(acts.size(), size_t(10));
    const int64_t starts[] = {0, 10, 30, 60, 100, 101, 111, 131, 161, 201};
    for (size_t i = 0; i < acts.size(); ++i) {
        QCOMPARE(acts[i].start, starts[i]);
        QCOMPARE(acts[i].correlation, int64_t(i + 1));
    }
    QCOMPARE(acts[0].name, std::string("memcpy_htod_tokens"));
    QVERIFY(acts[0].kind == ActivityKind::Memcpy);
    QCOMPARE(acts[0].track, tracks[1].id);
    QCOMPARE(acts[0].bytes, int64_t(400));
    QVERIFY(acts[1].kind == ActivityKind::Kernel);
    QCOMPARE(acts[1].track, tracks[0].id);
    QCOMPARE(acts[4].end - acts[4].start, int64_t(1));
    QCOMPARE(acts[1].instance, acts[2].instance);   // consecutive ops under one op scope: one instance
    QVERIFY(acts[3].instance != acts[2].instance);

    // Scopes: names and levels by depth; instances span their ops.
    std::map<int64_t, ScopeNode> nodes;
    for (const ScopeNode& n : r.scopes(runId))
        nodes[n.id] = n;
    std::map<int64_t, ScopeInstance> instances;
    for (const ScopeInstance& si : r.scopeInstances(runId))
        instances[si.id] = si;
    QCOMPARE(instances.size(), size_t(2 * 9));   // per step: step, forward, embedding, input, conv1, conv_gemm, glu, update, conv1
    // On the model's clock, not on a host thread: no thread rows.
    QVERIFY(r.hostThreads(runId).empty());
    for (const auto& [id, si] : instances)
        QCOMPARE(si.threadId, int64_t(0));
    const ScopeInstance& gemm = instances.at(acts[1].instance);
    QCOMPARE(r.string(nodes.at(gemm.scopeId).nameId), std::string("conv_gemm"));
    QCOMPARE(r.string(nodes.at(gemm.scopeId).levelId), std::string("op"));
    QCOMPARE(gemm.startNs, int64_t(10));
    QCOMPARE(gemm.endNs, int64_t(60));
    const ScopeInstance& conv1 = instances.at(gemm.parentId);
    QCOMPARE(r.string(nodes.at(conv1.scopeId).levelId), std::string("layer"));
    QCOMPARE(conv1.startNs, int64_t(10));
    QCOMPARE(conv1.endNs, int64_t(100));
    const ScopeInstance& update = instances.at(acts[9].instance);   // a layer scope holds the op directly
    QCOMPARE(r.string(nodes.at(update.scopeId).levelId), std::string("layer"));
    const ScopeInstance& step2 = instances.at(instances.at(update.parentId).parentId);
    QCOMPARE(r.string(nodes.at(step2.scopeId).levelId), std::string("step"));
    QCOMPARE(step2.startNs, int64_t(101));
    QCOMPARE(step2.endNs, int64_t(202));

    // Op features: one row per launch, the GEMM shapes, the sizes as text (none: no shapes).
    const auto launches = r.launches(runId);
    QCOMPARE(launches.size(), size_t(10));
    std::map<std::string, LaunchFeatures> byName;
    for (const LaunchFeatures& f : launches)
        byName[r.string(f.nameId)] = f;
    QCOMPARE(byName["sgemm_nt"].m, int64_t(4));
    QCOMPARE(byName["sgemm_nt"].batch, int64_t(1));
    QCOMPARE(byName["sgemm_batched_nn"].k, int64_t(7));
    QCOMPARE(byName["sgemm_batched_nn"].batch, int64_t(3));
    QCOMPARE(r.string(byName["sgemm_batched_nn"].shapesId), std::string("M=5 N=6 K=7 batch=3"));
    QCOMPARE(byName["glu_forward"].shapesId, uint32_t(0));
    QCOMPARE(byName["glu_forward"].m, int64_t(0));
    QCOMPARE(byName["memcpy_htod_tokens"].kind, std::string("memcpy"));
    QCOMPARE(byName["memcpy_htod_tokens"].bytesRead, 400.0);
}

void TestModelTracer::cpuRunHasOneTrack()
{
    const std::string file = test::tempPath("modeltracer-cpu.wt");
    std::remove(file.c_str());
    Database db(file, OpenMode::ReadWrite);
    Writer writer(db);
    const int64_t runId = capture::writePredictedRun(writer, sampleRun(false));
    Reader r(db);
    QCOMPARE(r.tracks(runId).size(), size_t(1));
    int64_t kernels = 0;
    r.forEachActivity(runId, [&](const Activity& a) {
        kernels += a.kind == ActivityKind::Kernel;
        return true;
    });
    QCOMPARE(kernels, int64_t(10));   // the copy too: a CPU runs every op as a kernel
}

void TestModelTracer::sizeMismatchRefused()
{
    const std::string file = test::tempPath("modeltracer-bad.wt");
    std::remove(file.c_str());
    Database db(file, OpenMode::ReadWrite);
    Writer writer(db);
    RunInfo info;
    info.backend = "model";
    writer.beginRun(info);
    capture::RecordSink sink(writer);
    capture::ModelTracer tracer(sink, true);
    capture::PredictedRun run = sampleRun(true);
    run.opNs.pop_back();
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, tracer.replayStep(run.ops, run.opNs));
    sink.close();
}

QTEST_GUILESS_MAIN(TestModelTracer)
#include "tst_modeltracer.moc"
