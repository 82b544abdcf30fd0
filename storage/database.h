// One wheretime file: an SQLite database holding many runs. Opening checks that the file is
// ours, refuses newer schemas, migrates older ones (a schema bump: new tables, empty; what an
// older file lacks is computed outside the open, summarybackfill.h), and marks runs whose
// writer died as incomplete. Every failure is a StorageError with a one-line reason naming the file.
// A writer puts the file in WAL mode while open and takes it out again when it closes last, so
// a finished file has no -wal/-shm beside it. A read-only open never writes: where the WAL
// index cannot be created (read-only directory, full disk), a file with no write-ahead log to
// replay and no live writer is read as immutable.
#pragma once

#include <sqlite3.h>

#include <string>

namespace wt {

enum class OpenMode {
    ReadOnly,    // the file must exist; nothing is written (except a needed migration)
    ReadWrite,   // created when missing
};

class Database {
public:
    static constexpr int kSchemaVersion = 6;
    static constexpr int kApplicationId = 0x57544D45;   // "WTME"
    // The oldest version a read-only open reads as it is where it cannot be migrated (a
    // read-only file or directory): version 6 only adds tables that readers look for.
    static constexpr int kOldestReadUnmigrated = 5;

    Database(const std::string& path, OpenMode mode);
    // Wraps a connection that someone else opened and will close (the host connection of the
    // SQL extension, sql/): checks that its main database is a wheretime file of this schema
    // version; never migrates, writes or closes it. Throws StorageError like an open.
    Database(sqlite3* borrowed, const std::string& path);
    ~Database();
    Database(const Database&) = delete;
    Database& operator=(const Database&) = delete;

    sqlite3* handle() const { return m_db; }
    const std::string& path() const { return m_path; }
    bool readOnly() const { return m_mode == OpenMode::ReadOnly; }
    // Opened as an immutable file (read-only, and its WAL index could not be created).
    bool immutable() const { return m_immutable; }
    int schemaVersion() const { return m_version; }

    void exec(const char* sql);
    void begin();
    void commit();
    void rollback() noexcept;

private:
    void checkHeader();
    void createSchema();
    void migrate(int from);
    void recoverDeadWriters();
    bool openImmutable();
    void checkNoLiveWriter();
    [[noreturn]] void fail(const std::string& reason) const;

    std::string m_path;
    OpenMode m_mode;
    sqlite3* m_db = nullptr;
    int m_version = 0;
    bool m_immutable = false;
    bool m_owned = true;   // false: a borrowed connection, closed by its owner
};

}  // namespace wt
