#include "database.h"

#include "migrations.h"
#include "schema.h"
#include "statement.h"
#include "storageerror.h"
#include "writer.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fstream>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace wt {

namespace {

bool fileExists(const std::string& path, struct stat* st)
{
    return ::stat(path.c_str(), st) == 0;
}

uint32_t readBigEndian(const unsigned char* p, int n)
{
    uint32_t v = 0;
    for (int i = 0; i < n; ++i)
        v = (v << 8) | p[i];
    return v;
}

std::string hostName()
{
    char buf[256] = {};
    gethostname(buf, sizeof buf - 1);
    return buf;
}

// "file:" URI of a path for sqlite3_open_v2 with SQLITE_OPEN_URI.
std::string fileUri(const std::string& path, const char* query)
{
    std::string uri = "file:";
    for (unsigned char c : path) {
        if (c == '%' || c == '?' || c == '#' || c < 0x20) {
            static const char hex[] = "0123456789ABCDEF";
            uri += '%';
            uri += hex[c >> 4];
            uri += hex[c & 15];
        } else {
            uri += char(c);
        }
    }
    return uri + "?" + query;
}

void closeConnection(sqlite3* db)
{
    forgetConnectionPath(db);
    sqlite3_close(db);
}

std::string directoryOf(const std::string& path)
{
    const size_t slash = path.rfind('/');
    return slash == std::string::npos ? std::string(".") : slash == 0 ? std::string("/") : path.substr(0, slash);
}

off_t fileSize(const std::string& path)
{
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 ? st.st_size : -1;
}

}  // namespace

void Database::fail(const std::string& reason) const
{
    throw StorageError(m_path + ": " + reason);
}

