// The model API: configs and errors, the scope/launch contract seen by an Observer, op
// listing (paper preset without allocation), and training that lowers the loss.
#include "kernels/data.h"
#include "kernels/model.h"
#include "tests/support/testsupport.h"

#include <QTest>

#include <chrono>
#include <fstream>
#include <set>

using namespace wt::kernels;

namespace {

// Checks the nesting rules of the Observer contract and counts launches.
class CheckingObserver final : public Observer {
public:
    void scopeEnter(std::string_view name, ScopeLevel level) override
    {
        int expected = int(m_levels.size());   // Step=0 > Phase=1 > Layer=2 > Op=3
        if (int(level) != expected)
            m_errors.push_back("scope '" + std::string(name) + "' at wrong depth");
        if (level == ScopeLevel::Step && name != "step")
            m_errors.push_back("step scope named " + std::string(name));
        if (level == ScopeLevel::Phase && name != "forward" && name != "backward" && name != "update")
            m_errors.push_back("phase " + std::string(name));
        if (level == ScopeLevel::Layer)
            m_layers.insert(std::string(name));
        m_levels.push_back(level);
    }
    void scopeExit() override
    {
        if (m_levels.empty())
            m_errors.push_back("exit without enter");
        else
            m_levels.pop_back();
    }
    void launchBegin(const OpLaunch& op) override
    {
        if (m_inLaunch)
            m_errors.push_back("nested launch");
        if (m_levels.size() < 3)
            m_errors.push_back("launch " + std::string(op.name) + " outside a layer scope");
        if (!(op.flops >= 0) || !(op.bytes >= 0))
            m_errors.push_back("bad estimates");
        m_inLaunch = true;
        ++m_launches;
    }
    void launchEnd() override
    {
        if (!m_inLaunch)
            m_errors.push_back("end without begin");
        m_inLaunch = false;
    }
    std::vector<ScopeLevel> m_levels;
    std::vector<std::string> m_errors;
    std::set<std::string> m_layers;
    bool m_inLaunch = false;
    long m_launches = 0;
};

std::string learnableCorpus()
{
    std::string path = wt::test::tempPath("corpus.txt");
    std::ofstream out(path);
    for (int i = 0; i < 300; ++i)
        out << "the cat sat on the mat . a dog ran to the park and the bird sang a song .\n";
    return path;
}

double mean(const std::vector<float>& v, size_t from, size_t to)
{
    double s = 0;
    for (size_t i = from; i < to; ++i)
        s += v[i];
    return s / double(to - from);
}

}  // namespace

