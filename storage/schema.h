// The current schema (see docs/schema.md). Version 6 = version 1 + kCreateV2 + kCreateV3 + kCreateV4 + kCreateV5 + kCreateV6.
#pragma once

namespace wt::schema {

inline constexpr const char* kCreateV1 = R"SQL(
CREATE TABLE file_info(key TEXT PRIMARY KEY, value TEXT) WITHOUT ROWID;
CREATE TABLE strings(id INTEGER PRIMARY KEY, value TEXT NOT NULL UNIQUE);
CREATE TABLE runs(
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL DEFAULT '',
  workload TEXT NOT NULL DEFAULT '',
  variant TEXT NOT NULL DEFAULT '',
  preset TEXT NOT NULL DEFAULT '',
  config TEXT NOT NULL DEFAULT '{}',
  backend TEXT NOT NULL CHECK(backend IN ('cupti','cpu','import','model')),
  device TEXT NOT NULL DEFAULT '',
  device_properties TEXT NOT NULL DEFAULT '{}',
  started_at TEXT NOT NULL DEFAULT '',
  origin_ns INTEGER NOT NULL DEFAULT 0,
  duration_ns INTEGER NOT NULL DEFAULT 0,
  status TEXT NOT NULL CHECK(status IN ('writing','complete','interrupted','failed','incomplete')),
  dropped_records INTEGER NOT NULL DEFAULT 0,
  source_file TEXT NOT NULL DEFAULT '',
  writer_pid INTEGER NOT NULL DEFAULT 0,
  writer_host TEXT NOT NULL DEFAULT '',
  kernels INTEGER NOT NULL DEFAULT 0,
  kernel_time_ns INTEGER NOT NULL DEFAULT 0,
  busy_ns INTEGER NOT NULL DEFAULT 0,
  span_start_ns INTEGER NOT NULL DEFAULT 0,
  span_end_ns INTEGER NOT NULL DEFAULT 0);
CREATE TABLE devices(run_id INTEGER NOT NULL, id INTEGER NOT NULL, name TEXT NOT NULL,
  properties TEXT NOT NULL DEFAULT '{}', PRIMARY KEY(run_id, id)) WITHOUT ROWID;
CREATE TABLE tracks(id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL, device_id INTEGER NOT NULL,
  stream INTEGER NOT NULL, kind TEXT NOT NULL CHECK(kind IN ('kernel','memory')), name TEXT NOT NULL DEFAULT '',
  count INTEGER NOT NULL DEFAULT 0, max_duration_ns INTEGER NOT NULL DEFAULT 0);
CREATE INDEX tracks_by_run ON tracks(run_id);
CREATE TABLE scopes(id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL, parent_id INTEGER NOT NULL,
  name_id INTEGER NOT NULL, level_id INTEGER NOT NULL, depth INTEGER NOT NULL);
CREATE INDEX scopes_by_run ON scopes(run_id);
CREATE TABLE scope_instance_chunks(id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL, first_id INTEGER NOT NULL,
  last_id INTEGER NOT NULL, count INTEGER NOT NULL, data BLOB NOT NULL);
CREATE INDEX scope_instance_chunks_by_run ON scope_instance_chunks(run_id);
CREATE TABLE launch_configs(id INTEGER PRIMARY KEY, grid_x INTEGER, grid_y INTEGER, grid_z INTEGER,
  block_x INTEGER, block_y INTEGER, block_z INTEGER, registers INTEGER, static_smem INTEGER, dynamic_smem INTEGER);
CREATE TABLE activity_chunks(id INTEGER PRIMARY KEY, track_id INTEGER NOT NULL, start_ns INTEGER NOT NULL,
  end_ns INTEGER NOT NULL, first_seq INTEGER NOT NULL, count INTEGER NOT NULL, data BLOB NOT NULL);
CREATE INDEX activity_chunks_by_track ON activity_chunks(track_id, start_ns, end_ns);
CREATE TABLE api_call_chunks(id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL, start_ns INTEGER NOT NULL,
  end_ns INTEGER NOT NULL, count INTEGER NOT NULL, data BLOB NOT NULL);
CREATE INDEX api_call_chunks_by_run ON api_call_chunks(run_id);
CREATE TABLE metadata(run_id INTEGER NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL,
  PRIMARY KEY(run_id, key)) WITHOUT ROWID;
CREATE TABLE totals(run_id INTEGER NOT NULL, scope_id INTEGER NOT NULL, name_id INTEGER NOT NULL,
  kind INTEGER NOT NULL, count INTEGER NOT NULL, time_ns INTEGER NOT NULL,
  PRIMARY KEY(run_id, scope_id, name_id, kind)) WITHOUT ROWID;
)SQL";

