#include "kernels/sweepplan.h"

#include <algorithm>

namespace wt::kernels {

SweepAxis parseSweepAxis(const std::string& text)
{
    const size_t eq = text.find('=');
    if (eq == std::string::npos || eq == 0)
        throw SweepPlanError("--sweep needs KEY=v1,v2,... (e.g. hidden=256,512), got '" + text + "'");
    SweepAxis axis;
    axis.key = text.substr(0, eq);
    const std::string list = text.substr(eq + 1);
    if (list.empty())
        throw SweepPlanError("--sweep " + axis.key + " has no values");
    const char sep = list.find(';') != std::string::npos ? ';' : ',';
    // Split by hand: a trailing separator is an empty value too (getline would drop it).
    for (size_t from = 0;;) {
        const size_t at = list.find(sep, from);
        const std::string part = list.substr(from, at == std::string::npos ? std::string::npos : at - from);
        if (part.empty())
            throw SweepPlanError("--sweep " + axis.key + ": an empty value in '" + list + "'");
        if (std::find(axis.values.begin(), axis.values.end(), part) != axis.values.end())
            throw SweepPlanError("--sweep " + axis.key + ": value '" + part + "' is given twice");
        axis.values.push_back(part);
        if (at == std::string::npos)
            break;
        from = at + 1;
    }
    return axis;
}

SweepPlan parseSweepPlan(const std::vector<std::string>& texts, const SweepFixed& fixed)
{
    SweepPlan plan;
    for (const std::string& text : texts)
        plan.axes.push_back(parseSweepAxis(text));
    if (plan.axes.size() > 2)
        throw SweepPlanError("at most two --sweep options (a grid)");
    if (plan.axes.size() == 2 && plan.axes[0].key == plan.axes[1].key)
        throw SweepPlanError("--sweep " + plan.axes[0].key + " is given twice");
    for (const SweepAxis& a : plan.axes) {
        if (a.key == "variant" && fixed.variant)
            throw SweepPlanError("--sweep variant=... and --variant cannot be combined");
        if (a.key == "preset" && fixed.preset)
            throw SweepPlanError("--sweep preset=... and --preset cannot be combined");
        for (const std::string& k : fixed.setKeys)
            if (k == a.key)
                throw SweepPlanError("--sweep " + a.key + "=... and --set " + a.key + "=... cannot be combined");
    }
    if (plan.axes.empty())
        return plan;
    for (const std::string& v1 : plan.axes[0].values) {
        if (plan.axes.size() == 1)
            plan.combos.push_back({v1});
        else
            for (const std::string& v2 : plan.axes[1].values)
                plan.combos.push_back({v1, v2});
    }
    return plan;
}

std::string SweepPlan::nameTag(size_t run) const
{
    std::string tag;
    for (size_t a = 0; a < axes.size() && run < combos.size(); ++a)
        tag += "-" + axes[a].key + "=" + combos[run][a];
    return tag;
}

void applySweepValue(const std::string& key, const std::string& value, std::string& variant, std::string& preset,
                     std::vector<std::pair<std::string, std::string>>& overrides)
{
    if (key == "variant")
        variant = value;
    else if (key == "preset")
        preset = value;
    else
        overrides.emplace_back(key, value);
}

}  // namespace wt::kernels
