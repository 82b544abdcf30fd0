// interop/traceeventparser: TraceEvents to an ImportedTrace, tested without any JSON (events
// are built by hand): categories and their spellings, devices and streams, B/E pairing per
// thread, Kineto's CPU ops and annotations, GPU annotations with and without a CPU twin, plain
// Chrome slices and wheretime's own export, the format, the header, the errors naming the
// event, and strings that die after event() when the parser is told to copy them.
#include "interop/importerror.h"
#include "interop/traceeventparser.h"

#include <QTest>

#include <deque>
#include <string>

using namespace wt;
using namespace wt::interop;

namespace {

// An event with its strings owned by the test (the parser sees views).
struct Ev {
    TraceEvent e;
    Ev(char ph, std::string_view cat, std::string_view name, double tsUs, double durUs = -1)
    {
        e.ph = ph;
        e.cat = cat;
        e.name = name;
        e.hasTs = tsUs >= 0;
        e.ts = int64_t(tsUs * 1000);
        if (durUs >= 0) {
            e.hasDur = true;
            e.dur = int64_t(durUs * 1000);
        }
    }
    Ev& pid(int64_t n, bool numeric = true) { e.pid = {n, numeric}; return *this; }
    Ev& tid(int64_t n, bool numeric = true) { e.tid = {n, numeric}; return *this; }
    Ev& device(int64_t d) { e.device = d; e.hasDevice = true; return *this; }
    Ev& stream(int64_t s) { e.stream = s; e.hasStream = true; return *this; }
    Ev& correlation(int64_t c) { e.correlation = c; return *this; }
    Ev& external(int64_t x) { e.externalId = x; return *this; }
    Ev& wtIds(int64_t scope, int64_t instance, int64_t parent) { e.wtScope = scope; e.wtInstance = instance; e.wtParent = parent; return *this; }
    Ev& level(std::string_view l) { e.level = l; return *this; }
};

ImportedTrace run(std::initializer_list<Ev> events, const TraceHeader& header = {})
{
    TraceEventParser p("t.json", false);
    for (Ev ev : events)
        p.event(ev.e);
    return p.finish(header);
}

QString errorOf(std::initializer_list<Ev> events)
{
    try {
        run(events);
    } catch (const ImportError& e) {
        return QString::fromUtf8(e.what());
    }
    return {};
}

const std::string& nameOf(const ImportedTrace& t, uint32_t id) { return t.strings.at(id); }

}  // namespace

class TestTraceEventParser : public QObject {
    Q_OBJECT

private slots:
    void categories_data()
    {
        QTest::addColumn<QString>("cat");
        QTest::addColumn<int>("kernels");
        QTest::addColumn<int>("memcpys");
        QTest::addColumn<int>("memsets");
        QTest::addColumn<int>("calls");
        QTest::addColumn<int>("ranges");
        QTest::newRow("kernel") << "kernel" << 1 << 0 << 0 << 0 << 0;
        QTest::newRow("Kernel (2021)") << "Kernel" << 1 << 0 << 0 << 0 << 0;
        QTest::newRow("KERNEL") << "KERNEL" << 1 << 0 << 0 << 0 << 0;
        QTest::newRow("gpu_memcpy") << "gpu_memcpy" << 0 << 1 << 0 << 0 << 0;
        QTest::newRow("Memcpy") << "Memcpy" << 0 << 1 << 0 << 0 << 0;
        QTest::newRow("gpu_memset") << "gpu_memset" << 0 << 0 << 1 << 0 << 0;
        QTest::newRow("cuda_runtime") << "cuda_runtime" << 0 << 0 << 0 << 1 << 0;
        QTest::newRow("cuda_driver") << "cuda_driver" << 0 << 0 << 0 << 1 << 0;
        QTest::newRow("cpu_op") << "cpu_op" << 0 << 0 << 0 << 0 << 1;
        QTest::newRow("Operator") << "Operator" << 0 << 0 << 0 << 0 << 1;
        QTest::newRow("user_annotation") << "user_annotation" << 0 << 0 << 0 << 0 << 1;
        QTest::newRow("python_function (skipped)") << "python_function" << 0 << 0 << 0 << 0 << 0;
        QTest::newRow("Trace (skipped)") << "Trace" << 0 << 0 << 0 << 0 << 0;
    }
    void categories()
    {
        QFETCH(QString, cat);
        QFETCH(int, kernels);
        QFETCH(int, memcpys);
        QFETCH(int, memsets);
        QFETCH(int, calls);
        QFETCH(int, ranges);
        const std::string c = cat.toStdString();
        // A kernel after it, so that every trace has an activity.
        ImportedTrace t = run({Ev('X', c, "e", 1, 1), Ev('X', "kernel", "k", 5, 1)});
        QCOMPARE(t.counts.kernels, int64_t(kernels + 1));
        QCOMPARE(t.counts.memcpys, int64_t(memcpys));
        QCOMPARE(t.counts.memsets, int64_t(memsets));
        QCOMPARE(t.counts.runtimeCalls, int64_t(calls));
        QCOMPARE(t.counts.ranges, int64_t(ranges));
        QCOMPARE(int64_t(t.calls.size()), int64_t(calls));
    }