// Version 2: the op features of each launch (captures of bundled workloads), and named cost
// models (device calibrations and fitted predictors, JSON bodies, analysis/ reads them).
inline constexpr const char* kCreateV2 = R"SQL(
CREATE TABLE launches(run_id INTEGER NOT NULL, seq INTEGER NOT NULL, scope_instance_id INTEGER NOT NULL,
  name_id INTEGER NOT NULL, kind TEXT NOT NULL, flops REAL NOT NULL, bytes_read REAL NOT NULL,
  bytes_written REAL NOT NULL, m INTEGER NOT NULL DEFAULT 0, n INTEGER NOT NULL DEFAULT 0,
  k INTEGER NOT NULL DEFAULT 0, batch INTEGER NOT NULL DEFAULT 0, shapes_id INTEGER NOT NULL DEFAULT 0,
  correlation_id INTEGER NOT NULL DEFAULT 0, PRIMARY KEY(run_id, seq)) WITHOUT ROWID;
CREATE TABLE cost_models(name TEXT PRIMARY KEY, kind TEXT NOT NULL CHECK(kind IN ('device','predictor')),
  created_at TEXT NOT NULL DEFAULT '', body TEXT NOT NULL) WITHOUT ROWID;
)SQL";

// Version 3: the per-step totals of each run, written when the Writer finishes it, so comparing
// reads its noise samples without a pass over the instances and activities: the step count,
// the instances of the outermost "step"-level scopes (the step count of captures) and the rows
// as one blob (storage/steptotalsblob.h). A run without a row (files migrated from version 2,
// recovered runs) has them computed from its activities instead.
inline constexpr const char* kCreateV3 = R"SQL(
CREATE TABLE step_totals(run_id INTEGER PRIMARY KEY, steps INTEGER NOT NULL, step_instances INTEGER NOT NULL,
  data BLOB NOT NULL);
)SQL";

// Version 4: the host threads of a run (imports: the CPU threads of Kineto's ops and NVTX
// ranges, with their process and names). Scope instances name their thread in a sixth chunk
// column (instance chunk format 2); runs without the table's rows (captures, older files)
// have instances on no thread.
inline constexpr const char* kCreateV4 = R"SQL(
CREATE TABLE host_threads(run_id INTEGER NOT NULL, id INTEGER NOT NULL, pid INTEGER NOT NULL, tid INTEGER NOT NULL,
  name TEXT NOT NULL DEFAULT '', process_name TEXT NOT NULL DEFAULT '', PRIMARY KEY(run_id, id)) WITHOUT ROWID;
)SQL";

// Version 5: the level-of-detail summary of each finished run (storage/runoverview.h): its time
// grid in `overviews`, and per timeline row (a track, or the scope lane of one device and depth)
// the grid's non-empty buckets as one blob in `overview_rows`. A run without an `overviews` row
// has none (yet): read-write opens compute it. IF NOT EXISTS: tests that fake an older version
// by dropping its tables keep these.
inline constexpr const char* kCreateV5 = R"SQL(
CREATE TABLE IF NOT EXISTS overviews(run_id INTEGER PRIMARY KEY, format INTEGER NOT NULL, origin_ns INTEGER NOT NULL,
  bucket_ns INTEGER NOT NULL, buckets INTEGER NOT NULL, activities INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS overview_rows(run_id INTEGER NOT NULL, row INTEGER NOT NULL, kind INTEGER NOT NULL,
  track_id INTEGER NOT NULL, device_id INTEGER NOT NULL, depth INTEGER NOT NULL, items INTEGER NOT NULL,
  data BLOB NOT NULL, PRIMARY KEY(run_id, row)) WITHOUT ROWID;
)SQL";

// Version 6: the scope lanes of each finished run (storage/scopelanes.h): per lane (the scope
// instances of one device and depth) its figures in `scope_lanes`, its instances' ids and GPU
// spans in lane order in `scope_lane_chunks` (4,096 a chunk, with the chunk's first start and
// last end, so a time window reads only its chunks). A run without a `scope_lane_sets` row has
// none (yet): read-write opens compute them with the overview.
inline constexpr const char* kCreateV6 = R"SQL(
CREATE TABLE IF NOT EXISTS scope_lane_sets(run_id INTEGER PRIMARY KEY, format INTEGER NOT NULL, lanes INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS scope_lanes(run_id INTEGER NOT NULL, lane INTEGER NOT NULL, device_id INTEGER NOT NULL,
  depth INTEGER NOT NULL, items INTEGER NOT NULL, first_start_ns INTEGER NOT NULL, last_start_ns INTEGER NOT NULL,
  max_duration_ns INTEGER NOT NULL, level TEXT NOT NULL DEFAULT '', PRIMARY KEY(run_id, lane)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS scope_lane_chunks(id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL, lane INTEGER NOT NULL,
  start_ns INTEGER NOT NULL, end_ns INTEGER NOT NULL, count INTEGER NOT NULL, data BLOB NOT NULL);
CREATE INDEX IF NOT EXISTS scope_lane_chunks_by_lane ON scope_lane_chunks(run_id, lane, start_ns);
)SQL";

}  // namespace wt::schema