class TestModels : public QObject {
    Q_OBJECT
private slots:
    void listsWorkloads()
    {
        QCOMPARE(workloads().size(), size_t(2));
        QCOMPARE(presets().size(), size_t(3));
        QVERIFY(variants().size() >= 4);
        for (const auto& v : variants())
            QVERIFY(!variantSummary(v).empty());
    }
    void rejectsBadConfigs()
    {
        using Ov = std::vector<std::pair<std::string, std::string>>;
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, resolveConfig("lstm", "tiny", "adaptive", {}));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, resolveConfig("gcn", "huge", "adaptive", {}));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, resolveConfig("gcn", "tiny", "sampled", {}));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, resolveConfig("gcn", "tiny", "adaptive", Ov{{"heads", "2"}}));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, resolveConfig("gcn", "tiny", "adaptive", Ov{{"hidden", "x"}}));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, resolveConfig("gcn", "tiny", "adaptive", Ov{{"hidden", "-3"}}));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, resolveConfig("gcn", "tiny", "adaptive", Ov{{"cutoffs", "20,10"}}));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, resolveConfig("gcn", "tiny", "adaptive", Ov{{"cutoffs", "10,64"}}));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 resolveConfig("transformer", "tiny", "adaptive", Ov{{"heads", "3"}}));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, parseOverride("hidden"));
        try {
            resolveConfig("gcn", "tiny", "adaptive", Ov{{"widht", "3"}});
            QFAIL("no exception");
        } catch (const std::invalid_argument& e) {
            QVERIFY(std::string(e.what()).find("unknown size 'widht'") != std::string::npos);
        }
        // full needs no cutoffs, so cutoffs beyond the vocabulary do not matter there.
        resolveConfig("gcn", "tiny", "full", Ov{{"vocab", "10"}});
        if (!cudaAvailable())
            QVERIFY_THROWS_EXCEPTION(DeviceError, Model::create("gcn", "tiny", "adaptive", {}, BackendKind::Cuda));
    }
    void configJson()
    {
        auto m = Model::create("transformer", "tiny", "fused", {{"hidden", "24"}, {"cutoffs", "10,20"}}, BackendKind::Cpu, 7);
        std::string j = m->configJson();
        QVERIFY(j.find("\"hidden\":24") != std::string::npos);
        QVERIFY(j.find("\"cutoffs\":[10,20]") != std::string::npos);
        QVERIFY(j.find("\"variant\":\"fused\"") != std::string::npos);
        QVERIFY(j.find("\"seed\":7") != std::string::npos);
    }
    void observerContract_data()
    {
        QTest::addColumn<QString>("workload");
        QTest::addColumn<QString>("variant");
        for (auto w : {"gcn", "transformer"})
            for (const auto& v : variants())
                QTest::newRow(qPrintable(QString::fromLatin1(w) + "/" + QString::fromStdString(v)))
                    << QString::fromLatin1(w) << QString::fromStdString(v);
    }
    void observerContract()
    {
        QFETCH(QString, workload);
        QFETCH(QString, variant);
        auto m = Model::create(workload.toStdString(), "tiny", variant.toStdString(), {});
        CheckingObserver obs;
        m->setObserver(&obs);
        m->step();   // the first step allocates; the listing must match later steps exactly
        auto ops = m->listOps();
        obs.m_launches = 0;
        float loss = m->step();
        QVERIFY(std::isfinite(loss));
        for (const auto& e : obs.m_errors)
            qWarning("%s", e.c_str());
        QVERIFY(obs.m_errors.empty());
        QVERIFY(obs.m_levels.empty());
        QCOMPARE(long(ops.size()), obs.m_launches);
        QVERIFY(obs.m_layers.count("embedding") && obs.m_layers.count("softmax"));
        QVERIFY(obs.m_layers.count(workload == "gcn" ? "conv2" : "decoder.1"));
        for (const auto& o : ops) {
            QVERIFY2(o.scope.rfind("step/", 0) == 0, o.scope.c_str());
            QVERIFY(std::count(o.scope.begin(), o.scope.end(), '/') >= 2);
        }
    }
    void paperPresetListsWithoutAllocating()
    {
        for (auto w : {"gcn", "transformer"}) {
            auto t0 = std::chrono::steady_clock::now();
            auto m = Model::create(w, "paper", "adaptive", {});
            auto ops = m->listOps();
            double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            double flops = 0, softmaxFlops = 0;
            for (const auto& o : ops) {
                flops += o.flops;
                if (o.scope.find("/softmax") != std::string::npos)
                    softmaxFlops += o.flops;
            }
            QVERIFY(s < 5.0);
            QVERIFY(flops > 1e11);
            QVERIFY(softmaxFlops > 0.05 * flops && softmaxFlops < 0.9 * flops);
            if (std::string(w) == "transformer") {
                QVERIFY(std::any_of(ops.begin(), ops.end(), [](const OpInfo& o) {
                    return o.scope == "step/forward/decoder.23/attention";
                }));
            }
        }
    }
    void tinyStepIsFast()
    {
        for (auto w : {"gcn", "transformer"}) {
            auto m = Model::create(w, "tiny", "adaptive", {});
            m->step();
            auto t0 = std::chrono::steady_clock::now();
            for (int i = 0; i < 10; ++i)
                m->step();
            double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / 10;
            QVERIFY2(s < 0.05, qPrintable(QStringLiteral("%1 s per step").arg(s)));
        }
    }
    void deterministic()
    {
        auto a = Model::create("transformer", "tiny", "bucketed", {}, BackendKind::Cpu, 3);
        auto b = Model::create("transformer", "tiny", "bucketed", {}, BackendKind::Cpu, 3);
        for (int i = 0; i < 3; ++i)
            QCOMPARE(a->step(), b->step());
    }
    void cliCommand()
    {
        auto r = wt::test::runCli({QStringLiteral("workloads")});
        QCOMPARE(r.exitCode, 0);
        for (auto w : {"gcn", "transformer", "paper", "tiny", "adaptive", "fused", "cutoffs"})
            QVERIFY2(r.out.contains(QLatin1String(w)), w);
        r = wt::test::runCli({QStringLiteral("workloads"), QStringLiteral("--json")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.startsWith(QLatin1String("{\"workloads\":[")));
        r = wt::test::runCli({QStringLiteral("workloads"), QStringLiteral("gcn"), QStringLiteral("--set"), QStringLiteral("depth=3")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.contains(QLatin1String("unknown size 'depth'")));
        r = wt::test::runCli({QStringLiteral("workloads"), QStringLiteral("transformer"), QStringLiteral("--preset"),
                              QStringLiteral("paper"), QStringLiteral("--ops"), QStringLiteral("--csv")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.contains(QLatin1String("step/forward/decoder.23/ffn_up,sgemm_nt")));
        r = wt::test::runCli({QStringLiteral("workloads"), QStringLiteral("gcn"), QStringLiteral("--preset"),
                              QStringLiteral("tiny"), QStringLiteral("--run"), QStringLiteral("2")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.contains(QLatin1String("step 2  loss")));
    }
    void trainingLowersLoss_data()
    {
        QTest::addColumn<QString>("workload");
        QTest::addColumn<QString>("variant");
        for (auto w : {"gcn", "transformer"})
            for (auto v : {"adaptive", "fused", "full"})
                QTest::newRow(qPrintable(QString::fromLatin1(w) + "/" + QString::fromLatin1(v)))
                    << QString::fromLatin1(w) << QString::fromLatin1(v);
    }
    void trainingLowersLoss()
    {
        QFETCH(QString, workload);
        QFETCH(QString, variant);
        auto m = Model::create(workload.toStdString(), "tiny", variant.toStdString(), {{"corpus", learnableCorpus()}});
        std::vector<float> losses;
        for (int i = 0; i < 50; ++i)
            losses.push_back(m->step());
        double first = mean(losses, 0, 5), last = mean(losses, 45, 50);
        qInfo("loss %.3f -> %.3f", first, last);
        QVERIFY2(last < 0.6 * first, qPrintable(QStringLiteral("loss %1 -> %2").arg(first).arg(last)));
    }
};

QTEST_GUILESS_MAIN(TestModels)
#include "tst_models.moc"
