// One SQLite read snapshot for the length of a scope: what the GUI's loaders read (the whole run,
// its stored overview, a detail window) is of one commit while a live capture commits beside them.
#pragma once

#include "storage/database.h"

namespace wt::gui {

class ReadSnapshot {
public:
    explicit ReadSnapshot(Database& db) : m_db(db) { m_db.exec("BEGIN"); }
    ~ReadSnapshot() { m_db.rollback(); }
    ReadSnapshot(const ReadSnapshot&) = delete;
    ReadSnapshot& operator=(const ReadSnapshot&) = delete;

private:
    Database& m_db;
};

}  // namespace wt::gui
