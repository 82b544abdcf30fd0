// A predicted run (`wheretime predict`, backend model) opens in the GUI's run loader like a
// capture: every predicted op is a kernel on the timeline, under its scope instance, with the
// run's stored kernel time.
#include "app/gui/core/rundata.h"
#include "storage/database.h"
#include "storage/reader.h"
#include "tests/support/testsupport.h"

#include <QTest>

using namespace wt;
using namespace wt::gui;

class TestPredictedRun : public QObject {
    Q_OBJECT
private slots:
    void loadsLikeACapture()
    {
        const std::string path = test::tempPath("predicted.wt");
        auto r = test::runCli({QStringLiteral("predict"), QStringLiteral("--workload"), QStringLiteral("gcn"),
                               QStringLiteral("--preset"), QStringLiteral("tiny"), QStringLiteral("--device"),
                               QStringLiteral("h100"), QStringLiteral("--steps"), QStringLiteral("2"), QStringLiteral("-o"),
                               QString::fromStdString(path)});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        RunInfo info;
        {
            Database db(path, OpenMode::ReadOnly);
            info = Reader(db).runs().at(0);
        }
        QCOMPARE(info.backend, std::string("model"));
        auto run = loadRun(path, info.id);
        QVERIFY(run);
        QCOMPARE(run->kernelCount, info.kernels);
        QVERIFY(run->kernelCount > 20);
        int64_t kernelTime = 0, underScope = 0;
        for (const TrackData& t : run->tracks)
            for (size_t i = 0; i < t.size(); ++i)
                if (t.kind == TrackKind::Kernel) {
                    kernelTime += t.durationNs[i];
                    underScope += t.instance[i] != kNone;
                }
        QCOMPARE(kernelTime, info.kernelTimeNs);
        QCOMPARE(underScope, run->kernelCount);   // every predicted op sits in its scope
    }
};

QTEST_GUILESS_MAIN(TestPredictedRun)
#include "tst_predictedrun.moc"
