// Capture on the CPU: every workload x variant at the tiny preset, the scope tree, activity
// counts against the ops a step launches, layer attribution, variants differing only under
// the softmax layer, SIGINT, and bad input through the CLI.
#include "analysis/breakdown.h"
#include "analysis/costmodel.h"
#include "analysis/opfeatures.h"
#include "analysis/scopetree.h"
#include "capture/capture.h"
#include "capture/cudaplugin.h"
#include "capture/cputracer.h"
#include "kernels/backend.h"
#include "capture/recordsink.h"
#include "kernels/model.h"
#include "kernels/runtime.h"
#include "storage/database.h"
#include "storage/reader.h"
#include "storage/storageerror.h"
#include "storage/writer.h"
#include "tests/support/testsupport.h"

#include <QCryptographicHash>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTest>
#include <QThread>

#include <sqlite3.h>

#include <algorithm>
#include <csignal>
#include <map>
#include <set>

using namespace wt;
using test::runCli;

namespace {

struct Captured {
    int64_t runId = 0;
    std::map<std::string, std::pair<int64_t, int64_t>> outsideSoftmax;   // "scope path|kernel" -> count, 0
    std::set<std::string> layers;
    int64_t activities = 0;
    int64_t underLayerNs = 0, kernelNs = 0;
};

Captured inspect(const std::string& file, int64_t runId)
{
    Captured c;
    c.runId = runId;
    Database db(file, OpenMode::ReadOnly);
    Reader r(db);
    ScopeTree tree = ScopeTree::load(r, runId);
    std::unordered_map<int64_t, int64_t> instScope;
    for (const ScopeInstance& si : r.scopeInstances(runId))
        instScope[si.id] = si.scopeId;
    r.forEachActivity(runId, [&](const Activity& a) {
        ++c.activities;
        int64_t scope = a.scopeInstanceId ? instScope.at(a.scopeInstanceId) : 0;
        c.kernelNs += a.endNs - a.startNs;
        int64_t layer = scope ? tree.ancestorAtLevel(scope, "layer") : 0;
        if (layer) {
            c.underLayerNs += a.endNs - a.startNs;
            c.layers.insert(tree.name(layer));
        }
        if (!layer || tree.name(layer) != "softmax")
            c.outsideSoftmax[tree.path(scope) + "|" + r.string(a.nameId)].first += 1;
        return true;
    });
    return c;
}

}  // namespace

class TestCapture : public QObject {
    Q_OBJECT
private slots:
    void everyWorkloadAndVariant_data();
    void everyWorkloadAndVariant();
    void variantsDifferOnlyUnderSoftmax();
    void stepTimeCoversLayers();
    void noTrace();
    void signalKeepsRun_data();
    void signalKeepsRun();
    void sigkillKeepsCommittedSteps();
    void sinkCommitsWithinLongStep();
    void damagedRunRefused();
    void badInput();
    void diskFull();
    void deviceErrorMidStep();
};

void TestCapture::everyWorkloadAndVariant_data()
{
    QTest::addColumn<QString>("workload");
    QTest::addColumn<QString>("variant");
    for (const auto& w : kernels::workloads())
        for (const std::string& v : kernels::variants())
            QTest::newRow((w.name + "/" + v).c_str()) << QString::fromStdString(w.name) << QString::fromStdString(v);
}

