#include "runprofile.h"

#include "storage/reader.h"

#include <charconv>

namespace wt {

std::shared_ptr<const RunProfile> RunProfile::load(const Reader& reader, int64_t runId, CategoriesPtr categories)
{
    auto p = std::make_shared<RunProfile>();
    p->run = reader.run(runId);
    p->devices = reader.devices(runId);
    p->strings = reader.strings();
    p->tree = ScopeTree(reader.scopes(runId), p->strings);
    applyRunSettings(p->tree, reader.metadata(runId));
    if (categories)
        p->tree.setCategories(std::move(categories));
    p->totals = reader.totals(runId);
    return p;
}

void applyRunSettings(ScopeTree& tree, const std::vector<std::pair<std::string, std::string>>& metadata)
{
    for (const auto& [key, value] : metadata) {
        if (key == kLayerDepthKey) {
            int depth = 1;
            const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), depth);
            if (ec == std::errc() && end == value.data() + value.size())
                tree.setLayerDepth(depth);
        } else if (key == kCategoriesKey) {
            try {
                tree.setCategories(std::make_shared<const KernelCategories>(KernelCategories::parse(value, "stored rules")));
            } catch (const CategoryRulesError&) {
                // A damaged stored text: the built-in rules still give every kernel a category.
            }
        }
    }
}

std::shared_ptr<const RunProfile> withLayerDepth(const RunProfile& profile, int depth)
{
    auto p = std::make_shared<RunProfile>(profile);
    p->tree.setLayerDepth(depth);
    return p;
}

const std::string& RunProfile::string(uint32_t id) const
{
    static const std::string none;
    auto it = strings.find(id);
    return it == strings.end() ? none : it->second;
}

}  // namespace wt
