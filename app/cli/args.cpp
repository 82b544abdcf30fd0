#include "args.h"

#include <algorithm>
#include <charconv>
#include <sys/stat.h>

namespace wt::cli {

void Args::parse(const std::vector<std::string>& valued, const std::vector<std::string>& flags,
                 const std::vector<std::string>& several)
{
    auto has = [](const std::vector<std::string>& v, const std::string& s) {
        return std::find(v.begin(), v.end(), s) != v.end();
    };
    bool onlyPositionals = false;
    for (size_t i = 0; i < m_argv.size(); ++i) {
        const std::string& a = m_argv[i];
        if (onlyPositionals || a.size() < 2 || a[0] != '-' || a == "-") {
            m_positionals.push_back(a);
            continue;
        }
        if (a == "--") {
            onlyPositionals = true;
            continue;
        }
        std::string key = a, val;
        bool inlineValue = false;
        if (auto eq = a.find('='); eq != std::string::npos && a.rfind("--", 0) == 0) {
            key = a.substr(0, eq);
            val = a.substr(eq + 1);
            inlineValue = true;
        }
        if (has(valued, key) || has(several, key)) {
            if (!inlineValue) {
                if (i + 1 >= m_argv.size())
                    throw UsageError("option " + key + " needs a value");
                val = m_argv[++i];
            }
            m_values.emplace_back(key, val);
            // The further values: up to the next option (a file named "-x" needs --fit=-x).
            while (has(several, key) && i + 1 < m_argv.size() && !m_argv[i + 1].empty() && m_argv[i + 1][0] != '-')
                m_values.emplace_back(key, m_argv[++i]);
        } else if (has(flags, key) && !inlineValue) {
            m_flags.push_back(key);
        } else {
            throw UsageError("unknown option " + key);
        }
    }
}

void Args::parse()
{
    std::vector<std::string> valued, flags, several;
    auto takesSeveral = [](const std::string& v) { return v.size() > 3 && v.compare(v.size() - 3, 3, "...") == 0; };
    if (m_options)
        for (const Option& o : *m_options)
            (o.value.empty() ? flags : takesSeveral(o.value) ? several : valued).push_back(o.name);
    parse(valued, flags, several);
}

bool Args::flag(const std::string& name) const
{
    return std::find(m_flags.begin(), m_flags.end(), name) != m_flags.end();
}

std::optional<std::string> Args::value(const std::string& name) const
{
    std::optional<std::string> out;
    for (auto& [k, v] : m_values)
        if (k == name)
            out = v;
    return out;
}

std::vector<std::string> Args::values(const std::string& name) const
{
    std::vector<std::string> out;
    for (auto& [k, v] : m_values)
        if (k == name)
            out.push_back(v);
    return out;
}

std::string Args::value(const std::string& name, const std::string& fallback) const
{
    return value(name).value_or(fallback);
}

long long Args::integer(const std::string& name, long long fallback) const
{
    auto v = value(name);
    if (!v)
        return fallback;
    long long out = 0;
    auto [p, ec] = std::from_chars(v->data(), v->data() + v->size(), out);
    if (ec != std::errc() || p != v->data() + v->size())
        throw UsageError("option " + name + " needs an integer, got '" + *v + "'");
    return out;
}

std::pair<std::string, std::string> splitRunSelector(const std::string& text)
{
    struct stat st {};
    if (::stat(text.c_str(), &st) == 0)
        return {text, {}};
    auto colon = text.rfind(':');
    if (colon == std::string::npos || colon == 0)
        return {text, {}};
    return {text.substr(0, colon), text.substr(colon + 1)};
}

}  // namespace wt::cli
