// Kernel categories: which kind of work a kernel does (gemm, attention, communication, ...),
// from its name, by the documented rules of docs/categories.md. Imports and captures use the
// same rules. A user rules file (regex -> category, first match wins) is checked before the
// built-in rules; the rules a run was imported with are stored with it (runprofile.h).
#pragma once

#include "storage/types.h"

#include <memory>
#include <stdexcept>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

namespace wt {

// The built-in categories, in the order the docs list them.
inline constexpr const char* kCategoryGemm = "gemm";
inline constexpr const char* kCategoryAttention = "attention";
inline constexpr const char* kCategoryCommunication = "communication";
inline constexpr const char* kCategoryConvolution = "convolution";
inline constexpr const char* kCategoryNormalization = "normalization";
inline constexpr const char* kCategorySoftmax = "softmax";
inline constexpr const char* kCategoryElementwise = "element-wise";
inline constexpr const char* kCategoryReduction = "reduction";
inline constexpr const char* kCategoryMemory = "memory";
inline constexpr const char* kCategoryOther = "other";
const std::vector<std::string>& builtinCategories();

// Thrown by KernelCategories::parse/load with a one-line reason ("FILE:LINE: ...").
struct CategoryRulesError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

class KernelCategories {
public:
    // The built-in rules only.
    KernelCategories() = default;
    // User rules, one a line: `REGEX -> CATEGORY` (or `REGEX<TAB>CATEGORY`); blank lines and
    // lines starting with '#' are skipped. Regexes are ECMAScript, searched anywhere in the
    // name, case-insensitive. `source` names the text in errors (a file name).
    static KernelCategories parse(std::string_view text, const std::string& source = "rules");
    static KernelCategories load(const std::string& path);   // reads a file, then parse()

    // The category of one activity: user rules first (on any activity's name), then memcpy
    // and memset activities are "memory", then the built-in rules on kernel names, else "other".
    std::string categoryOf(ActivityKind kind, std::string_view name) const;
    // The built-in rules alone (no user rules).
    static std::string_view builtinCategoryOf(ActivityKind kind, std::string_view name);

    bool hasUserRules() const { return !m_rules.empty(); }
    const std::string& text() const { return m_text; }   // the user rules as given (stored with runs)

private:
    struct Rule {
        std::regex regex;
        std::string category;
    };
    std::vector<Rule> m_rules;
    std::string m_text;
};

using CategoriesPtr = std::shared_ptr<const KernelCategories>;

}  // namespace wt
