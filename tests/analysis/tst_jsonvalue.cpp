// The JSON reader of analysis/ (analysis/jsonvalue.h) and its three readers: run configurations
// (runSettings), device calibrations (deviceFromJson) and predictors (Predictor::fromJson).
// Strings holding '}', '"' and escapes; every truncation of a stored body; wrong types; text after
// the document: each a one-line error that says where. Bodies as earlier versions stored them
// (copied from files) still read to the same values.
#include "analysis/costmodel.h"
#include "analysis/jsonvalue.h"
#include "analysis/predictor.h"
#include "analysis/variants.h"

#include <QTest>

#include <map>

using namespace wt;

namespace {

// As stored by earlier versions (`wheretime calibrate`, `predict --fit`, a capture's config).
const char* kOldDevice =
    "{\"name\":\"cpu\",\"title\":\"CPU: AMD EPYC\",\"kind\":\"cpu\",\"fp32_flops\":124476882887.31531,\"tf32_flops\":0,"
    "\"bf16_flops\":0,\"memory_bytes_per_s\":27079216016.995914,\"host_link_bytes_per_s\":27079216016.995914,\"sms\":2,"
    "\"launch_overhead_ns\":90,\"source\":\"wheretime calibrate (sgemm 1024^3 best of 5, memcpy 64 MiB best of 5, 1x1x1 sgemm "
    "median)\"}";
const char* kOldPredictor =
    "{\"name\":\"fitted\",\"device\":\"CPU: AMD EPYC\",\"form\":\"overhead + ns_per_flop*flops + ns_per_byte*bytes\","
    "\"classes\":[\n{\"key\":\"*\",\"overhead_ns\":92.661510735903008,\"ns_per_flop\":0,\"ns_per_byte\":0.10633833404699339,"
    "\"samples\":350},\n{\"key\":\"sgemm_nt@conv_gemm\",\"overhead_ns\":293.75353216860378,\"ns_per_flop\":0.014799989449862752,"
    "\"ns_per_byte\":0,\"samples\":8}]}";
const char* kOldConfig =
    "{\"workload\":\"gcn\",\"preset\":\"tiny\",\"variant\":\"adaptive\",\"backend\":\"cpu\",\"seed\":1,\"vocab\":64,"
    "\"hidden\":16,\"layers\":2,\"kernel\":3,\"batch\":2,\"seq\":8,\"tokens\":16,\"cutoffs\":[16,32],\"lr\":0.5,"
    "\"momentum\":0.9,\"clip\":1,\"warmup\":20,\"zipf\":1,\"corpus\":\"\"}";

std::string errorOf(std::string_view text)
{
    try {
        JsonValue::parse(text);
    } catch (const JsonError& e) {
        return e.what();
    }
    return {};
}

}  // namespace

class TestJsonValue : public QObject {
    Q_OBJECT
private slots:
    void stringsWithBracesQuotesEscapes();
    void numbersKeepTheirText();
    void predictorKeyWithBrace();
    void oldBodiesStillRead();
    void everyTruncationIsAnError();
    void wrongTypes_data();
    void wrongTypes();
    void textAfterTheDocument();
    void damagedConfigNamesTheRun();
};

void TestJsonValue::stringsWithBracesQuotesEscapes()
{
    const JsonValue doc = JsonValue::parse(R"({"a":"x}y\"z\\w\n\u00e9\/","b":{"c":["}",")]"]},"d":true,"e":null})");
    const JsonValue& o = doc.expectObject();
    QCOMPARE(o.requiredString("a"), std::string("x}y\"z\\w\n\xc3\xa9/"));
    const JsonValue* b = o.find("b");
    QVERIFY(b && b->isObject());
    const JsonValue* c = b->find("c");
    QVERIFY(c && c->isArray());
    QCOMPARE(c->items().size(), size_t(2));
    QCOMPARE(c->items()[0].text(), std::string("}"));
    QCOMPARE(c->items()[1].path(), std::string("b.c[1]"));
    QCOMPARE(o.find("d")->text(), std::string("true"));
    QVERIFY(o.find("e")->type() == JsonValue::Type::Null);
    QCOMPARE(o.fields().size(), size_t(4));   // in order, after the strings with braces
    QCOMPARE(o.fields()[3].first, std::string("e"));
}