void TestCapture::everyWorkloadAndVariant()
{
    QFETCH(QString, workload);
    QFETCH(QString, variant);
    std::string file = test::tempPath("cap.wt");
    capture::CaptureOptions o;
    o.workload = workload.toStdString();
    o.variant = variant.toStdString();
    o.preset = "tiny";
    o.backend = "cpu";
    o.steps = 2;
    o.warmup = 1;
    o.output = file;
    capture::CaptureResult res = capture::runCapture(o);
    QCOMPARE(QString::fromStdString(res.status), QStringLiteral("complete"));
    QCOMPARE(res.stepsDone, 2);
    QCOMPARE(res.droppedRecords, int64_t(0));

    // Activity count = launches of the same steps (same seed, same batches) counted here.
    struct Counter : kernels::Observer {
        int64_t launches = 0, gemms = 0;
        double flops = 0, bytes = 0;
        double exps = 0;   // the exp ops' elements (product of their sizes) x exps per element
        void scopeEnter(std::string_view, kernels::ScopeLevel) override {}
        void scopeExit() override {}
        void launchBegin(const kernels::OpLaunch& op) override
        {
            ++launches;
            gemms += op.kind == kernels::LaunchKind::Gemm;
            flops += op.flops;
            bytes += op.bytesRead + op.bytesWritten;
            static const std::map<std::string_view, double> perElement = {
                {"log_softmax_forward", 1}, {"log_softmax_backward", 1}, {"fused_logsoftmax_loss_grad", 1},
                {"causal_softmax_forward", 1}, {"attention_softmax_forward", 1}, {"glu_forward", 1},
                {"glu_backward", 1}, {"gelu_forward", 1}, {"gelu_backward", 2}};
            auto it = perElement.find(op.name);
            if (it != perElement.end() && op.dims) {
                double e = 1;
                for (int i = 0; i < op.dims->n; ++i)
                    e *= double(op.dims->v[size_t(i)].second);
                exps += e * it->second;
            }
        }
        void launchEnd() override {}
    } counter;
    auto model = kernels::Model::create(o.workload, "tiny", o.variant, {}, kernels::BackendKind::Cpu, 1);
    model->prepare();
    model->step();   // the warmup step, unobserved as in the capture
    model->setObserver(&counter);
    model->step();
    model->step();
    model->setObserver(nullptr);
    QVERIFY(counter.launches > 20);
    Captured c = inspect(file, res.runId);
    QCOMPARE(c.activities, counter.launches);
    QCOMPARE(res.kernels, c.activities);
    // Every kernel sits under a layer scope (the target is >= 99.9% of kernel time).
    QVERIFY(c.kernelNs > 0);
    QVERIFY2(double(c.underLayerNs) >= 0.999 * double(c.kernelNs), qPrintable(QString::number(double(c.underLayerNs) / c.kernelNs)));
    QVERIFY(c.layers.count("embedding"));
    QVERIFY(c.layers.count("softmax"));
    QVERIFY(c.layers.count(o.workload == "gcn" ? "conv1" : o.workload == "transformer" ? "decoder.0" : "encoder.0"));

    // The tree: step > phase > layer > op, with the three phases.
    Database db(file, OpenMode::ReadOnly);
    Reader r(db);
    ScopeTree tree = ScopeTree::load(r, res.runId);
    std::set<std::string> phases;
    int maxDepth = 0;
    for (const ScopeNode& n : tree.nodes()) {
        maxDepth = std::max(maxDepth, n.depth);
        const std::string& level = tree.level(n.id);
        if (n.depth == 1) {
            QCOMPARE(tree.name(n.id), std::string("step"));
            QCOMPARE(level, std::string("step"));
        }
        if (n.depth == 2) {
            QCOMPARE(level, std::string("phase"));
            phases.insert(tree.name(n.id));
        }
        if (n.depth == 3)
            QCOMPARE(level, std::string("layer"));
    }
    QCOMPARE(phases, (std::set<std::string>{"forward", "backward", "update"}));
    QVERIFY(maxDepth >= 4);
    // Two step instances.
    int steps = 0;
    for (const ScopeInstance& si : r.scopeInstances(res.runId))
        steps += tree.node(si.scopeId).depth == 1;
    QCOMPARE(steps, 2);
    RunInfo run = r.run(res.runId);
    QCOMPARE(run.backend, std::string("cpu"));
    QVERIFY(run.device.rfind("CPU: ", 0) == 0);
    QCOMPARE(run.variant, o.variant);
    QVERIFY(run.configJson.find("\"vocab\"") != std::string::npos);

    // Op features: one row per launch, the same FLOPs and bytes, each matched to its activity.
    QCOMPARE(r.countLaunches(res.runId), counter.launches);
    RunSamples samples = loadRunSamples(r, res.runId);
    QCOMPARE(int64_t(samples.launches.size()), counter.launches);
    QCOMPARE(samples.steps, int64_t(2));
    double flops = 0, bytes = 0;
    int64_t gemms = 0;
    for (const LaunchSample& l : samples.launches) {
        QVERIFY2(l.timeNs >= 0, l.name.c_str());
        QVERIFY(!l.layer.empty() && !l.path.empty());
        flops += l.flops;
        bytes += l.bytes();
        if (l.kind == "gemm") {
            ++gemms;
            QVERIFY(l.m > 0 && l.n > 0 && l.k > 0 && l.batch >= 1);
            QVERIFY(std::abs(l.flops - 2.0 * double(l.m) * double(l.n) * double(l.k) * double(l.batch)) <= 1e-9 * l.flops);
        }
    }
    QCOMPARE(gemms, counter.gemms);
    QVERIFY(gemms > 0);
    QVERIFY(std::abs(flops - counter.flops) <= 1e-9 * counter.flops);
    QVERIFY(std::abs(bytes - counter.bytes) <= 1e-9 * counter.bytes);

    // bench_roofline's bound from the stored features: the exps read back from the stored shapes
    // are the launches' own sizes, and the roofline of the run is, launch by launch,
    // max(FLOPs / peak, bytes / bandwidth, exps / exp rate) + the fixed cost of each launch.
    DeviceSpec cpu;
    cpu.fp32Flops = 1e11;
    cpu.memoryBytesPerS = cpu.hostLinkBytesPerS = 3e10;
    cpu.expPerS = 3e9;
    cpu.launchOverheadNs = 200;
    double exps = 0, boundNs = 0, workNs = 0;
    for (const LaunchSample& l : samples.launches) {
        exps += transcendentals(l);
        const RooflineTerms t = rooflineTerms(cpu, l);
        QCOMPARE(t.launchNs, 200.0);
        boundNs += t.boundNs();
        workNs += std::max({l.flops / 1e11, (l.kind == "memcpy" ? l.bytesRead : l.bytes()) / 3e10, transcendentals(l) / 3e9}) * 1e9;
    }
    QVERIFY(counter.exps > 0);   // every workload has a softmax
    QVERIFY2(std::abs(exps - counter.exps) <= 1e-9 * counter.exps, qPrintable(QString::number(exps - counter.exps)));
    const double expectNs = workNs + 200.0 * double(counter.launches);
    QVERIFY2(std::abs(boundNs - expectNs) <= 1e-9 * expectNs, qPrintable(QString::number(boundNs - expectNs)));
}

