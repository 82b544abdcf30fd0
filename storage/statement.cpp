#include "statement.h"

#include "lockholder.h"

#include <mutex>
#include <unordered_map>

namespace wt {

namespace {

std::mutex g_pathsMutex;
std::unordered_map<sqlite3*, std::string>& connectionPaths()
{
    static std::unordered_map<sqlite3*, std::string> paths;
    return paths;
}

std::string connectionPath(sqlite3* db)
{
    std::lock_guard<std::mutex> lock(g_pathsMutex);
    auto it = connectionPaths().find(db);
    return it == connectionPaths().end() ? std::string() : it->second;
}

}  // namespace

void registerConnectionPath(sqlite3* db, const std::string& path)
{
    if (!db)
        return;
    std::lock_guard<std::mutex> lock(g_pathsMutex);
    connectionPaths()[db] = path;
}

void forgetConnectionPath(sqlite3* db)
{
    std::lock_guard<std::mutex> lock(g_pathsMutex);
    connectionPaths().erase(db);
}

void throwSqlite(sqlite3* db, int rc, std::string_view what)
{
    std::string reason;
    switch (rc & 0xff) {
    case SQLITE_FULL: reason = "disk full"; break;
    case SQLITE_CORRUPT: reason = "the file is corrupt"; break;
    case SQLITE_NOTADB: reason = "not an SQLite database"; break;
    case SQLITE_READONLY:
        // SQLite cannot write a journal beside a file in a read-only directory; the file itself may be writable.
        reason = rc == SQLITE_READONLY_DIRECTORY ? "its directory is read-only (a journal is written beside the file)"
                                                 : "the file is read-only";
        break;
    case SQLITE_IOERR: reason = "I/O error"; break;
    case SQLITE_BUSY: {
        // Say who holds it: a reader (wheretime sql, a viewer) and a writer are waited for alike.
        const char* file = db ? sqlite3_db_filename(db, "main") : nullptr;
        reason = file && *file ? describeLockHolder(file) + "; try again when it is done"
                               : std::string("the file is locked by another process");
        break;
    }
    case SQLITE_CANTOPEN: reason = "cannot open the file"; break;
    default: reason = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc); break;
    }
    if ((rc & 0xff) == SQLITE_IOERR && db) {
        std::string msg = sqlite3_errmsg(db);
        if (msg.find("disk") != std::string::npos || (rc == SQLITE_IOERR_WRITE))
            reason = "write failed (disk full or file size limit?)";
    }
    const std::string file = db ? connectionPath(db) : std::string();
    std::string where(what);
    if (!file.empty() && where.rfind(file, 0) != 0)
        where = file + ": " + where;
    throw StorageError(where + ": " + reason);
}

Statement::Statement(sqlite3* db, std::string_view sql) : m_db(db)
{
    int rc = sqlite3_prepare_v3(db, sql.data(), int(sql.size()), SQLITE_PREPARE_PERSISTENT, &m_stmt, nullptr);
    if (rc != SQLITE_OK)
        throwSqlite(db, rc, "preparing a query");
}

Statement::~Statement() { sqlite3_finalize(m_stmt); }

Statement& Statement::bind(int index, int64_t value)
{
    sqlite3_bind_int64(m_stmt, index, value);
    return *this;
}

Statement& Statement::bind(int index, double value)
{
    sqlite3_bind_double(m_stmt, index, value);
    return *this;
}

Statement& Statement::bind(int index, std::string_view value)
{
    sqlite3_bind_text(m_stmt, index, value.data(), int(value.size()), SQLITE_TRANSIENT);
    return *this;
}

Statement& Statement::bindBlobNoCopy(int index, const void* data, size_t size)
{
    sqlite3_bind_blob64(m_stmt, index, data, sqlite3_uint64(size), SQLITE_STATIC);
    return *this;
}

Statement& Statement::bindNull(int index)
{
    sqlite3_bind_null(m_stmt, index);
    return *this;
}

bool Statement::step()
{
    int rc = sqlite3_step(m_stmt);
    if (rc == SQLITE_ROW)
        return true;
    if (rc == SQLITE_DONE)
        return false;
    sqlite3_reset(m_stmt);
    throwSqlite(m_db, rc, "querying the database");
}

void Statement::run()
{
    int rc = sqlite3_step(m_stmt);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
        sqlite3_reset(m_stmt);
        throwSqlite(m_db, rc, "writing to the database");
    }
    sqlite3_reset(m_stmt);
}

void Statement::reset() { sqlite3_reset(m_stmt); }

std::string Statement::text(int column) const { return std::string(textView(column)); }

std::string_view Statement::textView(int column) const
{
    auto p = reinterpret_cast<const char*>(sqlite3_column_text(m_stmt, column));
    if (!p)
        return {};
    return std::string_view(p, size_t(sqlite3_column_bytes(m_stmt, column)));
}

std::string_view Statement::blob(int column) const
{
    auto p = static_cast<const char*>(sqlite3_column_blob(m_stmt, column));
    if (!p)
        return {};
    return std::string_view(p, size_t(sqlite3_column_bytes(m_stmt, column)));
}

}  // namespace wt