Database::Database(const std::string& path, OpenMode mode) : m_path(path), m_mode(mode)
{
    struct stat st {};
    bool exists = fileExists(path, &st);
    if (!exists && mode == OpenMode::ReadOnly)
        fail("no such file");
    if (exists && S_ISDIR(st.st_mode))
        fail("is a directory, not a wheretime file");
    if (exists && ::access(path.c_str(), R_OK) != 0)
        fail("permission denied");
    if (exists && mode == OpenMode::ReadWrite && ::access(path.c_str(), W_OK) != 0)
        fail("the file is read-only; cannot write to it");
    if (mode == OpenMode::ReadWrite) {
        // Writing needs the directory too: SQLite creates its -wal, -shm or -journal beside the file.
        const std::string dir = directoryOf(path);
        if (::access(dir.c_str(), W_OK) != 0 && errno != ENOENT)
            fail(exists ? "its directory " + dir + " is read-only; writing needs a journal beside the file"
                        : "cannot create it: its directory " + dir + " is read-only");
    }
    if (exists && st.st_size > 0)
        checkHeader();

    int flags = SQLITE_OPEN_NOMUTEX | (mode == OpenMode::ReadOnly ? SQLITE_OPEN_READONLY
                                                                   : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
    int rc = sqlite3_open_v2(path.c_str(), &m_db, flags, nullptr);
    if (rc != SQLITE_OK) {
        std::string msg = m_db ? sqlite3_errmsg(m_db) : sqlite3_errstr(rc);
        closeConnection(m_db);
        m_db = nullptr;
        fail("cannot open: " + msg);
    }
    registerConnectionPath(m_db, m_path);
    sqlite3_extended_result_codes(m_db, 1);
    sqlite3_busy_timeout(m_db, 5000);

    try {
        // The first read validates the file: a non-database or corrupt header fails here.
        int appId = 0;
        int tables = 0;
        auto firstRead = [&] {
            {
                Statement s(m_db, "PRAGMA application_id");
                if (s.step())
                    appId = int(s.int64(0));
            }
            {
                Statement s(m_db, "SELECT count(*) FROM sqlite_master WHERE type='table'");
                if (s.step())
                    tables = int(s.int64(0));
            }
            {
                Statement s(m_db, "PRAGMA user_version");
                if (s.step())
                    m_version = int(s.int64(0));
            }
        };
        try {
            firstRead();
        } catch (const StorageError& first) {
            // A reader of a WAL-mode file needs its WAL index (FILE-shm): where that cannot be
            // created (read-only directory or media, full disk, FILE-shm unusable), a file with
            // no write-ahead log to replay is read as immutable, which needs nothing written.
            // Only failures to create or map the index qualify: a locked or corrupt file is
            // reported as it is.
            int code = sqlite3_errcode(m_db) & 0xff;
            bool indexFailure = code == SQLITE_CANTOPEN || code == SQLITE_READONLY || code == SQLITE_IOERR || code == SQLITE_FULL;
            if (mode != OpenMode::ReadOnly || !indexFailure)
                throw;
            if (fileSize(path + "-wal") > 0 && fileSize(path + "-shm") <= 0)
                fail("its write-ahead log (" + path + "-wal) cannot be read here: its index (-shm) cannot be created "
                     "(read-only directory or full disk); copy the file and its -wal to a writable directory");
            if (!openImmutable())
                throw;
            try {
                firstRead();
            } catch (const StorageError&) {
                throw first;
            }
        }
        if (tables == 0 && appId == 0) {
            if (mode == OpenMode::ReadOnly)
                fail("empty database, not a wheretime file");
            createSchema();
        } else if (appId != kApplicationId) {
            fail("is a database of another application, not a wheretime file");
        } else if (m_version > kSchemaVersion) {
            fail("was written by a newer wheretime (schema version " + std::to_string(m_version) +
                 "; this build reads up to " + std::to_string(kSchemaVersion) + "); upgrade wheretime");
        } else if (m_version < kSchemaVersion) {
            const bool writable = ::access(path.c_str(), W_OK) == 0 && ::access(directoryOf(path).c_str(), W_OK) == 0 && !m_immutable;
            if (!writable && mode == OpenMode::ReadOnly && m_version >= kOldestReadUnmigrated) {
                // Read as it is (read-only media, an immutable file): what the newer versions
                // add are tables the readers look for (a run without them reads as before).
            } else if (!writable) {
                fail("has the older schema version " + std::to_string(m_version) +
                     " and is read-only, so it cannot be migrated; copy it somewhere writable");
            } else if (mode == OpenMode::ReadOnly) {
                // Migration needs write access: reopen read-write just for it.
                closeConnection(m_db);
                m_db = nullptr;
                { Database rw(path, OpenMode::ReadWrite); }
                rc = sqlite3_open_v2(path.c_str(), &m_db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nullptr);
                if (rc != SQLITE_OK)
                    fail("cannot reopen after migration");
                registerConnectionPath(m_db, m_path);
                m_version = kSchemaVersion;
            } else {
                migrate(m_version);
            }
        }
        if (m_immutable && m_version >= kOldestReadUnmigrated)
            checkNoLiveWriter();
        if (mode == OpenMode::ReadWrite) {
            exec("PRAGMA journal_mode=WAL");
            exec("PRAGMA synchronous=NORMAL");
            exec("PRAGMA cache_size=-65536");   // 64 MiB: keeps the activity B-tree's hot pages
            recoverDeadWriters();
            // Runs without a summary or scope lanes (older files, recovered runs) are not
            // computed here: a pass over a large run takes a minute, and the open must not. The
            // GUI fills them in the background, `wheretime upgrade` in the foreground
            // (summarybackfill.h); until then they read as before.
        }
    } catch (const StorageError& e) {
        closeConnection(m_db);
        m_db = nullptr;
        std::string what = e.what();
        if (what.rfind(m_path + ":", 0) == 0)
            throw;
        throw StorageError(m_path + ": " + what);
    }
}

Database::Database(sqlite3* borrowed, const std::string& path)
    : m_path(path.empty() ? std::string("(in-memory database)") : path), m_mode(OpenMode::ReadOnly), m_db(borrowed), m_owned(false)
{
    int appId = 0;
    {
        Statement s(m_db, "PRAGMA main.application_id");
        if (s.step())
            appId = int(s.int64(0));
    }
    {
        Statement s(m_db, "PRAGMA main.user_version");
        if (s.step())
            m_version = int(s.int64(0));
    }
    if (appId != kApplicationId)
        fail("not a wheretime file (its application_id is not 'WTME')");
    if (m_version > kSchemaVersion)
        fail("was written by a newer wheretime (schema version " + std::to_string(m_version) +
             "; this build reads up to " + std::to_string(kSchemaVersion) + "); upgrade wheretime");
    if (m_version < kSchemaVersion)
        fail("has the older schema version " + std::to_string(m_version) +
             "; open it once with wheretime (e.g. `wheretime runs FILE`) to migrate it");
}

Database::~Database()
{
    if (!m_db || !m_owned)
        return;
    // The last writer out takes the file out of WAL mode (checkpointing the log): a finished
    // file then reads anywhere (read-only media, full disk) with nothing beside it. With other
    // connections open this fails at once (busy) and the file stays in WAL mode until later.
    if (m_mode == OpenMode::ReadWrite && sqlite3_get_autocommit(m_db)) {
        sqlite3_busy_timeout(m_db, 0);
        sqlite3_exec(m_db, "PRAGMA journal_mode=DELETE", nullptr, nullptr, nullptr);
    }
    closeConnection(m_db);
}

bool Database::openImmutable()
{
    // Immutable skips the write-ahead log: only right when there is none with content.
    if (fileSize(m_path + "-wal") > 0)
        return false;
    sqlite3* db = nullptr;
    int rc = sqlite3_open_v2(fileUri(m_path, "immutable=1").c_str(), &db,
                             SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI, nullptr);
    if (rc != SQLITE_OK) {
        sqlite3_close(db);
        return false;
    }
    registerConnectionPath(db, m_path);
    closeConnection(m_db);
    m_db = db;
    sqlite3_extended_result_codes(m_db, 1);
    m_immutable = true;
    return true;
}

void Database::checkNoLiveWriter()
{
    // An immutable open must not read a file that a live writer is changing.
    Statement s(m_db, "SELECT writer_pid, writer_host FROM runs WHERE status='writing'");
    std::string host = hostName();
    while (s.step()) {
        pid_t pid = pid_t(s.int64(0));
        bool alive = pid > 0 && (::kill(pid, 0) == 0 || errno == EPERM);
        if (s.textView(1) != host || alive)
            fail("a capture or import is writing to this file and its WAL index (" + m_path +
                 "-shm) cannot be created here; read it where it can be, or after the writer ends");
    }
}

void Database::checkHeader()
{
    std::ifstream in(m_path, std::ios::binary);
    unsigned char h[100] = {};
    in.read(reinterpret_cast<char*>(h), sizeof h);
    std::streamsize got = in.gcount();
    static const char magic[] = "SQLite format 3";
    if (got < 16 || std::memcmp(h, magic, 16) != 0)
        fail("not a wheretime file (not an SQLite database)");
    if (got < 100)
        fail("truncated file (shorter than an SQLite header)");
    uint32_t pageSize = readBigEndian(h + 16, 2);
    if (pageSize == 1)
        pageSize = 65536;
    uint32_t pageCount = readBigEndian(h + 28, 4);
    uint32_t changeCounter = readBigEndian(h + 24, 4);
    uint32_t validFor = readBigEndian(h + 92, 4);
    struct stat st {};
    ::stat(m_path.c_str(), &st);
    struct stat wal {};
    bool hasWal = ::stat((m_path + "-wal").c_str(), &wal) == 0 && wal.st_size > 0;
    // The in-header page count is trustworthy when the two counters agree; a WAL may hold newer pages.
    if (!hasWal && changeCounter == validFor && pageCount > 0 &&
        uint64_t(st.st_size) < uint64_t(pageSize) * pageCount)
        fail("truncated file (" + std::to_string(st.st_size) + " bytes, the header says " +
             std::to_string(uint64_t(pageSize) * pageCount) + ")");
}

void Database::exec(const char* sql)
{
    char* err = nullptr;
    int rc = sqlite3_exec(m_db, sql, nullptr, nullptr, &err);
    if (rc != SQLITE_OK) {
        sqlite3_free(err);
        throwSqlite(m_db, rc, m_path);
    }
}

void Database::begin() { exec("BEGIN IMMEDIATE"); }
void Database::commit() { exec("COMMIT"); }
void Database::rollback() noexcept
{
    if (m_db && !sqlite3_get_autocommit(m_db))
        sqlite3_exec(m_db, "ROLLBACK", nullptr, nullptr, nullptr);
}

void Database::createSchema()
{
    begin();
    try {
        exec(schema::kCreateV1);
        exec(schema::kCreateV2);
        exec(schema::kCreateV3);
        exec(schema::kCreateV4);
        exec(schema::kCreateV5);
        exec(schema::kCreateV6);
        exec(("PRAGMA application_id=" + std::to_string(kApplicationId)).c_str());
        exec(("PRAGMA user_version=" + std::to_string(kSchemaVersion)).c_str());
        Statement s(m_db, "INSERT INTO file_info(key, value) VALUES ('created_by', ?)");
        s.bind(1, std::string("wheretime ") + WHERETIME_STORAGE_VERSION).run();
        commit();
    } catch (...) {
        rollback();
        throw;
    }
    m_version = kSchemaVersion;
}

void Database::migrate(int from)
{
    // Each step moves the file one version up inside one transaction: a failure leaves it as it was.
    while (from < kSchemaVersion) {
        begin();
        try {
            migrateStep(*this, from);
            exec(("PRAGMA user_version=" + std::to_string(from + 1)).c_str());
            commit();
        } catch (...) {
            rollback();
            throw;
        }
        ++from;
    }
    m_version = kSchemaVersion;
}

void Database::recoverDeadWriters()
{
    // A run still 'writing' whose writer process on this host is gone was killed: keep what it
    // wrote, rebuild its summary and mark it incomplete.
    std::vector<int64_t> dead;
    {
        Statement s(m_db, "SELECT id, writer_pid, writer_host FROM runs WHERE status='writing'");
        std::string host = hostName();
        while (s.step()) {
            pid_t pid = pid_t(s.int64(1));
            bool sameHost = s.textView(2) == host;
            bool alive = pid > 0 && (::kill(pid, 0) == 0 || errno == EPERM);
            if (sameHost && !alive)
                dead.push_back(s.int64(0));
        }
    }
    for (int64_t id : dead)
        Writer::recoverRun(*this, id);
}

}  // namespace wt
