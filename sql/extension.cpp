// Entry point of the loadable extension libwheretime_sqlite.so: `.load` in the sqlite3 shell,
// or Connection.load_extension() in Python's sqlite3. Built with sqlite3extshim.h force-included.
#include "sql/sqltables.h"

#include <cstring>

const sqlite3_api_routines* sqlite3_api = nullptr;

namespace {

int init(sqlite3* db, char** errorOut, const sqlite3_api_routines* api)
{
    sqlite3_api = api;
    std::string error;
    int rc = wt::sql::SqlTables::registerOn(db, error);
    if (rc != SQLITE_OK && errorOut)
        *errorOut = sqlite3_mprintf("%s", error.c_str());
    return rc;
}

}  // namespace

// SQLite looks for sqlite3_<name>_init, the name taken from the file name
// (libwheretime_sqlite.so -> wheretimesqlite), then for sqlite3_extension_init.
extern "C" __attribute__((visibility("default"))) int sqlite3_wheretimesqlite_init(sqlite3* db, char** error,
                                                                                  const sqlite3_api_routines* api)
{
    return init(db, error, api);
}

extern "C" __attribute__((visibility("default"))) int sqlite3_extension_init(sqlite3* db, char** error,
                                                                            const sqlite3_api_routines* api)
{
    return init(db, error, api);
}
