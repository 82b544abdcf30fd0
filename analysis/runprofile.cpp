#include "runprofile.h"

#include "storage/reader.h"

namespace wt {

std::shared_ptr<const RunProfile> RunProfile::load(const Reader& reader, int64_t runId)
{
    auto p = std::make_shared<RunProfile>();
    p->run = reader.run(runId);
    p->strings = reader.strings();
    p->tree = ScopeTree(reader.scopes(runId), p->strings);
    p->totals = reader.totals(runId);
    return p;
}

const std::string& RunProfile::string(uint32_t id) const
{
    static const std::string none;
    auto it = strings.find(id);
    return it == strings.end() ? none : it->second;
}

}  // namespace wt