void TestJsonValue::numbersKeepTheirText()
{
    const JsonValue doc = JsonValue::parse(R"({"a":0.10,"b":1e3,"c":-7 , "d":[1.50, 2]})");
    const JsonValue& o = doc.expectObject();
    QCOMPARE(o.find("a")->text(), std::string("0.10"));
    QCOMPARE(o.find("b")->number(), 1000.0);
    QCOMPARE(o.find("b")->text(), std::string("1e3"));
    QCOMPARE(o.find("c")->text(), std::string("-7"));
    QCOMPARE(o.find("d")->items()[0].text(), std::string("1.50"));
}

void TestJsonValue::predictorKeyWithBrace()
{
    // The hand-written reader ended a class at the first '}', here inside the key.
    Predictor p;
    p.name = "fit \"x\"";
    p.device = "GPU {1}";
    p.classes["a}b\"c@op"] = CostClass{"a}b\"c@op", 1.5, 0.25, 0.125, 4};
    p.classes["z"] = CostClass{"z", 2, 0, 1, 9};
    std::string why;
    auto back = Predictor::fromJson(p.toJson(), &why);
    QVERIFY2(back, why.c_str());
    QCOMPARE(back->name, p.name);
    QCOMPARE(back->device, p.device);
    QCOMPARE(back->classes.size(), size_t(2));
    QCOMPARE(back->classes.at("a}b\"c@op").nsPerFlop, 0.25);
    QCOMPARE(back->classes.at("z").samples, int64_t(9));
    DeviceSpec d = *tableDevice("h100");
    d.source = "datasheet {rev \"2\"}, \\ page 3";
    auto dd = deviceFromJson(toJson(d));
    QVERIFY(dd);
    QCOMPARE(dd->source, d.source);
    QCOMPARE(dd->memoryBytesPerS, d.memoryBytesPerS);
}

void TestJsonValue::oldBodiesStillRead()
{
    auto d = deviceFromJson(kOldDevice);
    QVERIFY(d);
    QCOMPARE(d->name, std::string("cpu"));
    QCOMPARE(d->kind, std::string("cpu"));
    QCOMPARE(d->fp32Flops, 124476882887.31531);
    QCOMPARE(d->hostLinkBytesPerS, 27079216016.995914);
    QCOMPARE(d->sms, 2);
    QCOMPARE(d->launchOverheadNs, 90.0);
    auto p = Predictor::fromJson(kOldPredictor);
    QVERIFY(p);
    QCOMPARE(p->device, std::string("CPU: AMD EPYC"));
    QCOMPARE(p->classes.size(), size_t(2));
    QCOMPARE(p->classes.at("sgemm_nt@conv_gemm").overheadNs, 293.75353216860378);
    QCOMPARE(p->classes.at("*").samples, int64_t(350));
    RunInfo run;
    run.id = 3;
    run.workload = "gcn";
    run.variant = "adaptive";
    run.configJson = kOldConfig;
    auto s = runSettings(run);
    std::map<std::string, std::string> m(s.begin(), s.end());
    QCOMPARE(m["cutoffs"], std::string("16,32"));
    QCOMPARE(m["lr"], std::string("0.5"));
    QCOMPARE(m["momentum"], std::string("0.9"));
    QCOMPARE(m["corpus"], std::string());
    QVERIFY(!m.count("tokens"));
}

void TestJsonValue::everyTruncationIsAnError()
{
    for (const char* body : {kOldDevice, kOldPredictor, kOldConfig}) {
        const std::string full = body;
        for (size_t n = 0; n < full.size(); ++n) {
            const std::string cut = full.substr(0, n);
            const std::string e = errorOf(cut);
            QVERIFY2(e == (n ? "truncated JSON" : "empty text, not JSON"), (cut + " -> " + e).c_str());
            QVERIFY2(e.find('\n') == std::string::npos, e.c_str());
        }
        QVERIFY(errorOf(full).empty());
    }
    QCOMPARE(errorOf(std::string(kOldPredictor).substr(0, 200)), std::string("truncated JSON"));
    std::string why;
    QVERIFY(!Predictor::fromJson(std::string(kOldPredictor).substr(0, 300), &why));
    QCOMPARE(why, std::string("truncated JSON"));
    QVERIFY(!deviceFromJson(std::string(kOldDevice).substr(0, 40), &why));
    QCOMPARE(why, std::string("truncated JSON"));
    QCOMPARE(errorOf(""), std::string("empty text, not JSON"));
}

