// The FILE[:RUN] arguments of the commands that read runs of several files (compare, variants):
// each distinct file opened once, read-only, and the runs loaded as self-contained CompareRuns
// (analysis/compare.h), so the files may close while the figures are computed.
#pragma once

#include "analysis/compare.h"
#include "analysis/kernelcategory.h"
#include "storage/database.h"
#include "storage/reader.h"

#include <map>
#include <memory>
#include <string>

namespace wt::cli {

class RunFiles {
public:
    // The reader of `file`, opened (read-only) on first use; a bad file throws StorageError.
    Reader& reader(const std::string& file);
    // The run a FILE[:RUN] argument names (by id or name; the newest without RUN), loaded with
    // `categories` (null: the rules stored with the run).
    CompareRun load(const std::string& fileRun, CategoriesPtr categories = nullptr);

private:
    struct Opened {
        std::unique_ptr<Database> db;
        std::unique_ptr<Reader> reader;
    };
    std::map<std::string, Opened> m_files;
};

}  // namespace wt::cli