    void activities()
    {
        ImportedTrace t = run({Ev('X', "kernel", "k1", 10, 2).pid(3).tid(7).correlation(5),
                               Ev('X', "kernel", "k2", 20, 1).pid(3).tid(7).device(1).stream(9),
                               Ev('X', "gpu_memcpy", "m", 30, 1).pid(5, false).tid(2),
                               Ev('X', "kernel", "k1", 40, -1).pid(3).tid(7)});
        QCOMPARE(t.activities.size(), size_t(4));
        const auto& a = t.activities[0];
        QVERIFY(a.kind == ActivityKind::Kernel);
        QCOMPARE(a.startNs, int64_t(10000));
        QCOMPARE(a.endNs, int64_t(12000));
        QCOMPARE(a.device, 3);    // from pid
        QCOMPARE(a.stream, int64_t(7));   // from tid
        QCOMPARE(a.correlationId, int64_t(5));
        QCOMPARE(a.range, int64_t(-1));
        QCOMPARE(t.activities[1].device, 1);   // args win
        QCOMPARE(t.activities[1].stream, int64_t(9));
        QVERIFY(t.activities[2].kind == ActivityKind::Memcpy);
        QCOMPARE(t.activities[2].device, 0);   // a non-numeric pid names no device
        QCOMPARE(t.activities[3].endNs, t.activities[3].startNs);   // no dur: an instant
        QCOMPARE(t.activities[3].name, a.name);   // interned once
        QCOMPARE(nameOf(t, t.activities[1].name), std::string("k2"));
        QCOMPARE(t.format, std::string("chrome"));
        QVERIFY(t.epochClock);
    }

    void beginEndPairs()
    {
        ImportedTrace t = run({Ev('B', "", "outer", 1).tid(1), Ev('B', "", "inner", 2).tid(1),
                               Ev('B', "", "other thread", 3).tid(2), Ev('E', "", "", 4).tid(1),
                               Ev('E', "", "", 6).tid(1), Ev('E', "", "", 7).tid(3),   // no B on thread 3: ignored
                               Ev('B', "", "never closed", 8).tid(1), Ev('X', "kernel", "k", 9, 1)});
        QCOMPARE(t.ranges.size(), size_t(2));
        QCOMPARE(nameOf(t, t.ranges[0].name), std::string("inner"));   // closed first
        QCOMPARE(t.ranges[0].startNs, int64_t(2000));
        QCOMPARE(t.ranges[0].endNs, int64_t(4000));
        QCOMPARE(nameOf(t, t.ranges[1].name), std::string("outer"));
        QCOMPARE(t.ranges[1].endNs, int64_t(6000));
        QCOMPARE(nameOf(t, t.ranges[1].level), std::string("annotation"));
        QCOMPARE(t.counts.skippedRanges, int64_t(2));   // "other thread" and "never closed" stay open
    }

