// The model API: configs and errors, the scope/launch contract seen by an Observer, op
// listing (paper preset without allocation), and training that lowers the loss.
#include "kernels/data.h"
#include "kernels/model.h"
#include "tests/support/testsupport.h"

#include <QTest>

#include <QFile>
#include <QRegularExpression>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <fstream>
#include <map>
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

// Records every launch (name, scope path) in order.
class RecordingObserver final : public Observer {
public:
    void scopeEnter(std::string_view name, ScopeLevel) override { m_path.emplace_back(name); }
    void scopeExit() override { m_path.pop_back(); }
    void launchBegin(const OpLaunch& op) override
    {
        std::string scope;
        for (size_t i = 0; i < m_path.size(); ++i)
            scope += (i ? "/" : "") + m_path[i];
        m_launches.emplace_back(scope, std::string(op.name));
    }
    void launchEnd() override {}
    std::vector<std::string> m_path;
    std::vector<std::pair<std::string, std::string>> m_launches;
};

// Targets cycling over 0..vocab-1 (every cluster gets tokens), inputs shifted by one.
class CyclingSource final : public TokenSource {
public:
    explicit CyclingSource(int64_t vocab) : m_vocab(vocab) {}
    void next(int64_t batch, int64_t seq, std::vector<int32_t>& in, std::vector<int32_t>& tg) override
    {
        in.resize(size_t(batch * seq));
        tg.resize(size_t(batch * seq));
        for (size_t i = 0; i < tg.size(); ++i) {
            tg[i] = int32_t((i * 7 + 3) % uint64_t(m_vocab));
            in[i] = int32_t((i * 7 + 2) % uint64_t(m_vocab));
        }
    }
    double unigramEntropy() const override { return std::log(double(m_vocab)); }

private:
    int64_t m_vocab;
};

// "11 + 18 nc", "nc", "9" -> (a, b) of a + b nc.
std::pair<int, int> parseCount(QString text)
{
    text.remove(QLatin1Char(' '));
    int a = 0, b = 0;
    for (const QString& term : text.split(QLatin1Char('+'))) {
        if (term.endsWith(QLatin1String("nc"))) {
            QString k = term.chopped(2);
            b += k.isEmpty() ? 1 : k.toInt();
        } else {
            a += term.toInt();
        }
    }
    return {a, b};
}

std::string learnableCorpus()
{
    std::string path = wt::test::tempPath("corpus.txt");
    std::ofstream out(path);
    for (int i = 0; i < 300; ++i)
        out << "the cat sat on the mat . a dog ran to the park and the bird sang a song .\n";
    return path;
}

