// libFuzzer target: bytes as an SQLite file through the Nsight Systems importer and, when it
// parses, through writeTrace() into an in-memory database (rolled back every time). Seeds are
// small real exports (scripts/fuzz.sh makes one from ../shared/traces).
#include "storage/database.h"
#include "interop/importerror.h"
#include "interop/nsysimporter.h"
#include "storage/storageerror.h"
#include "storage/writer.h"
#include "fuzzwrite.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    using namespace wt;
    static Database db(":memory:", OpenMode::ReadWrite);
    static const std::string path = "/tmp/wt-fuzz-nsys-" + std::to_string(getpid()) + ".sqlite";
    FILE* f = std::fopen(path.c_str(), "wb");
    if (!f)
        return 0;
    std::fwrite(data, 1, size, f);
    std::fclose(f);
    try {
        interop::ImportedTrace t = interop::NsysImporter::parse(path);
        fuzz::writeRolledBack(db, t, path);
    } catch (const interop::ImportError& e) {
        if (std::strchr(e.what(), '\n'))
            std::abort();
    }
    return 0;
}