    void kinetoRanges()
    {
        ImportedTrace t = run({Ev('X', "cpu_op", "aten::mm", 1, 5).tid(4), Ev('X', "user_annotation", "fwd", 0, 10).tid(4).external(3),
                               Ev('X', "gpu_user_annotation", "fwd", 2, 4).pid(0).tid(7).external(3),   // the CPU one's twin
                               Ev('X', "gpu_user_annotation", "gpu only", 2, 4).pid(1).tid(8),
                               Ev('X', "scope", "plain", 0, 1), Ev('X', "kernel", "k", 3, 1).pid(0).tid(7)});
        QCOMPARE(t.format, std::string("kineto"));
        QCOMPARE(t.counts.gpuAnnotations, int64_t(2));
        QCOMPARE(t.ranges.size(), size_t(3));   // cpu_op, user annotation, the GPU annotation without a twin
        QCOMPARE(nameOf(t, t.ranges[0].level), std::string("op"));
        QCOMPARE(nameOf(t, t.ranges[1].level), std::string("annotation"));
        const auto& g = t.ranges[2];
        QVERIFY(g.onGpu);
        QCOMPARE(nameOf(t, g.name), std::string("gpu only"));
        QCOMPARE(g.thread, ImportedTrace::gpuLane(1, 8));
        QCOMPARE(t.counts.skippedRanges, int64_t(1));   // the plain slice, in a Kineto trace
    }

    // A Kineto runtime category other than cuda_runtime marks the trace as Kineto.
    void runtimeSpellingMarksKineto()
    {
        QCOMPARE(run({Ev('X', "cuda_runtime", "cudaLaunchKernel", 1, 1), Ev('X', "kernel", "k", 2, 1)}).format, std::string("chrome"));
        QCOMPARE(run({Ev('X', "Runtime", "cudaLaunchKernel", 1, 1), Ev('X', "kernel", "k", 2, 1)}).format, std::string("kineto"));
    }

    void wheretimeExport()
    {
        TraceHeader h;
        h.kineto = true;      // a Kineto-looking header ...
        h.wheretime = true;   // ... of wheretime's own export: chrome rules
        h.clockBaseNs = 777;
        h.zeroAtClockBase = true;
        h.devices.push_back(DeviceInfo{0, "G", "{}"});
        h.metadata = {{"source.version", "1"}};
        ImportedTrace t = run({Ev('X', "scope", "step", 0, 10).level("step").wtIds(0, 1, 0), Ev('X', "scope", "fwd", 1, 5).wtIds(0, 2, 1),
                               Ev('X', "kernel", "k", 2, 1).wtIds(2, 0, 0), Ev('X', "kernel", "k0", 3, 1).wtIds(9, 0, 0)},
                              h);
        QCOMPARE(t.format, std::string("chrome"));
        QCOMPARE(t.ranges.size(), size_t(2));
        QVERIFY(t.ranges[0].parentGiven && t.ranges[1].parentGiven);
        QCOMPARE(t.ranges[0].parent, int64_t(-1));
        QCOMPARE(t.ranges[1].parent, int64_t(0));
        QCOMPARE(nameOf(t, t.ranges[0].level), std::string("step"));
        QCOMPARE(t.activities[0].range, int64_t(1));    // wt_scope 2 is the range of instance 2
        QCOMPARE(t.activities[1].range, int64_t(-1));   // an unknown instance
        QCOMPARE(t.clockBaseNs, int64_t(777));
        QVERIFY(t.zeroAtClockBase);
        QCOMPARE(t.devices.size(), size_t(1));
        QVERIFY(t.metadata == h.metadata);
    }