constexpr int kZipfSteps = 150;

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
        QCOMPARE(workloads().size(), size_t(4));
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
    // Sizes out of range: a SizeError whose one line names the setting and its limit. The
    // products are multiplied with overflow checks: batch=2^61 once wrapped batch*seq*hidden
    // past the old check and crashed listOps; the rows with 2^31-ish factors wrap int64 too.
    void sizesOutOfRange_data()
    {
        QTest::addColumn<QString>("workload");
        QTest::addColumn<QString>("variant");
        QTest::addColumn<QStringList>("sets");
        QTest::addColumn<QString>("message");
        auto row = [](const char* name, const char* w, const char* v, QStringList sets, const char* message) {
            QTest::newRow(name) << QString::fromLatin1(w) << QString::fromLatin1(v) << sets << QString::fromLatin1(message);
        };
        row("batch 2^61", "gcn", "adaptive", {"batch=2305843009213693952"},
            "batch=2305843009213693952 is out of range: batch must be between 1 and 2147483647");
        row("hidden 2^62", "gcn", "adaptive", {"hidden=4611686018427387904"},
            "hidden=4611686018427387904 is out of range: hidden must be between 1 and 1048576");
        row("hidden int64 max", "transformer", "adaptive", {"hidden=9223372036854775807"},
            "hidden=9223372036854775807 is out of range: hidden must be between 1 and 1048576");
        row("seq 2^62", "bert", "full", {"seq=4611686018427387904"},
            "seq=4611686018427387904 is out of range: seq must be between 1 and 2147483647");
        row("beyond int64", "gcn", "adaptive", {"seq=99999999999999999999"},
            "seq=99999999999999999999 is out of range: seq must be between 1 and 2147483647");
        row("zero", "gcn", "adaptive", {"hidden=0"}, "hidden=0 is out of range: hidden must be between 1 and 1048576");
        row("negative", "groupbert", "full", {"batch=-3"}, "batch=-3 is out of range: batch must be between 1 and 2147483647");
        row("vocab", "gcn", "full", {"vocab=2147483647"}, "vocab=2147483647 is out of range: vocab must be between 2 and 2147483646");
        row("block", "bert", "full", {"density=0.5", "block=2305843009213693952"},
            "block=2305843009213693952 is out of range: block must be between 1 and 1048576");
        row("conv_groups", "groupbert", "full", {"conv_groups=-1"},
            "conv_groups=-1 is out of range: conv_groups must be between 0 and 1048576");
        row("cutoff zero", "gcn", "adaptive", {"cutoffs=0,16"},
            "cutoffs=0,16 is out of range: each cutoff must be between 1 and 2147483646");
        row("cutoffs past vocab", "gcn", "adaptive", {"vocab=10"},
            "cutoffs=16,32 is out of range: each cutoff must be between 1 and vocab-1 (9)");
        row("16 cutoffs", "transformer", "fused", {"cutoffs=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16"},
            "cutoffs=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16 is out of range: the adaptive softmax takes 1 to 15 cutoffs");
        row("tokens*hidden wraps int64", "gcn", "adaptive", {"batch=2147483647", "seq=2147483647", "hidden=1048576"},
            "batch=2147483647 is out of range: batch*seq*hidden must stay below 2^31 (2147483647 x 2147483647 x 1048576)");
        row("names the setting changed", "gcn", "adaptive", {"seq=2147483647", "batch=2147483647"},
            "seq=2147483647 is out of range: batch*seq*hidden must stay below 2^31 (2147483647 x 2147483647 x 16)");
        row("im2col", "gcn", "adaptive", {"batch=100000", "kernel=4096"},
            "batch=100000 is out of range: batch*seq*kernel*hidden must stay below 2^31 (100000 x 8 x 4096 x 16)");
        row("attention scores", "transformer", "adaptive", {"heads=16", "seq=100000"},
            "heads=16 is out of range: batch*heads*seq*seq must stay below 2^31 (2 x 16 x 100000 x 100000)");
        row("ffn weight", "transformer", "adaptive", {"ffn=4194304", "hidden=1024"},
            "ffn=4194304 is out of range: ffn*hidden must stay below 2^31 (4194304 x 1024)");
        row("groupbert conv weight", "groupbert", "adaptive", {"kernel=9", "hidden=16384", "conv_groups=1"},
            "kernel=9 is out of range: hidden*kernel*hidden/conv_groups must stay below 2^31 (16384 x 9 x 16384)");
        row("full softmax logits", "gcn", "full", {"batch=1048576", "vocab=4096"},
            "batch=1048576 is out of range: batch*seq*vocab must stay below 2^31 (1048576 x 8 x 4096)");
        row("bert masked logits", "bert", "full", {"batch=1000", "vocab=2000000"},
            "batch=1000 is out of range: batch*masked_per_seq*vocab must stay below 2^31 (1000 x 2 x 2000000)");
        row("adaptive head", "transformer", "bucketed", {"batch=100000", "vocab=100000", "cutoffs=50000"},
            "batch=100000 is out of range: batch*seq*(cutoffs[0]+1) must stay below 2^31 (100000 x 8 x 50001)");
        row("adaptive tail cluster", "transformer", "adaptive", {"batch=100000", "vocab=100000", "cutoffs=10"},
            "batch=100000 is out of range: batch*seq*(vocab-cutoffs[0]) must stay below 2^31 (100000 x 8 x 99990)");
    }
    void sizesOutOfRange()
    {
        QFETCH(QString, workload);
        QFETCH(QString, variant);
        QFETCH(QStringList, sets);
        QFETCH(QString, message);
        std::vector<std::pair<std::string, std::string>> ov;
        for (const QString& s : sets)
            ov.push_back(parseOverride(s.toStdString()));
        try {
            resolveConfig(workload.toStdString(), "tiny", variant.toStdString(), ov);
            QFAIL("no SizeError");
        } catch (const SizeError& e) {
            QCOMPARE(QString::fromUtf8(e.what()), message);
        }
    }
    // Every integer setting of every workload has a bound, below and above (a new size key
    // must be put in one of the two lists here); the presets are within every bound.
    void everySizeBounded()
    {
        const std::set<std::string> integers{"vocab", "hidden", "layers", "kernel", "heads", "ffn", "batch",
                                             "seq", "cutoffs", "block", "groups", "conv_groups", "warmup", "prune_every"};
        const std::set<std::string> others{"lr", "momentum", "clip", "zipf", "corpus", "norm", "mask",
                                           "density", "prune_fraction", "sparse_attention"};
        for (const WorkloadInfo& w : workloads())
            for (const SizeKey& k : w.sizes) {
                QVERIFY2(integers.count(k.key) || others.count(k.key), k.key.c_str());
                if (!integers.count(k.key))
                    continue;
                for (const char* v : {"-1", "9223372036854775807", "99999999999999999999"}) {
                    const std::string what = w.name + " " + k.key + "=" + v;
                    try {
                        resolveConfig(w.name, "tiny", "adaptive", {{k.key, v}});
                        QFAIL(qPrintable(QString::fromStdString(what + ": no SizeError")));
                    } catch (const SizeError& e) {
                        const std::string prefix = k.key + "=" + v + " is out of range: ";
                        QVERIFY2(std::string(e.what()).rfind(prefix, 0) == 0, (what + ": " + e.what()).c_str());
                    }
                }
            }
        for (const WorkloadInfo& w : workloads())
            for (const std::string& p : presets())
                for (const std::string& v : variants())
                    resolveConfig(w.name, p, v, {});
        // A config built by hand gets the same check from Model::create, before anything exists.
        ModelConfig c = resolveConfig("gcn", "tiny", "adaptive", {});
        c.batch = int64_t(1) << 61;
        try {
            Model::create(c);
            QFAIL("no SizeError");
        } catch (const SizeError& e) {
            QCOMPARE(std::string(e.what()), std::string("batch=2305843009213693952 is out of range: batch must be between 1 and 2147483647"));
        }
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
    // The op listing is the next step's launches one to one (names and scopes, dx GEMMs
    // included), at tiny and small; after prepare() a step allocates nothing, whatever the
    // batch's split over the tail clusters.
    void listingMatchesLaunches_data()
    {
        QTest::addColumn<QString>("workload");
        QTest::addColumn<QString>("preset");
        QTest::addColumn<QString>("variant");
        for (auto p : {"tiny", "small"})
            for (auto w : {"gcn", "transformer"})
                for (const auto& v : variants()) {
                    // small (seconds per step in the ASan build): the two tail strategies, the
                    // per-cluster one (adaptive) and the bucketed one (fused)
                    if (std::string(p) == "small" && v != "adaptive" && v != "fused")
                        continue;
                    QTest::newRow(qPrintable(QString::fromLatin1(p) + "/" + QString::fromLatin1(w) + "/" +
                                             QString::fromStdString(v)))
                        << QString::fromLatin1(w) << QString::fromLatin1(p) << QString::fromStdString(v);
                }
    }
    void listingMatchesLaunches()
    {
        QFETCH(QString, workload);
        QFETCH(QString, preset);
        QFETCH(QString, variant);
        auto m = Model::create(workload.toStdString(), preset.toStdString(), variant.toStdString(), {});
        RecordingObserver obs;
        m->setObserver(&obs);
        const int steps = preset == QLatin1String("tiny") ? 6 : 1;
        int64_t allocations = -1;
        for (int i = 0; i < steps; ++i) {
            auto ops = m->listOps();   // the first listing comes before prepare(): it allocates nothing
            QCOMPARE(m->runtime().allocations(), allocations < 0 ? 0 : allocations);
            m->prepare();
            allocations = m->runtime().allocations();
            obs.m_launches.clear();
            QVERIFY(std::isfinite(m->step()));
            QCOMPARE(m->runtime().allocations(), allocations);
            QCOMPARE(obs.m_launches.size(), ops.size());
            for (size_t k = 0; k < ops.size(); ++k) {
                QCOMPARE(obs.m_launches[k].second, ops[k].name);
                QCOMPARE(obs.m_launches[k].first, ops[k].scope);
            }
            size_t dxGemms = size_t(std::count_if(ops.begin(), ops.end(), [](const OpInfo& o) {
                return o.name == "sgemm_nn" && o.scope.rfind("step/backward/", 0) == 0;
            }));
            QVERIFY(dxGemms >= 2);   // the dh GEMMs of every linear layer are listed
        }
    }
    // docs/softmax-variants.md states the launches and host syncs per step of each variant as
    // formulas in nc; they must be what the code launches (gcn tiny: nc = 2, transformer: 3),
    // and the passes over a logits matrix what the launches' byte counts say.
    void docLaunchCounts()
    {
        QFile doc(wt::test::sourcePath(QStringLiteral("docs/softmax-variants.md")));
        QVERIFY2(doc.open(QIODevice::ReadOnly), "docs/softmax-variants.md");
        const QString text = QString::fromUtf8(doc.readAll());
        QRegularExpression row(QStringLiteral("^\\| `(\\w+)` \\| ([0-9nc +]+) \\| ([0-9nc +]+) \\| ([0-9]+) \\|"),
                               QRegularExpression::MultilineOption);
        std::map<std::string, std::array<QString, 3>> stated;
        for (auto it = row.globalMatch(text); it.hasNext();) {
            auto mt = it.next();
            stated[mt.captured(1).toStdString()] = {mt.captured(2), mt.captured(3), mt.captured(4)};
        }
        QCOMPARE(stated.size(), variants().size());
        for (const auto& v : variants()) {
            QVERIFY2(stated.count(v), v.c_str());
            auto [la, lb] = parseCount(stated[v][0]);
            auto [sa, sb] = parseCount(stated[v][1]);
            const int passes = stated[v][2].toInt();
            for (auto w : {"gcn", "transformer"}) {
                // Non-GEMM bytes of the softmax layer's forward + backward, and its launches.
                auto measure = [&](int64_t vocabExtra, int64_t& launches, int64_t& syncs) {
                    auto m = Model::create(w, "tiny", v, {{"vocab", std::to_string(64 + vocabExtra)}});
                    m->setTokenSource(std::make_unique<CyclingSource>(64));
                    launches = syncs = 0;
                    double bytes = 0;
                    for (const auto& o : m->listOps()) {
                        if (o.scope.rfind("step/forward/softmax", 0) != 0 && o.scope.rfind("step/backward/softmax", 0) != 0)
                            continue;
                        ++launches;
                        syncs += o.name.rfind("memcpy_dtoh", 0) == 0;
                        if (o.kind != LaunchKind::Gemm)
                            bytes += o.bytesRead + o.bytesWritten;
                    }
                    return bytes;
                };
                const int64_t nc = std::string(w) == "gcn" ? 2 : 3;
                int64_t launches = 0, syncs = 0, l2 = 0, s2 = 0;
                const int64_t extra = 1000;
                double b1 = measure(0, launches, syncs), b2 = measure(extra, l2, s2);
                const QString where = QString::fromStdString(v) + QLatin1Char('/') + QLatin1String(w);
                QVERIFY2(launches == la + lb * nc, qPrintable(where + QStringLiteral(": %1 launches").arg(launches)));
                QVERIFY2(syncs == sa + sb * nc, qPrintable(where + QStringLiteral(": %1 syncs").arg(syncs)));
                // The extra vocabulary widens the last logits matrix (full: all N rows; adaptive:
                // the rows of the last cluster, targets 48..63 of 64 or 32..63 for gcn).
                auto plain = Model::create(w, "tiny", v, {});
                const ModelConfig& c = plain->config();
                const int64_t N = c.batch * c.seq;
                const int64_t lastLo = v == "full" ? 0 : c.cutoffs.back();
                int64_t rows = 0;
                std::vector<int32_t> in, tg;
                CyclingSource(64).next(c.batch, c.seq, in, tg);
                for (int32_t t : tg)
                    rows += t >= lastLo;
                QVERIFY(rows > 0 && rows <= N);
                const double measured = (b2 - b1) / (4.0 * double(rows) * double(extra));
                QVERIFY2(std::fabs(measured - passes) < 1e-9, qPrintable(where + QStringLiteral(": %1 passes").arg(measured)));
            }
        }
    }
    // adaptive, bucketed and fused are one function of the same parameters: their loss curves
    // agree step after step (full is a different model: one weight matrix over the vocabulary).
    void adaptiveVariantsTrainAlike()
    {
        for (auto w : {"gcn", "transformer"}) {
            std::vector<std::vector<float>> curves;
            for (auto v : {"adaptive", "bucketed", "fused"}) {
                auto m = Model::create(w, "tiny", v, {{"batch", "8"}});
                curves.emplace_back();
                for (int i = 0; i < 8; ++i)
                    curves.back().push_back(m->step());
            }
            for (size_t k = 1; k < curves.size(); ++k)
                for (size_t i = 0; i < curves[0].size(); ++i)
                    QVERIFY2(std::fabs(curves[k][i] - curves[0][i]) <= 1e-4f * curves[0][i],
                             qPrintable(QStringLiteral("%1 step %2: %3 vs %4").arg(QLatin1String(w)).arg(i + 1)
                                            .arg(curves[k][i]).arg(curves[0][i])));
        }
    }
    // On independent Zipf tokens the best a model can do is the unigram entropy: every
    // workload and variant gets close to it with the default settings and stays finite.
    void trainsToUnigramEntropy_data()
    {
        QTest::addColumn<QString>("workload");
        QTest::addColumn<QString>("variant");
        for (auto w : {"gcn", "transformer"})
            for (const auto& v : variants())
                QTest::newRow(qPrintable(QString::fromLatin1(w) + "/" + QString::fromStdString(v)))
                    << QString::fromLatin1(w) << QString::fromStdString(v);
    }
    void trainsToUnigramEntropy()
    {
        QFETCH(QString, workload);
        QFETCH(QString, variant);
        auto m = Model::create(workload.toStdString(), "tiny", variant.toStdString(), {{"batch", "16"}});
        const double floor = m->unigramEntropy();
        QVERIFY(floor > 2.5 && floor < std::log(64.0));
        std::vector<float> losses;
        for (int i = 0; i < kZipfSteps; ++i) {
            losses.push_back(m->step());
            QVERIFY2(std::isfinite(losses.back()), qPrintable(QStringLiteral("step %1").arg(i + 1)));
        }
        const double first = mean(losses, 0, 10), last = mean(losses, losses.size() - 20, losses.size());
        qInfo("loss %.3f (step 1), %.3f (steps 1-10) -> %.3f, unigram entropy %.3f", double(losses[0]), first, last, floor);
        QVERIFY2(losses[0] > 1.08 * floor, "the loss starts clearly above the floor");
        QVERIFY2(last < 1.05 * floor, qPrintable(QStringLiteral("loss %1 -> %2, floor %3").arg(first).arg(last).arg(floor)));
        for (size_t i = 10; i + 10 <= losses.size(); i += 10)   // no window far above the start
            QVERIFY(mean(losses, i, i + 10) < first * 1.05);
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
