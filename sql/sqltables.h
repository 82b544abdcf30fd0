// The virtual tables that make a wheretime file's chunked records plain SQL rows: `activities`,
// `kernels` (the kernel rows of activities), `scope_instances` and `api_calls`, plus the
// function wheretime_chunks_read() (activity chunks decoded by these tables on this connection
// so far). The same code serves the loadable extension (libwheretime_sqlite.so, extension.cpp)
// and `wheretime sql`, which registers the tables in-process. Columns: docs/schema.md.
#pragma once

#include <sqlite3.h>

#include <string>

namespace wt::sql {

class SqlTables {
public:
    // Registers the tables (eponymous: no CREATE VIRTUAL TABLE needed) on `db`; they read the
    // connection's main database, which must be a wheretime file when they are first used.
    // Returns SQLITE_OK, or an SQLite error code with `error` set.
    static int registerOn(sqlite3* db, std::string& error);
};

}  // namespace wt::sql
