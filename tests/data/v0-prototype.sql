-- A file as the first wheretime prototype wrote it (schema version 0), for the migration test.
PRAGMA application_id = 1465142597;
PRAGMA user_version = 0;
CREATE TABLE runs(id INTEGER PRIMARY KEY, name TEXT, workload TEXT, variant TEXT, backend TEXT, device TEXT,
                  started_at TEXT, duration_ns INTEGER, status TEXT);
CREATE TABLE kernels(run_id INTEGER, device INTEGER, stream INTEGER, start_ns INTEGER, end_ns INTEGER, name TEXT,
                     scope_path TEXT);
INSERT INTO runs VALUES (1, 'proto-gcn', 'gcn', 'adaptive', 'cupti', 'NVIDIA A100-SXM4-40GB', '2025-06-01T10:00:00Z', 5000000, 'complete');
INSERT INTO runs VALUES (2, 'proto-crash', 'transformer', 'full', 'cpu', 'CPU: test', '2025-06-02T10:00:00Z', 0, 'interrupted');
INSERT INTO kernels VALUES (1, 0, 7, 1000000000100, 1000000000400, 'sgemm_nn', 'step/forward/conv1/conv_gemm');
INSERT INTO kernels VALUES (1, 0, 7, 1000000000500, 1000000000600, 'glu_forward', 'step/forward/conv1/glu');
INSERT INTO kernels VALUES (1, 0, 7, 1000000000700, 1000000001700, 'sgemm_tn', 'step/forward/softmax/head_gemm');
INSERT INTO kernels VALUES (1, 0, 8, 1000000001800, 1000000002000, 'log_softmax', 'step/forward/softmax/log_softmax');
INSERT INTO kernels VALUES (1, 0, 7, 1000000002100, 1000000002150, 'memset_like', NULL);
INSERT INTO kernels VALUES (2, 0, 1, 50, 80, 'ffn', 'step/forward/decoder.0/ffn_up');
