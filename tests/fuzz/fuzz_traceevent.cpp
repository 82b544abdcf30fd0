// libFuzzer target: Kineto / Chrome trace JSON bytes through the streaming parser and, when
// they parse, through writeTrace() into an in-memory database (rolled back every time).
// Also checks the exact-time parser against its own formatter, and the sliced parse (tiny
// slices, so small inputs take that path too) against the one-pass parse: same trace or
// same error.
#include "storage/database.h"
#include "interop/exacttime.h"
#include "interop/importerror.h"
#include "interop/traceeventimporter.h"
#include "storage/storageerror.h"
#include "storage/writer.h"
#include "fuzzwrite.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    using namespace wt;
    static Database db(":memory:", OpenMode::ReadWrite);

    // Exact time: anything that parses and fits must format back to the same value.
    std::string_view text(reinterpret_cast<const char*>(data), std::min<size_t>(size, 40));
    if (auto ns = interop::microsToNs(text)) {
        if (*ns >= 0 && *ns < INT64_MAX / 2 && interop::microsToNs(interop::nsToMicrosText(*ns)) != ns)
            std::abort();
    }

    std::vector<char> buf(size + 64, 0);   // simdjson padding
    std::memcpy(buf.data(), data, size);
    // Differential: slices of 64 bytes against one pass.
    {
        std::string slicedError, wholeError;
        interop::ImportedTrace sliced, whole;
        try {
            sliced = interop::TraceEventImporter::parse("fuzz.json", buf.data(), size, buf.size(), 64);
        } catch (const interop::ImportError& e) {
            slicedError = e.what();
        }
        try {
            whole = interop::TraceEventImporter::parse("fuzz.json", buf.data(), size, buf.size(), 0);
        } catch (const interop::ImportError& e) {
            wholeError = e.what();
        }
        if (slicedError != wholeError)
            std::abort();
        if (wholeError.empty()) {
            if (sliced.ranges.size() != whole.ranges.size() || sliced.activities.size() != whole.activities.size() ||
                sliced.calls.size() != whole.calls.size() || sliced.clockBaseNs != whole.clockBaseNs)
                std::abort();
            for (size_t i = 0; i < whole.activities.size(); ++i) {
                const auto& a = sliced.activities[i];
                const auto& b = whole.activities[i];
                if (a.startNs != b.startNs || a.endNs != b.endNs || a.stream != b.stream || a.correlationId != b.correlationId ||
                    sliced.strings.at(a.name) != whole.strings.at(b.name))
                    std::abort();
            }
            for (size_t i = 0; i < whole.ranges.size(); ++i)
                if (sliced.ranges[i].startNs != whole.ranges[i].startNs || sliced.ranges[i].endNs != whole.ranges[i].endNs)
                    std::abort();
        }
    }
    try {
        interop::ImportedTrace t = interop::TraceEventImporter::parse("fuzz.json", buf.data(), size, buf.size());
        fuzz::writeRolledBack(db, t, "fuzz.json");
    } catch (const interop::ImportError& e) {
        if (std::strchr(e.what(), '\n'))
            std::abort();   // errors are one line
    }
    return 0;
}