    void errors_data()
    {
        QTest::addColumn<int>("which");
        QTest::addColumn<QString>("needle");
        QTest::newRow("no ts") << 0 << "t.json: event 2 ('k') has no ts";
        QTest::newRow("problem") << 1 << "t.json: event 1 ('bad'): invalid number for bytes: 'x'";
        QTest::newRow("no events") << 2 << "t.json: empty trace: no trace events";
        QTest::newRow("no activities") << 3 << "t.json: empty trace: no GPU kernels, memcpy or memset among 2 events";
    }
    void errors()
    {
        QFETCH(int, which);
        QFETCH(QString, needle);
        const std::string problem = "invalid number for bytes: 'x'";
        Ev bad('X', "kernel", "bad", 1, 1);
        bad.e.problem = &problem;
        QString error;
        switch (which) {
        case 0: error = errorOf({Ev('X', "kernel", "ok", 1, 1), Ev('X', "kernel", "k", -1, 1)}); break;
        case 1: error = errorOf({bad, Ev('X', "kernel", "ok", 1, 1)}); break;
        case 2: error = errorOf({}); break;
        default: error = errorOf({Ev('X', "cpu_op", "a", 1, 1), Ev('X', "cuda_runtime", "b", 1, 1)}); break;
        }
        QCOMPARE(error, needle);
        QCOMPARE(qsizetype(error.count(QLatin1Char('\n'))), qsizetype(0));
    }

    // copyStrings: every view dies when event() returns (overwritten here); names, open B
    // events, annotations and plain slices must have been copied. The same events with views
    // that live on give the same trace.
    void copiedStrings_data()
    {
        QTest::addColumn<bool>("kineto");
        QTest::newRow("chrome: B/E and plain slices") << false;
        QTest::newRow("kineto: B/E cpu ops and GPU annotations") << true;
    }
    void copiedStrings()
    {
        QFETCH(bool, kineto);
        TraceEventParser p("t.json", true);
        TraceEventParser q("t.json", false);
        std::deque<std::string> owned;   // for q: strings that live on
        auto feed = [&](Ev ev) {
            std::string cat(ev.e.cat), name(ev.e.name), level(ev.e.level);
            Ev a = ev;
            a.e.cat = cat;
            a.e.name = name;
            a.e.level = level;
            p.event(a.e);
            for (std::string* x : {&cat, &name, &level})
                std::fill(x->begin(), x->end(), '#');   // the text under the views changes
            Ev b = ev;
            b.e.cat = owned.emplace_back(ev.e.cat);
            b.e.name = owned.emplace_back(ev.e.name);
            b.e.level = owned.emplace_back(ev.e.level);
            q.event(b.e);
        };
        const std::string_view cat = kineto ? "cpu_op" : "";
        for (Ev ev : {Ev('B', cat, "open", 1).tid(1), Ev('X', "kernel", "kern", 2, 1), Ev('X', "kernel", "kern", 3, 1),
                      Ev('X', "", "slice", 2, 1).level("lvl"), Ev('E', "", "", 5).tid(1)})
            feed(ev);
        if (kineto)
            feed(Ev('X', "gpu_user_annotation", "gpu", 2, 1));
        auto describe = [](const ImportedTrace& t) {
            std::string s = t.format + "\n";
            for (const auto& r : t.ranges)
                s += t.strings.at(r.name) + "/" + t.strings.at(r.level) + "\n";
            for (const auto& a : t.activities)
                s += t.strings.at(a.name) + "\n";
            return s;
        };
        const std::string copied = describe(p.finish({})), kept = describe(q.finish({}));
        QCOMPARE(QString::fromStdString(copied), QString::fromStdString(kept));
        QVERIFY(copied.find('#') == std::string::npos);
        if (kineto) {
            QCOMPARE(QString::fromStdString(copied), QStringLiteral("kineto\nopen/op\ngpu/annotation\nkern\nkern\n"));
        } else {
            QCOMPARE(QString::fromStdString(copied), QStringLiteral("chrome\nslice/lvl\nopen/annotation\nkern\nkern\n"));
        }
    }
};

QTEST_GUILESS_MAIN(TestTraceEventParser)
#include "tst_traceeventparser.moc"