void TestJsonValue::wrongTypes_data()
{
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("body");
    QTest::addColumn<QString>("message");
    QTest::newRow("rate as text") << "device" << R"({"fp32_flops":"fast","memory_bytes_per_s":1})"
                                  << "fp32_flops: a string, not a number";
    QTest::newRow("rate missing") << "device" << R"({"fp32_flops":1})" << "memory_bytes_per_s: missing";
    QTest::newRow("rate zero") << "device" << R"({"fp32_flops":0,"memory_bytes_per_s":1})"
                               << "fp32_flops: 0, not a positive rate";
    QTest::newRow("name a number") << "device" << R"({"fp32_flops":1,"memory_bytes_per_s":1,"name":7})"
                                   << "name: a number, not a string";
    QTest::newRow("root an array") << "device" << "[1,2]" << "the document: an array, not an object";
    QTest::newRow("not JSON") << "device" << "fp32_flops=1" << "expected a JSON object or array";
    QTest::newRow("bad comma") << "device" << R"({"fp32_flops":1,,"memory_bytes_per_s":1})"
                               << "invalid JSON (The JSON document has an improper structure: missing or superfluous commas, "
                                  "braces, missing keys, etc.)";
    QTest::newRow("classes an object") << "predictor" << R"({"classes":{}})" << "classes: an object, not an array";
    QTest::newRow("classes missing") << "predictor" << R"({"name":"p"})" << "classes: missing";
    QTest::newRow("classes empty") << "predictor" << R"({"classes":[]})" << "classes: empty, a predictor has at least one";
    QTest::newRow("class a number") << "predictor" << R"({"classes":[3]})" << "classes[0]: a number, not an object";
    QTest::newRow("samples as text")
        << "predictor"
        << R"({"classes":[{"key":"a","overhead_ns":1,"ns_per_flop":0,"ns_per_byte":0,"samples":1},{"key":"b","overhead_ns":1,"ns_per_flop":0,"ns_per_byte":0,"samples":"9"}]})"
        << "classes[1].samples: a string, not a number";
    QTest::newRow("key missing") << "predictor" << R"({"classes":[{"overhead_ns":1}]})" << "classes[0].key: missing";
}

void TestJsonValue::wrongTypes()
{
    QFETCH(QString, kind);
    QFETCH(QString, body);
    QFETCH(QString, message);
    std::string why;
    const bool read = kind == "device" ? deviceFromJson(body.toStdString(), &why).has_value()
                                       : Predictor::fromJson(body.toStdString(), &why).has_value();
    QVERIFY(!read);
    QCOMPARE(QString::fromStdString(why), message);
}

void TestJsonValue::textAfterTheDocument()
{
    QCOMPARE(errorOf("{} {}"), std::string("text after the end of the JSON document"));
    QCOMPARE(errorOf("{\"a\":1}x"), std::string("text after the end of the JSON document"));
    QVERIFY(errorOf("{\"a\":1}\n  ").empty());
}

void TestJsonValue::damagedConfigNamesTheRun()
{
    RunInfo run;
    run.id = 12;
    run.name = "gcn-adaptive-tiny";
    run.configJson = std::string(kOldConfig).substr(0, 60);
    try {
        runSettings(run);
        QFAIL("a damaged configuration was read");
    } catch (const VariantsError& e) {
        QCOMPARE(std::string(e.what()),
                 std::string("run 12 (gcn-adaptive-tiny): its stored configuration is damaged: truncated JSON"));
    }
    run.configJson = R"({"hidden":16,"nested":{"a":1}})";
    QVERIFY_THROWS_EXCEPTION(VariantsError, runSettings(run));
    run.configJson = "";   // none (some imports): no settings of its own, no error
    run.workload = "kineto";
    auto s = runSettings(run);
    const std::map<std::string, std::string> m(s.begin(), s.end());
    QCOMPARE(m.at("workload"), std::string("kineto"));
}

QTEST_GUILESS_MAIN(TestJsonValue)
#include "tst_jsonvalue.moc"
