// libFuzzer target: Kineto / Chrome trace JSON bytes through the streaming parser and, when
// they parse, through writeTrace() into an in-memory database (rolled back every time).
// Also checks the exact-time parser against its own formatter.
#include "storage/database.h"
#include "storage/interop/exacttime.h"
#include "storage/interop/importerror.h"
#include "storage/interop/traceeventimporter.h"
#include "storage/storageerror.h"
#include "storage/writer.h"

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
    try {
        interop::ImportedTrace t = interop::TraceEventImporter::parse("fuzz.json", buf.data(), size, buf.size());
        db.begin();
        try {
            Writer w(db);
            RunInfo info;
            info.name = "fuzz";
            interop::writeTrace(w, t, info);
        } catch (const StorageError&) {
        }
        db.rollback();
    } catch (const interop::ImportError& e) {
        if (std::strchr(e.what(), '\n'))
            std::abort();   // errors are one line
    }
    return 0;
}
