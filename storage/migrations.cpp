#include "migrations.h"

#include "database.h"
#include "schema.h"
#include "statement.h"
#include "storageerror.h"
#include "writer.h"

#include <algorithm>
#include <map>
#include <vector>

namespace wt {

namespace {

// v0 -> v1: every v0 run is rewritten through the Writer, so it gets tracks, a scope tree,
// scope instances (one per contiguous use of a path) and the summary tables.
void migrate0to1(Database& db)
{
    sqlite3* h = db.handle();
    db.exec("ALTER TABLE runs RENAME TO v0_runs; ALTER TABLE kernels RENAME TO v0_kernels;");
    db.exec(schema::kCreateV1);
    struct V0Run { int64_t id; std::string name, workload, variant, backend, device, startedAt, status; int64_t duration; };
    std::vector<V0Run> runs;
    {
        Statement s(h, "SELECT id, name, workload, variant, backend, device, started_at, duration_ns, status FROM v0_runs ORDER BY id");
        while (s.step())
            runs.push_back(V0Run{s.int64(0), s.text(1), s.text(2), s.text(3), s.text(4), s.text(5), s.text(6), s.text(8), s.int64(7)});
    }
    Writer writer(db);   // joins the migration's transaction
    for (const V0Run& r : runs) {
        int64_t origin = 0;
        {
            Statement s(h, "SELECT coalesce(min(start_ns), 0) FROM v0_kernels WHERE run_id=?");
            s.bind(1, r.id);
            if (s.step())
                origin = s.int64(0);
        }
        RunInfo info;
        info.name = r.name;
        info.workload = r.workload;
        info.variant = r.variant;
        static const char* backends[] = {"cupti", "cpu", "import", "model"};
        info.backend = std::find(std::begin(backends), std::end(backends), r.backend) != std::end(backends) ? r.backend : "import";
        info.device = r.device;
        info.startedAt = r.startedAt;
        info.originNs = origin;
        writer.beginRun(info);
        writer.addDevice(DeviceInfo{0, r.device, "{}"});
        std::map<std::string, int64_t> scopeByPath;
        // One scope node per '/'-separated path prefix.
        auto scopeFor = [&](const std::string& path) -> int64_t {
            int64_t parent = 0;
            size_t pos = 0;
            while (true) {
                size_t next = path.find('/', pos);
                std::string prefix = next == std::string::npos ? path : path.substr(0, next);
                auto it = scopeByPath.find(prefix);
                if (it == scopeByPath.end()) {
                    std::string part = path.substr(pos, next == std::string::npos ? std::string::npos : next - pos);
                    it = scopeByPath.emplace(prefix, writer.addScope(parent, part, "layer")).first;
                }
                parent = it->second;
                if (next == std::string::npos)
                    return parent;
                pos = next + 1;
            }
        };
        Statement s(h, "SELECT device, stream, start_ns, end_ns, name, coalesce(scope_path, '') FROM v0_kernels "
                       "WHERE run_id=? ORDER BY start_ns");
        s.bind(1, r.id);
        std::vector<std::pair<Activity, std::string>> rows;
        while (s.step()) {
            Activity a;
            int32_t device = int32_t(s.int64(0));
            if (device != 0)
                writer.addDevice(DeviceInfo{device, r.device, "{}"});
            a.trackId = writer.addTrack(device, s.int64(1), TrackKind::Kernel);
            a.startNs = s.int64(2) - origin;
            a.endNs = s.int64(3) - origin;
            a.nameId = writer.intern(s.textView(4));
            rows.emplace_back(a, s.text(5));
        }
        // Instances first (an activity must name a known instance), then the activities.
        // Consecutive kernels under the same path form one instance of each level of the path.
        std::vector<int64_t> instanceOf(rows.size(), 0);
        for (size_t i = 0; i < rows.size();) {
            const std::string& path = rows[i].second;
            size_t j = i;
            int64_t end = rows[i].first.endNs;
            while (j < rows.size() && rows[j].second == path) {
                end = std::max(end, rows[j].first.endNs);
                ++j;
            }
            if (!path.empty()) {
                // Nest an instance per path level so the tree's parents have instances too.
                int64_t parentInstance = 0;
                size_t pos = 0;
                while (true) {
                    size_t next = path.find('/', pos);
                    std::string prefix = next == std::string::npos ? path : path.substr(0, next);
                    parentInstance = writer.addScopeInstance(scopeFor(prefix), parentInstance, rows[i].first.startNs, end);
                    if (next == std::string::npos)
                        break;
                    pos = next + 1;
                }
                for (size_t k = i; k < j; ++k)
                    instanceOf[k] = parentInstance;
            }
            i = j;
        }
        for (size_t i = 0; i < rows.size(); ++i) {
            rows[i].first.scopeInstanceId = instanceOf[i];
            writer.addActivity(rows[i].first);
        }
        writer.finishRun(r.status == "complete" || r.status.empty() ? RunStatus::Complete : runStatusFromString(r.status), r.duration);
    }
    db.exec("DROP TABLE v0_kernels; DROP TABLE v0_runs;");
}

// v1 -> v2: the launches and cost_models tables. Older runs have no launch rows: they read as
// runs without op features.
void migrate1to2(Database& db) { db.exec(schema::kCreateV2); }

// v2 -> v3: the step_totals table, empty: older runs have no stored per-step
// totals, and comparing computes them from the activities (as version 2 did).
void migrate2to3(Database& db) { db.exec(schema::kCreateV3); }

// v3 -> v4: the host_threads table, empty: older runs have no host threads, and their scope
// instances (chunk format 1) read as on no thread, as version 3 did.
void migrate3to4(Database& db) { db.exec(schema::kCreateV4); }

// v4 -> v5: the overview tables, empty; each finished run's overview is computed later, outside
// the open, one run per transaction (summarybackfill.h: the GUI's background pass, `wheretime
// upgrade`); until then the run reads as without one.
void migrate4to5(Database& db) { db.exec(schema::kCreateV5); }

// v5 -> v6: the scope lane tables, empty; each finished run's lanes are computed with its
// overview later, outside the open (summarybackfill.h), one run per transaction.
void migrate5to6(Database& db) { db.exec(schema::kCreateV6); }

}  // namespace

void migrateStep(Database& db, int fromVersion)
{
    switch (fromVersion) {
    case 0: migrate0to1(db); return;
    case 1: migrate1to2(db); return;
    case 2: migrate2to3(db); return;
    case 3: migrate3to4(db); return;
    case 4: migrate4to5(db); return;
    case 5: migrate5to6(db); return;
    default: throw StorageError("no migration from schema version " + std::to_string(fromVersion));
    }
}

}  // namespace wt