void TestCapture::variantsDifferOnlyUnderSoftmax()
{
    for (const auto& w : kernels::workloads()) {
        std::map<std::string, std::pair<int64_t, int64_t>> first;
        std::string firstVariant;
        for (const std::string& v : kernels::variants()) {
            std::string file = test::tempPath("variants.wt");
            capture::CaptureOptions o;
            o.workload = w.name;
            o.variant = v;
            o.preset = "tiny";
            o.backend = "cpu";
            o.steps = 1;
            o.warmup = 0;
            o.output = file;
            auto res = capture::runCapture(o);
            Captured c = inspect(file, res.runId);
            if (firstVariant.empty()) {
                first = c.outsideSoftmax;
                firstVariant = v;
                continue;
            }
            QVERIFY2(c.outsideSoftmax == first, (w.name + ": " + v + " differs from " + firstVariant + " outside softmax").c_str());
        }
    }
}

void TestCapture::stepTimeCoversLayers()
{
    // Per-layer kernel time adds up to no more than the step's traced time; the tracer's own
    // gaps between ops are the difference, and they are small.
    std::string file = test::tempPath("steptime.wt");
    capture::CaptureOptions o;
    o.workload = "transformer";
    o.preset = "tiny";
    o.backend = "cpu";
    o.steps = 3;
    o.output = file;
    auto res = capture::runCapture(o);
    Database db(file, OpenMode::ReadOnly);
    Reader r(db);
    ScopeTree tree = ScopeTree::load(r, res.runId);
    int64_t stepTraced = 0;
    for (const ScopeInstance& si : r.scopeInstances(res.runId))
        if (tree.node(si.scopeId).depth == 1)
            stepTraced += si.endNs - si.startNs;
    BreakdownOptions opt;
    opt.groupBy = GroupBy::Layer;
    RunStats stats = computeRunStats(r, res.runId, opt);
    int64_t layers = 0;
    for (const Group& g : stats.breakdown.groups)
        layers += g.timeNs;
    QCOMPARE(layers, stats.kernelTimeNs);
    QVERIFY(layers <= stepTraced);
    // The rest is host code between ops (and the tracer's hooks): bounded per launch even in
    // a sanitizer build. bench/capture measures the Release overhead.
    double gapPerLaunch = double(stepTraced - layers) / double(stats.kernels);
    QVERIFY2(gapPerLaunch < 1e6, qPrintable(QStringLiteral("%1 ns per launch").arg(gapPerLaunch)));
}

void TestCapture::noTrace()
{
    capture::CaptureOptions o;
    o.workload = "gcn";
    o.preset = "tiny";
    o.backend = "cpu";
    o.steps = 2;
    o.trace = false;
    auto res = capture::runCapture(o);
    QCOMPARE(res.stepsDone, 2);
    QCOMPARE(res.stepWallNs.size(), size_t(2));
    QVERIFY(res.medianStepNs > 0);
    QCOMPARE(res.runId, int64_t(0));
    auto cli = runCli({QStringLiteral("capture"), QStringLiteral("--workload"), QStringLiteral("gcn"), QStringLiteral("--preset"),
                       QStringLiteral("tiny"), QStringLiteral("--backend"), QStringLiteral("cpu"), QStringLiteral("--no-trace")});
    QCOMPARE(cli.exitCode, 0);
    QVERIFY(cli.out.contains(QStringLiteral("median step")));
}

