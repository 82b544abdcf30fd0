// Scope paths of a run's scope instances for the exporters: storage/scopepaths.h holds the
// one implementation (shared with analysis/ and the GUI); this name keeps the exporters' call.
#pragma once

#include "storage/scopepaths.h"

namespace wt::interop {

using wt::scopeInstancePaths;

}  // namespace wt::interop
