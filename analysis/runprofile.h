// What every figure of one run starts from, read once per run: the run's description and
// summary, its scope tree, the interned strings, and the stored per-(scope, name, kind) totals.
// The GUI loads one with the run (RunData keeps it) and the CLI one per command; nothing reads
// the tree or the totals again.
#pragma once

#include "analysis/grouping.h"
#include "analysis/scopetree.h"
#include "storage/types.h"

#include <memory>
#include <vector>

namespace wt {

class Reader;

struct RunProfile {
    RunInfo run;
    ScopeTree tree;
    Strings strings;
    std::vector<TotalRow> totals;

    // Throws wt::StorageError (one-line reason) for a missing run or a bad file.
    static std::shared_ptr<const RunProfile> load(const Reader& reader, int64_t runId);
    const std::string& string(uint32_t id) const;   // empty when unknown
};

}  // namespace wt