void TestCapture::signalKeepsRun_data()
{
    QTest::addColumn<int>("signal");
    QTest::newRow("SIGINT") << int(SIGINT);
    QTest::newRow("SIGTERM") << int(SIGTERM);
    QTest::newRow("SIGHUP") << int(SIGHUP);   // a closed terminal: lost the run before
}

void TestCapture::signalKeepsRun()
{
    QFETCH(int, signal);
    QString file = QString::fromStdString(test::tempPath("signal.wt"));
    QProcess p;
    p.start(qEnvironmentVariable("WHERETIME_CLI"),
            {QStringLiteral("capture"), QStringLiteral("--workload"), QStringLiteral("gcn"), QStringLiteral("--preset"),
             QStringLiteral("tiny"), QStringLiteral("--backend"), QStringLiteral("cpu"), QStringLiteral("--steps"),
             QStringLiteral("1000000"), QStringLiteral("--warmup"), QStringLiteral("0"), QStringLiteral("-o"), file});
    QVERIFY(p.waitForStarted());
    // Wait until the run is being written, then interrupt.
    bool writing = false;
    for (int i = 0; i < 300 && !writing; ++i) {
        QThread::msleep(50);
        auto runs = runCli({QStringLiteral("runs"), file, QStringLiteral("--json")});
        writing = runs.exitCode == 0 && runs.out.contains(QStringLiteral("\"writing\""));
    }
    QVERIFY(writing);
    QThread::msleep(300);
    ::kill(pid_t(p.processId()), signal);
    QVERIFY(p.waitForFinished(60000));
    QCOMPARE(p.exitStatus(), QProcess::NormalExit);
    QCOMPARE(p.exitCode(), 130);
    auto runs = runCli({QStringLiteral("runs"), file, QStringLiteral("--json")});
    QCOMPARE(runs.exitCode, 0);
    QJsonObject run = QJsonDocument::fromJson(runs.out.toUtf8()).array().at(0).toObject();
    QCOMPARE(run[QStringLiteral("status")].toString(), QStringLiteral("interrupted"));
    QVERIFY(run[QStringLiteral("kernels")].toInteger() > 0);
}

namespace {

QString sha(const QString& text) { return QString::fromLatin1(QCryptographicHash::hash(text.toUtf8(), QCryptographicHash::Sha256).toHex()); }

}  // namespace

