// Reads the launch_configs table (shared by the Writer's dedup map and the Reader's lookup).
#pragma once

#include "types.h"

#include <sqlite3.h>

#include <functional>

namespace wt {

void forEachLaunchConfig(sqlite3* db, const std::function<void(int64_t id, const LaunchConfig&)>& fn);

}  // namespace wt
