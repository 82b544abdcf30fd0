#include "launchconfigs.h"

#include "statement.h"

namespace wt {

void forEachLaunchConfig(sqlite3* db, const std::function<void(int64_t, const LaunchConfig&)>& fn)
{
    Statement s(db, "SELECT id, grid_x, grid_y, grid_z, block_x, block_y, block_z, registers, static_smem, dynamic_smem "
                    "FROM launch_configs");
    while (s.step()) {
        LaunchConfig c;
        for (int i = 0; i < 3; ++i) {
            c.grid[i] = int32_t(s.int64(1 + i));
            c.block[i] = int32_t(s.int64(4 + i));
        }
        c.registers = int32_t(s.int64(7));
        c.staticSmem = int32_t(s.int64(8));
        c.dynamicSmem = int32_t(s.int64(9));
        fn(s.int64(0), c);
    }
}

}  // namespace wt
