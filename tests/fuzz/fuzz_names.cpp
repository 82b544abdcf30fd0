// libFuzzer target: bytes as a kernel name and a scope name, through the import's name
// handling (storedName(): UTF-8 repair, then the cut), the JSON quoting the Chrome exporter
// uses and the trace-event importer. Checks that a stored name is valid UTF-8 of at most
// kMaxNameBytes, that storing it again changes nothing (repair and cut are idempotent), that
// the JSON is valid UTF-8 and imports back to every name byte for byte (raw names to their
// stored form, stored names unchanged and not cut or repaired again), and that CSV quoting
// never emits ill-formed UTF-8.
// Input: byte 0 = repeat and path: the raw names are the rest repeated 1 + byte0 % 64 times,
// at most 16 KB each (short inputs reach the cut); when its top two bits are set, the names
// also go the whole way: writeTrace() into an in-memory database (rolled back),
// ChromeExporter::write() and the importer (about 1 ms, mostly SQLite preparing statements;
// the direct path takes a tenth of that). Bytes 1-2 = the length of the kernel name's part;
// the scope's is the rest.
#include "interop/chromeexporter.h"
#include "interop/importedtrace.h"
#include "interop/importerror.h"
#include "interop/traceeventimporter.h"
#include "storage/csv.h"
#include "storage/database.h"
#include "storage/json.h"
#include "storage/reader.h"
#include "storage/storageerror.h"
#include "storage/utf8.h"
#include "storage/writer.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>

