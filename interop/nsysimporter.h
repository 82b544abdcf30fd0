// Nsight Systems SQLite exports (schema 2.x through 3.25 and later) into an ImportedTrace.
// Columns are read by name (PRAGMA table_info), optional tables may be missing, and both
// metadata table names (EXPORT_META_DATA, META_DATA_EXPORT) are accepted.
#pragma once

#include "importedtrace.h"

#include <string>

namespace wt::interop {

class NsysImporter {
public:
    // True when the open SQLite file looks like an Nsight Systems export.
    static bool looksLikeExport(const std::string& path);
    // Throws ImportError naming the file when it is not an export or holds no GPU activity.
    static ImportedTrace parse(const std::string& path);
};

// PyTorch's emit_nvtx names ("aten::view, op_id = 314290", "..., seq = 12") carry a per-call
// counter; dropping it lets every call of an op share one scope node.
std::string normalizeNvtxName(std::string_view name);

}  // namespace wt::interop
