// Schema migrations: migrateStep(db, v) moves a file from version v to v + 1. It runs inside
// the transaction Database::migrate holds, so a failed step leaves the file as it was.
//
// Version 0 (the first prototype) had runs(id, name, workload, variant, backend, device,
// started_at, duration_ns, status) and one kernels(run_id, device, stream, start_ns, end_ns,
// name, scope_path) table with '/'-separated scope paths and absolute times.
// Version 1 -> 2 adds the launches (op features) and cost_models tables, 2 -> 3 step_totals,
// 3 -> 4 host_threads, 4 -> 5 the overview tables (level-of-detail summaries).
#pragma once

namespace wt {

class Database;
void migrateStep(Database& db, int fromVersion);

}  // namespace wt