void TestCapture::sigkillKeepsCommittedSteps()
{
    // A capture killed with SIGKILL keeps every step it committed (each step is committed as it
    // ends), readable at once through a read-only open; the file's earlier run is untouched.
    std::string path = test::tempPath("sigkill.wt");
    QString file = QString::fromStdString(path);
    QStringList common = {QStringLiteral("--workload"), QStringLiteral("gcn"), QStringLiteral("--preset"), QStringLiteral("tiny"),
                          QStringLiteral("--backend"), QStringLiteral("cpu"), QStringLiteral("-o"), file};
    QCOMPARE(runCli(QStringList{QStringLiteral("capture"), QStringLiteral("--steps"), QStringLiteral("2")} + common).exitCode, 0);
    auto statsOf = [&](const QString& sel) { return runCli({QStringLiteral("stats"), sel, QStringLiteral("--json")}); };
    auto before = statsOf(file + QStringLiteral(":1"));
    QCOMPARE(before.exitCode, 0);

    QProcess p;
    p.start(qEnvironmentVariable("WHERETIME_CLI"),
            QStringList{QStringLiteral("capture"), QStringLiteral("--steps"), QStringLiteral("1000000"), QStringLiteral("--warmup"),
                        QStringLiteral("0")} + common);
    QVERIFY(p.waitForStarted());
    // Wait until at least two steps are committed, as a reader in another process sees them.
    int64_t seenKernels = 0;
    size_t seenSteps = 0;
    for (int i = 0; i < 600 && seenSteps < 2; ++i) {
        QThread::msleep(20);
        try {
            Database db(path, OpenMode::ReadOnly);
            db.exec("BEGIN");   // one snapshot: the kernels and the steps of the same commit
            Reader r(db);
            auto runs = r.runs();
            if (runs.size() < 2)
                continue;
            seenKernels = runs[1].kernels;
            ScopeTree tree = ScopeTree::load(r, runs[1].id);
            seenSteps = 0;
            for (const ScopeInstance& si : r.scopeInstances(runs[1].id))
                seenSteps += tree.level(si.scopeId) == "step" ? 1 : 0;
        } catch (const StorageError&) {
        }
    }
    QVERIFY2(seenSteps >= 2, "no committed step became visible while the capture ran");
    QVERIFY(seenKernels > 0);
    ::kill(pid_t(p.processId()), SIGKILL);
    QVERIFY(p.waitForFinished(30000));
    QCOMPARE(p.exitStatus(), QProcess::CrashExit);

    auto check = [&](OpenMode mode, int64_t& kernels) {
        Database db(path, mode);
        Reader r(db);
        auto runs = r.runs();
        QCOMPARE(runs.size(), size_t(2));
        const RunInfo& run = runs[1];
        QCOMPARE(int(run.status), int(RunStatus::Incomplete));
        QVERIFY2(run.kernels >= seenKernels, qPrintable(QStringLiteral("%1 < %2").arg(run.kernels).arg(seenKernels)));
        // The committed summary is that of the committed activities.
        int64_t activities = 0, timeNs = 0;
        r.forEachActivity(run.id, [&](const Activity& a) {
            ++activities;
            timeNs += a.endNs - a.startNs;
            return true;
        });
        QCOMPARE(activities, run.kernels);
        QCOMPARE(timeNs, run.kernelTimeNs);
        int64_t totalCount = 0, totalNs = 0;
        for (const TotalRow& t : r.totals(run.id)) {
            totalCount += t.count;
            totalNs += t.timeNs;
        }
        QCOMPARE(totalCount, run.kernels);
        QCOMPARE(totalNs, run.kernelTimeNs);
        int64_t trackCount = 0;
        for (const Track& t : r.tracks(run.id))
            trackCount += t.count;
        QCOMPARE(trackCount, run.kernels);
        QVERIFY(run.busyNs > 0 && run.busyNs <= run.spanEndNs - run.spanStartNs);
        kernels = run.kernels;
    };
    int64_t readOnly = 0, recovered = -1;
    check(OpenMode::ReadOnly, readOnly);   // at once, without a writer rebuilding anything
    if (QTest::currentTestFailed())
        return;
    check(OpenMode::ReadWrite, recovered);   // a writer's open marks it, and changes no figure
    QCOMPARE(recovered, readOnly);
    auto stats = statsOf(file + QStringLiteral(":2"));
    QCOMPARE(stats.exitCode, 0);
    QVERIFY(stats.out.contains(QStringLiteral("incomplete")));
    auto after = statsOf(file + QStringLiteral(":1"));
    QCOMPARE(sha(after.out), sha(before.out));
}

void TestCapture::sinkCommitsWithinLongStep()
{
    // Within a step (no commit point yet), records that wait are committed within about a
    // second: a kill during a long step loses at most that second.
    std::string path = test::tempPath("longstep.wt");
    Database db(path, OpenMode::ReadWrite);
    Writer writer(db);
    RunInfo info;
    info.backend = "cpu";
    int64_t run = writer.beginRun(info);
    capture::RecordSink sink(writer);
    // Let the writer thread fall asleep with nothing to do first, as it does after a step's
    // commit: the records of a long step must still wake its timed commit.
    QThread::msleep(200);
    uint32_t name = sink.name("long_kernel");
    int64_t node = sink.scopeNode(0, "step", "step");
    int64_t inst = sink.beginScope(node, 0, 0);
    for (int i = 0; i < 100; ++i) {
        capture::ActivityRecord a;
        a.startNs = i * 100;
        a.endNs = i * 100 + 50;
        a.name = name;
        a.scopeInstance = inst;
        sink.activity(a);
    }
    auto committed = [&] {
        Database ro(path, OpenMode::ReadOnly);
        return Reader(ro).run(run).kernels;
    };
    // Fewer than a wake batch, no kick, no step end: only the timed commit makes them visible.
    int64_t seen = 0;
    for (int i = 0; i < 60 && seen < 100; ++i) {
        QThread::msleep(50);
        seen = committed();
    }
    QCOMPARE(seen, int64_t(100));
    int64_t timed = sink.commits();
    QVERIFY(timed >= 1);   // the timed commit (no step ended)
    sink.endScope(inst, 10000);
    sink.commit();
    sink.close();
    QCOMPARE(sink.commits(), timed + 1);
    writer.finishRun(RunStatus::Complete, 10000);
    QCOMPARE(committed(), int64_t(100));
}

