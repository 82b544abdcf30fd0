// Scope paths ("step/forward/layer3/ffn_up") of a run's scope instances, shared by the exporters.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>

namespace wt {
class Reader;
}

namespace wt::interop {

// Scope instance id -> path of its scope node, names joined by '/'.
std::unordered_map<int64_t, std::string> scopeInstancePaths(const Reader& reader, int64_t runId);

}  // namespace wt::interop
