// Force-included (-include) into every source of the loadable extension, storage's included:
// every sqlite3_* call then goes through the API table of the SQLite that loads the extension
// (python3's, the sqlite3 shell's), so the extension never links a second SQLite of its own.
#pragma once

#include <sqlite3ext.h>

SQLITE_EXTENSION_INIT3
