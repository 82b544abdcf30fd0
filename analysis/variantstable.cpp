#include "analysis/variantstable.h"

#include <algorithm>
#include <cctype>
#include <set>

namespace wt {

namespace {

// The fixed columns of variantsTable, which the value column must not take.
const char* const kFixed[] = {"baseline", "run", "name", "file", "steps", "forward_ns", "backward_ns", "update_ns",
                              "layer_ns", "share", "step_ns", "step_wall_ns", "speedup", "forward_speedup",
                              "backward_speedup", "step_speedup", "speedup_low", "speedup_high", "verdict",
                              "step_speedup_low", "step_speedup_high", "step_verdict"};

bool validId(const std::string& id)
{
    return !id.empty() && std::all_of(id.begin(), id.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    });
}

Cell optional(const std::optional<double>& v)
{
    return v ? Cell(*v) : Cell();
}

std::string settingName(const VariantsTable& t)
{
    return t.setting.empty() ? std::string("variant") : t.setting;
}

}  // namespace

std::string variantsValueColumn(const VariantsTable& t)
{
    const std::string s = settingName(t);
    const bool taken = std::find_if(std::begin(kFixed), std::end(kFixed), [&](const char* f) { return s == f; }) != std::end(kFixed);
    return validId(s) && !taken ? s : std::string("value");
}

Table variantsTable(const VariantsTable& v)
{
    Table t;
    t.id = "variants";
    const std::string setting = settingName(v);
    t.add(variantsValueColumn(v), setting, Unit::Text);
    t.add("baseline", "baseline", Unit::Text);
    t.add("run", "run", Unit::Count);
    t.add("name", "name", Unit::Text, false);
    t.add("file", "file", Unit::Text, false);
    t.add("steps", "steps", Unit::Count, false);
    t.add("forward_ns", "forward", Unit::Ns);
    t.add("backward_ns", "backward", Unit::Ns);
    t.add("update_ns", "update", Unit::Ns);
    t.add("layer_ns", v.layer, Unit::Ns);
    t.add("share", "share", Unit::Share);
    t.add("step_ns", "step kernels", Unit::Ns);   // kernel time of the step, not its wall time
    t.add("step_wall_ns", "step wall", Unit::Ns);
    t.add("speedup", "speedup", Unit::Ratio);
    t.add("forward_speedup", "forward speedup", Unit::Ratio, false);
    t.add("backward_speedup", "backward speedup", Unit::Ratio, false);
    t.add("step_speedup", "step speedup", Unit::Ratio);
    // Noise against the baseline (docs/compare.md): the speedups' 95% intervals and verdicts.
    t.add("speedup_low", "speedup from", Unit::Ratio);
    t.add("speedup_high", "to", Unit::Ratio);
    t.add("verdict", "verdict", Unit::Text);
    t.add("step_speedup_low", "step speedup from", Unit::Ratio, false);
    t.add("step_speedup_high", "step speedup to", Unit::Ratio, false);
    t.add("step_verdict", "step verdict", Unit::Text, false);
    if (v.rows.empty())
        return t;

    const VariantRow& base = v.rows[v.baseline];
    t.notes.push_back(std::to_string(v.rows.size()) + " runs of " + base.info.workload +
                      (base.info.preset.empty() ? "" : " " + base.info.preset) + " that differ in " +
                      (v.setting.empty() ? std::string("nothing (identical settings)") : v.setting) + "; layer " + v.layer +
                      ", kernel time per step; baseline " + base.value + " (run " + std::to_string(base.info.id) +
                      "): speedups are its time / each run's");
    t.notes.insert(t.notes.end(), v.notes.begin(), v.notes.end());
    for (size_t i = 0; i < v.rows.size(); ++i) {
        const VariantRow& r = v.rows[i];
        std::vector<Cell>& row = t.addRow();
        size_t c = 0;
        row[c++] = r.value;
        row[c++] = std::string(i == v.baseline ? "yes" : "no");
        row[c++] = r.info.id;
        row[c++] = r.info.name;
        row[c++] = r.file;
        row[c++] = r.steps;
        row[c++] = r.forwardNs;
        row[c++] = r.backwardNs;
        row[c++] = r.updateNs;
        row[c++] = r.layerNs;
        row[c++] = r.share;
        row[c++] = r.stepNs;
        row[c++] = r.stepWallNs;
        row[c++] = optional(r.speedup);
        row[c++] = optional(r.forwardSpeedup);
        row[c++] = optional(r.backwardSpeedup);
        row[c++] = optional(r.stepSpeedup);
        const bool base = i == v.baseline;
        row[c++] = optional(r.speedupLow);
        row[c++] = optional(r.speedupHigh);
        row[c++] = base ? Cell() : Cell(std::string(toString(r.verdict)));
        row[c++] = optional(r.stepSpeedupLow);
        row[c++] = optional(r.stepSpeedupHigh);
        row[c++] = base ? Cell() : Cell(std::string(toString(r.stepVerdict)));
    }
    if (v.rows.size() > 1)   // one line of notes still: the report's and tests' layout
        t.notes.front() += "; speedup from .. to: its 95% interval (Welch, per-step samples), verdict under Holm's control";
    return t;
}

Table variantOpsTable(const VariantsTable& v)
{
    Table t;
    t.id = "variants_ops";
    t.add("op", "op", Unit::Text);
    // One column per run, named by its value where that makes a distinct id.
    std::set<std::string> seen{"op"};
    for (size_t i = 0; i < v.rows.size(); ++i) {
        const VariantRow& r = v.rows[i];
        std::string id;
        for (char ch : r.value) {
            const auto c = static_cast<unsigned char>(ch);
            id += std::isalnum(c) && c < 0x80 ? char(std::tolower(c)) : '_';
        }
        id += "_ns";
        if (r.value.empty() || seen.count(id))
            id = "run" + std::to_string(r.info.id) + "_ns";
        if (seen.count(id))   // the same run id in two files
            id = "run" + std::to_string(r.info.id) + "_" + std::to_string(i + 1) + "_ns";
        seen.insert(id);
        t.add(id, r.value, Unit::Ns);
    }
    t.notes.push_back("ops of layer " + v.layer + ", kernel time per step (all phases); largest summed over the runs first");
    for (size_t op = 0; op < v.opNames.size(); ++op) {
        std::vector<Cell>& row = t.addRow();
        row[0] = v.opNames[op];
        for (size_t i = 0; i < v.rows.size(); ++i)
            if (op < v.rows[i].ops.size() && v.rows[i].ops[op].ns > 0)
                row[i + 1] = v.rows[i].ops[op].ns;
    }
    return t;
}

}  // namespace wt
