// A run's scope tree in memory, with names resolved: paths at a depth (through the one
// scope-path implementation in storage/scopepaths.h), the ancestor at a level (layer, phase),
// and node positions (nodes sorted by id: position i is what the GUI's RunData calls node i).
#pragma once

#include "storage/scopepaths.h"
#include "storage/types.h"

#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace wt {

class Reader;

class ScopeTree {
public:
    static constexpr uint32_t kNoNode = 0xffffffffu;

    ScopeTree() = default;
    ScopeTree(const std::vector<ScopeNode>& nodes, const std::unordered_map<uint32_t, std::string>& strings);
    static ScopeTree load(const Reader& reader, int64_t runId);

    bool contains(int64_t scopeId) const { return m_index.count(scopeId) != 0; }
    const ScopeNode& node(int64_t scopeId) const { return m_nodes[m_index.at(scopeId)]; }
    const std::vector<ScopeNode>& nodes() const { return m_nodes; }   // sorted by id
    // Position of a node in nodes(), kNoNode for 0 or an unknown id.
    uint32_t indexOf(int64_t scopeId) const;
    const std::string& name(int64_t scopeId) const;
    const std::string& level(int64_t scopeId) const;
    // '/'-joined names from the top level down to min(depth, node depth). depth <= 0: full path.
    std::string path(int64_t scopeId, int depth = 0) const;
    // The id of the ancestor-or-self at the given depth (or the node itself if shallower).
    int64_t ancestorAtDepth(int64_t scopeId, int depth) const;
    // The ancestor-or-self whose level is `level`, 0 when there is none.
    int64_t ancestorAtLevel(int64_t scopeId, const std::string& level) const;
    bool hasLevel(const std::string& level) const;
    int maxDepth() const { return m_maxDepth; }

private:
    std::vector<ScopeNode> m_nodes;
    std::unordered_map<int64_t, size_t> m_index;
    std::unordered_map<uint32_t, std::string> m_names;   // only the ids the tree uses
    std::unordered_set<std::string> m_levels;            // level names present
    ScopePaths m_paths;
    int m_maxDepth = 0;
};

}  // namespace wt
