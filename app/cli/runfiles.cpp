#include "runfiles.h"

#include "app/cli/args.h"

namespace wt::cli {

Reader& RunFiles::reader(const std::string& file)
{
    auto it = m_files.find(file);
    if (it == m_files.end()) {
        Opened o;
        o.db = std::make_unique<Database>(file, OpenMode::ReadOnly);
        o.reader = std::make_unique<Reader>(*o.db);
        it = m_files.emplace(file, std::move(o)).first;
    }
    return *it->second.reader;
}

CompareRun RunFiles::load(const std::string& fileRun, CategoriesPtr categories)
{
    auto [file, selector] = splitRunSelector(fileRun);
    Reader& r = reader(file);
    return loadCompareRun(r, r.resolveRun(selector), file, std::move(categories));
}

}  // namespace wt::cli
