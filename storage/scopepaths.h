// Scope paths ("step/forward/decoder.3/ffn_up"): the one implementation of joining a scope
// node's names from the top level down. analysis/ (ScopeTree), the exporters in interop/ and
// the GUI (through analysis/) all use it, so a path reads the same in every view and file.
#pragma once

#include "types.h"

#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

namespace wt {

class Reader;

class ScopePaths {
public:
    ScopePaths() = default;
    // nodes in any order; name(id) resolves an interned string id.
    ScopePaths(const std::vector<ScopeNode>& nodes, const std::function<std::string(uint32_t)>& name);

    // The full path of a scope node; empty for 0 or an unknown id.
    const std::string& path(int64_t scopeId) const;

private:
    std::unordered_map<int64_t, std::string> m_paths;
};

// Scope instance id -> path of its scope node (the exporters' per-activity column).
std::unordered_map<int64_t, std::string> scopeInstancePaths(const Reader& reader, int64_t runId);

}  // namespace wt
