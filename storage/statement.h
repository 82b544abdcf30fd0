// Thin RAII wrapper of a prepared SQLite statement; errors become StorageError.
#pragma once

#include "storageerror.h"

#include <sqlite3.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace wt {

class Statement {
public:
    Statement(sqlite3* db, std::string_view sql);
    ~Statement();
    Statement(const Statement&) = delete;
    Statement& operator=(const Statement&) = delete;

    Statement& bind(int index, int64_t value);
    Statement& bind(int index, int value) { return bind(index, int64_t(value)); }
    Statement& bind(int index, uint32_t value) { return bind(index, int64_t(value)); }
    Statement& bind(int index, double value);
    Statement& bind(int index, std::string_view value);   // copied by SQLite
    Statement& bindNull(int index);
    // The blob must stay alive until the statement runs (no copy: the hot path writes chunks).
    Statement& bindBlobNoCopy(int index, const void* data, size_t size);

    // Returns true while a row is available.
    bool step();
    // Runs a statement that returns no rows, then resets it for reuse.
    void run();
    void reset();

    int64_t int64(int column) const { return sqlite3_column_int64(m_stmt, column); }
    double real(int column) const { return sqlite3_column_double(m_stmt, column); }
    std::string text(int column) const;
    std::string_view textView(int column) const;
    std::string_view blob(int column) const;
    bool isNull(int column) const { return sqlite3_column_type(m_stmt, column) == SQLITE_NULL; }

private:
    sqlite3* m_db;
    sqlite3_stmt* m_stmt = nullptr;
};

// Throws a StorageError for an SQLite result code, naming what was being done.
// Throws StorageError "FILE: what: reason", FILE being the path the connection was opened with
// (registered by Database), so that every SQLite error names the file it is about.
[[noreturn]] void throwSqlite(sqlite3* db, int rc, std::string_view what);
// The path a user gave for a connection, for error messages; forget it before closing.
void registerConnectionPath(sqlite3* db, const std::string& path);
void forgetConnectionPath(sqlite3* db);

}  // namespace wt