void TestCapture::damagedRunRefused()
{
    // A parent cycle in one run's scope tree (as `UPDATE scopes SET parent_id = id` makes) made
    // stats spin forever: the run is refused with one line, the other run still reads.
    std::string path = test::tempPath("damaged.wt");
    QString file = QString::fromStdString(path);
    for (int i = 0; i < 2; ++i)
        QCOMPARE(runCli({QStringLiteral("capture"), QStringLiteral("--workload"), QStringLiteral("gcn"), QStringLiteral("--preset"),
                         QStringLiteral("tiny"), QStringLiteral("--backend"), QStringLiteral("cpu"), QStringLiteral("--steps"),
                         QStringLiteral("1"), QStringLiteral("-o"), file})
                     .exitCode,
                 0);
    auto good = runCli({QStringLiteral("stats"), file + QStringLiteral(":1"), QStringLiteral("--json")});
    QCOMPARE(good.exitCode, 0);
    sqlite3* db = nullptr;
    QCOMPARE(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    QCOMPARE(sqlite3_exec(db, "UPDATE scopes SET parent_id = id WHERE run_id = 2", nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);
    const QStringList refused[] = {
        {QStringLiteral("stats"), file + QStringLiteral(":2")},
        {QStringLiteral("stats"), file + QStringLiteral(":2"), QStringLiteral("--group-by"), QStringLiteral("scope")},
        {QStringLiteral("export"), file + QStringLiteral(":2"), QStringLiteral("--format"), QStringLiteral("chrome"), QStringLiteral("-o"),
         QString::fromStdString(test::tempPath("damaged.json"))},
        {QStringLiteral("export"), file + QStringLiteral(":2"), QStringLiteral("--format"), QStringLiteral("csv"), QStringLiteral("-o"),
         QString::fromStdString(test::tempPath("damaged.csv"))},
    };
    for (const QStringList& args : refused) {
        auto r = runCli(args, 20000);
        QVERIFY2(r.err != QStringLiteral("timed out"), qPrintable(args.join(QLatin1Char(' '))));
        QVERIFY2(r.exitCode == 1, qPrintable(args.join(QLatin1Char(' ')) + QStringLiteral(" -> ") + QString::number(r.exitCode) + r.err));
        QCOMPARE(r.err.trimmed().count(QLatin1Char('\n')), 0);
        QVERIFY2(r.err.contains(QStringLiteral("run 2 is damaged")), qPrintable(r.err));
    }
    auto still = runCli({QStringLiteral("stats"), file + QStringLiteral(":1"), QStringLiteral("--json")});
    QCOMPARE(still.exitCode, 0);
    QCOMPARE(still.out, good.out);
    QCOMPARE(runCli({QStringLiteral("runs"), file}).exitCode, 0);
}

void TestCapture::badInput()
{
    QString file = QString::fromStdString(test::tempPath("bad.wt"));
    auto base = [&](QStringList extra) {
        QStringList a = {QStringLiteral("capture"), QStringLiteral("--preset"), QStringLiteral("tiny"), QStringLiteral("--backend"),
                         QStringLiteral("cpu"), QStringLiteral("--steps"), QStringLiteral("1"), QStringLiteral("-o"), file};
        return a + extra;
    };
    // One good run first: bad attempts must leave it untouched.
    QCOMPARE(runCli(base({QStringLiteral("--workload"), QStringLiteral("gcn")})).exitCode, 0);
    QByteArray before = runCli({QStringLiteral("stats"), file, QStringLiteral("--json")}).out.toUtf8();
    struct Case { QStringList args; int code; const char* needle; };
    const Case cases[] = {
        {{QStringLiteral("--workload"), QStringLiteral("lstm")}, 2, "lstm"},
        {{QStringLiteral("--workload"), QStringLiteral("gcn"), QStringLiteral("--variant"), QStringLiteral("magic")}, 2, "magic"},
        {{QStringLiteral("--workload"), QStringLiteral("gcn"), QStringLiteral("--preset"), QStringLiteral("huge")}, 2, "huge"},
        {{QStringLiteral("--workload"), QStringLiteral("gcn"), QStringLiteral("--set"), QStringLiteral("colour=3")}, 2, "colour"},
        // A size out of range is an error (one line, exit 1), not a usage mistake (tst_clisizes).
        {{QStringLiteral("--workload"), QStringLiteral("gcn"), QStringLiteral("--set"), QStringLiteral("hidden=0")}, 1, "hidden=0 is out of range"},
        {{QStringLiteral("--workload"), QStringLiteral("gcn"), QStringLiteral("--set"), QStringLiteral("hidden")}, 2, "hidden"},
        {{QStringLiteral("--workload"), QStringLiteral("gcn"), QStringLiteral("--steps"), QStringLiteral("0")}, 2, "steps"},
        {{QStringLiteral("--workload"), QStringLiteral("gcn"), QStringLiteral("--backend"), QStringLiteral("tpu")}, 2, "tpu"},
    };
    for (const Case& c : cases) {
        auto r = runCli(base(c.args));
        QVERIFY2(r.exitCode == c.code, qPrintable(c.args.join(QLatin1Char(' ')) + QStringLiteral(" -> ") + QString::number(r.exitCode)));
        QVERIFY2(r.err.contains(QLatin1String(c.needle)), qPrintable(r.err));
    }
    // No GPU here (or no CUDA plugin): --backend cuda fails in one line (tst_cudaplugin has more).
    if (!capture::cudaUsable(nullptr)) {
        auto r = runCli({QStringLiteral("capture"), QStringLiteral("--workload"), QStringLiteral("gcn"), QStringLiteral("--backend"),
                         QStringLiteral("cuda"), QStringLiteral("-o"), file});
        QCOMPARE(r.exitCode, 1);
        QVERIFY(r.err.contains(QStringLiteral("cuda")));
        QCOMPARE(r.err.trimmed().count(QLatin1Char('\n')), 0);
    }
    // Unwritable output.
    auto r = runCli({QStringLiteral("capture"), QStringLiteral("--workload"), QStringLiteral("gcn"), QStringLiteral("--preset"),
                     QStringLiteral("tiny"), QStringLiteral("--backend"), QStringLiteral("cpu"), QStringLiteral("-o"),
                     QStringLiteral("/nonexistent-dir/x.wt")});
    QCOMPARE(r.exitCode, 1);
    QCOMPARE(r.err.trimmed().count(QLatin1Char('\n')), 0);
    QCOMPARE(runCli({QStringLiteral("stats"), file, QStringLiteral("--json")}).out.toUtf8(), before);
    QCOMPARE(QJsonDocument::fromJson(runCli({QStringLiteral("runs"), file, QStringLiteral("--json")}).out.toUtf8()).array().size(), 1);
}

void TestCapture::diskFull()
{
    QString file = QString::fromStdString(test::tempPath("full.wt"));
    QString cli = qEnvironmentVariable("WHERETIME_CLI");
    QStringList common = {QStringLiteral("--workload"), QStringLiteral("gcn"), QStringLiteral("--preset"), QStringLiteral("tiny"),
                          QStringLiteral("--backend"), QStringLiteral("cpu"), QStringLiteral("-o"), file};
    QCOMPARE(runCli(QStringList{QStringLiteral("capture"), QStringLiteral("--steps"), QStringLiteral("1")} + common).exitCode, 0);
    QByteArray before = runCli({QStringLiteral("stats"), file, QStringLiteral("--json")}).out.toUtf8();
    qint64 size = QFile(file).size() + QFile(file + QStringLiteral("-wal")).size();
    // A file-size limit a little above the current size, then a capture that needs much more.
    QString script = QStringLiteral("ulimit -f %1; exec \"$0\" \"$@\"").arg((size + 48 * 1024) / 512);
    auto r = test::runProgram(QStringLiteral("/bin/bash"),
                              QStringList{QStringLiteral("-c"), script, cli, QStringLiteral("capture"), QStringLiteral("--steps"),
                                          QStringLiteral("400"), QStringLiteral("--warmup"), QStringLiteral("0"),
                                          QStringLiteral("--set"), QStringLiteral("layers=4")} + common);
    QVERIFY2(r.exitCode != 0, qPrintable(r.out));
    QVERIFY2(r.exitCode == 1, qPrintable(QString::number(r.exitCode) + r.err));
    QCOMPARE(r.err.trimmed().count(QLatin1Char('\n')), 0);
    QVERIFY2(r.err.contains(QStringLiteral("disk full")) || r.err.contains(QStringLiteral("write failed")), qPrintable(r.err));
    auto after = runCli({QStringLiteral("stats"), file + QStringLiteral(":1"), QStringLiteral("--json")});
    QCOMPARE(after.exitCode, 0);
    QCOMPARE(after.out.toUtf8(), before);
    // Reading commands still read with no byte left to write (ulimit -f 0: every write that
    // extends a file fails, as on a full disk), and never say "write failed".
    QFile::remove(file + QStringLiteral("-shm"));
    for (const QStringList& args : {QStringList{QStringLiteral("runs"), file},
                                    QStringList{QStringLiteral("stats"), file + QStringLiteral(":1"), QStringLiteral("--json")},
                                    QStringList{QStringLiteral("export"), file + QStringLiteral(":1"), QStringLiteral("--format"),
                                                QStringLiteral("chrome"), QStringLiteral("-o"), QStringLiteral("-")}}) {
        auto rr = test::runProgram(QStringLiteral("/bin/bash"),
                                   QStringList{QStringLiteral("-c"), QStringLiteral("ulimit -f 0; exec \"$0\" \"$@\""), cli} + args);
        QVERIFY2(rr.exitCode == 0, qPrintable(args.join(QLatin1Char(' ')) + QStringLiteral(": ") + rr.err));
        QVERIFY(!rr.err.contains(QStringLiteral("write failed")));
        if (args[0] == QStringLiteral("stats"))
            QCOMPARE(rr.out.toUtf8(), before);
    }
}

namespace {
// Fails like a CUDA launch that hits an illegal address: DeviceError from the launch hook of
// the failAt-th launch of the capture. Like the CUPTI tracer it still holds records at the
// end, which stop() hands to the sink, and its destructor stops it too: with a sink that
// dies first, ASan reports the use after free.
class FailingTracer : public capture::CpuTracer {
public:
    FailingTracer(capture::RecordSink& sink, const std::atomic<bool>* stop, int failAt, bool* destroyed)
        : CpuTracer(sink, stop), m_failAt(failAt), m_destroyed(destroyed) {}
    ~FailingTracer() override
    {
        stop();
        *m_destroyed = true;
    }
    void launchBegin(const kernels::OpLaunch& op) override
    {
        if (++m_launches == m_failAt)
            throw kernels::DeviceError("CUDA error in glu_forward: an illegal memory access was encountered");
        CpuTracer::launchBegin(op);
    }
    void stop() override
    {
        if (m_stopped)
            return;
        m_stopped = true;
        capture::ActivityRecord r;   // a late record, as CUPTI's last buffer would bring
        r.startNs = 1;
        r.endNs = 2;
        r.name = m_sink.name("late_kernel");
        m_sink.activity(r);
    }
    int launches() const { return m_launches; }

private:
    int m_failAt;
    int m_launches = 0;
    bool m_stopped = false;
    bool* m_destroyed;
};
}  // namespace

void TestCapture::deviceErrorMidStep()
{
    // Launches of the first step of a fresh model, as the capture will run it.
    struct Counter : kernels::Observer {
        int launches = 0;
        void scopeEnter(std::string_view, kernels::ScopeLevel) override {}
        void scopeExit() override {}
        void launchBegin(const kernels::OpLaunch&) override { ++launches; }
        void launchEnd() override {}
    } counter;
    {
        auto model = kernels::Model::create(kernels::resolveConfig("gcn", "tiny", "adaptive", {}));
        model->prepare();
        model->setObserver(&counter);
        model->step();
        model->setObserver(nullptr);
    }
    const int perStep = counter.launches;
    QVERIFY(perStep > 10);

    std::string file = test::tempPath("deviceerror.wt");
    capture::CaptureOptions o;
    o.workload = "gcn";
    o.preset = "tiny";
    o.backend = "cpu";
    o.steps = 3;
    o.warmup = 0;
    o.output = file;
    bool destroyed = false;
    o.tracerFactory = [&](capture::RecordSink& sink, const std::atomic<bool>* stop) {
        return std::make_unique<FailingTracer>(sink, stop, perStep + perStep / 2, &destroyed);   // mid step 2
    };
    int64_t runId = 0;
    QString message;
    try {
        capture::runCapture(o);
        QFAIL("the device error did not end the capture");
    } catch (const capture::CaptureFailed& e) {
        runId = e.runId;
        message = QString::fromUtf8(e.what());
    }
    QVERIFY(destroyed);
    QVERIFY2(message.contains(QStringLiteral("illegal memory access")), qPrintable(message));
    QVERIFY2(message.contains(QStringLiteral("marked failed")), qPrintable(message));
    QVERIFY2(message.contains(QStringLiteral("after 1 of 3 steps")), qPrintable(message));
    QVERIFY(!message.contains(QLatin1Char('\n')));

    Database db(file, OpenMode::ReadOnly);
    Reader r(db);
    RunInfo run = r.run(runId);
    QCOMPARE(QString::fromStdString(std::string(toString(run.status))), QStringLiteral("failed"));
    QString error;
    for (const auto& [key, value] : r.metadata(runId))
        if (key == "error")
            error = QString::fromStdString(value);
    QVERIFY2(error.contains(QStringLiteral("illegal memory access")), qPrintable(error));
    // What was recorded before the error is kept: step 1's launches, half of step 2's, and
    // the late record the tracer handed over at its stop.
    int64_t late = 0, all = 0;
    r.forEachActivity(runId, [&](const Activity& a) {
        ++all;
        late += r.string(a.nameId) == "late_kernel";
        return true;
    });
    QCOMPARE(late, int64_t(1));
    QCOMPARE(all, int64_t(perStep + perStep / 2 - 1 + 1));
}

QTEST_GUILESS_MAIN(TestCapture)
#include "tst_capture.moc"
