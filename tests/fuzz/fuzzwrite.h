// The importer fuzzers' last stage: a parsed trace through writeTrace() into the fuzzer's one
// in-memory database, rolled back whatever happens (as interop/importer.cpp does), so that an
// input that writeTrace() refuses (an ImportError: a time out of range) leaves no transaction
// open for the next input. Storage errors are swallowed; anything else propagates.
#pragma once

#include "interop/importedtrace.h"
#include "storage/database.h"
#include "storage/storageerror.h"
#include "storage/writer.h"

#include <string>

namespace wt::fuzz {

inline void writeRolledBack(Database& db, interop::ImportedTrace& trace, const std::string& file)
{
    db.begin();
    try {
        Writer w(db);
        RunInfo info;
        info.name = "fuzz";
        info.sourceFile = file;
        interop::writeTrace(w, trace, info);
    } catch (const StorageError&) {
    } catch (...) {
        db.rollback();
        throw;
    }
    db.rollback();
}

}  // namespace wt::fuzz