namespace {

using namespace wt;

constexpr size_t kMaxRawBytes = 16384;

[[noreturn]] void fail(const char* what)
{
    std::fprintf(stderr, "fuzz_names: %s\n", what);
    std::abort();
}

// The properties of one stored name against the raw bytes it came from.
void checkStored(const std::string& raw, const std::string& stored)
{
    if (!utf8::isValid(stored))
        fail("a stored name is not valid UTF-8");
    if (stored.size() > interop::kMaxNameBytes)
        fail("a stored name is over the limit");
    if (interop::storedName(stored) != stored)
        fail("storing a stored name changed it");
    const std::string repaired = utf8::repaired(raw);
    if (utf8::repaired(repaired) != repaired)
        fail("repairing twice differs from once");
    if (repaired.size() <= interop::kMaxNameBytes) {
        if (stored != repaired)
            fail("a name within the limit was changed beyond its repair");
        if (utf8::isValid(raw) && stored != raw)
            fail("a valid name within the limit was changed");
    } else {
        // kept + "…[cut N bytes]", N = the bytes of the repaired name not kept.
        const size_t marker = stored.rfind(interop::kCutMarkerPrefix);
        if (marker == std::string::npos || repaired.compare(0, marker, stored, 0, marker) != 0)
            fail("a cut name is not a prefix and the marker");
        if (stored.substr(marker) != interop::kCutMarkerPrefix + std::to_string(repaired.size() - marker) + interop::kCutMarkerSuffix)
            fail("the marker does not count the bytes dropped");
    }
    if (!utf8::isValid(csv::field(raw)))
        fail("CSV quoting wrote ill-formed UTF-8");
}

// A Chrome trace of one kernel (its launch named like it) inside one range, names given quoted.
std::string traceOf(const std::string& kernel, const std::string& scope)
{
    return R"({"traceEvents":[{"ph":"X","cat":"scope","name":)" + scope +
           R"(,"pid":1000000,"tid":1,"ts":0,"dur":10,"args":{"level":"annotation"}},{"ph":"X","cat":"cuda_runtime","name":)" + kernel +
           R"(,"pid":1000000,"tid":1,"ts":1,"dur":1,"args":{"correlation":1}},{"ph":"X","cat":"kernel","name":)" + kernel +
           R"(,"pid":0,"tid":7,"ts":3,"dur":2,"args":{"correlation":1}}]})";
}

interop::ImportedTrace importJson(const std::string& json)
{
    std::string buf = json + std::string(64, ' ');   // simdjson padding
    try {
        return interop::TraceEventImporter::parse("names.json", buf.data(), json.size(), buf.size(), 0);
    } catch (const interop::ImportError& e) {
        std::fprintf(stderr, "%s\n", e.what());
        fail("the JSON does not import");
    }
}

// The imported trace holds one kernel, one call and one range with these names; `again`: the
// names were stored ones, so the import must neither cut nor repair them.
void expectNames(const interop::ImportedTrace& back, const std::string& kernel, const std::string& scope, bool again)
{
    if (back.activities.size() != 1 || back.ranges.size() != 1 || back.calls.size() != 1)
        fail("the JSON imports to other events");
    if (back.strings.at(back.activities[0].name) != kernel || back.strings.at(back.calls[0].name) != kernel)
        fail("the kernel's name changed through JSON and import");
    if (back.strings.at(back.ranges[0].name) != scope)
        fail("the scope's name changed through JSON and import");
    if (again && (back.strings.cutCount() != 0 || back.strings.repairedCount() != 0))
        fail("a stored name was cut or repaired again on import");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    static Database db(":memory:", OpenMode::ReadWrite);
    if (size < 3)
        return 0;
    const size_t repeat = 1 + data[0] % 64;
    const size_t split = std::min<size_t>(size - 3, size_t(data[1]) | size_t(data[2]) << 8);
    const std::string_view kernelPart(reinterpret_cast<const char*>(data + 3), split);
    const std::string_view scopePart(reinterpret_cast<const char*>(data + 3 + split), size - 3 - split);
    std::string kernelRaw, scopeRaw;
    for (size_t i = 0; i < repeat; ++i) {
        kernelRaw += kernelPart;
        scopeRaw += scopePart;
    }
    // 16 KB is past every cut the limit allows (up to 5 digits dropped); longer only costs time.
    kernelRaw.resize(std::min(kernelRaw.size(), kMaxRawBytes));
    scopeRaw.resize(std::min(scopeRaw.size(), kMaxRawBytes));

    const std::string raw[2] = {kernelRaw, scopeRaw};
    const std::string stored[2] = {interop::storedName(kernelRaw), interop::storedName(scopeRaw)};
    checkStored(raw[0], stored[0]);
    checkStored(raw[1], stored[1]);

    // The direct path: the names quoted as the exporter quotes them, in a trace of one kernel,
    // its launch and a range, imported; first the raw names, then the stored ones.
    for (const auto* names : {&raw, &stored}) {
        const std::string json = traceOf(json::quote((*names)[0]), json::quote((*names)[1]));
        if (!utf8::isValid(json))
            fail("JSON quoting wrote ill-formed UTF-8");
        interop::ImportedTrace back = importJson(json);
        expectNames(back, stored[0], stored[1], names == &stored);
    }
    if ((data[0] & 0xC0) != 0xC0)
        return 0;

    // The whole way: one kernel launched inside one range, the call named like the kernel,
    // written as a run, exported by the Chrome exporter, imported.
    interop::ImportedTrace t;
    t.format = "chrome";
    const uint32_t kernelName = t.strings.intern(raw[0]), scopeName = t.strings.intern(raw[1]);
    if (t.strings.at(kernelName) != stored[0] || t.strings.at(scopeName) != stored[1])
        fail("StringTable stores other than storedName()");
    t.ranges.push_back({0, 10000, 1, scopeName, t.strings.intern("annotation"), false, -1, false});
    interop::ImportedTrace::Activity a;
    a.startNs = 3000;
    a.endNs = 5000;
    a.stream = 7;
    a.name = kernelName;
    a.correlationId = 1;
    t.activities.push_back(a);
    t.calls.push_back({1000, 2000, 1, kernelName, 1, 1});

    std::string json;
    db.begin();
    try {
        Writer w(db);
        RunInfo info;
        info.name = raw[1];            // the run's name and source file hold raw bytes too
        info.sourceFile = raw[0];
        const int64_t runId = interop::writeTrace(w, t, info).runId;
        std::ostringstream out;
        interop::ChromeExporter::write(Reader(db), runId, out);
        json = out.str();
    } catch (const StorageError&) {
        db.rollback();
        return 0;
    }
    db.rollback();
    if (!utf8::isValid(json))
        fail("the Chrome export is not valid UTF-8");
    expectNames(importJson(json), stored[0], stored[1], true);
    return 0;
}
