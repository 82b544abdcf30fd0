#include "shortname.h"

#include "render/textelide.h"

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <memory>
#include <set>

namespace wt {

namespace {

std::string_view trim(std::string_view s)
{
    while (!s.empty() && s.front() == ' ')
        s.remove_prefix(1);
    while (!s.empty() && s.back() == ' ')
        s.remove_suffix(1);
    return s;
}

bool startsWith(std::string_view s, std::string_view p)
{
    return s.substr(0, p.size()) == p;
}

bool isOpen(char c)
{
    return c == '(' || c == '<' || c == '[' || c == '{';
}

// A closing bracket; the '>' of "->" (a pointer arrow inside a lambda or type) is none.
bool isClose(std::string_view s, size_t i)
{
    const char c = s[i];
    if (c == '>')
        return !(i > 0 && s[i - 1] == '-');
    return c == ')' || c == ']' || c == '}';
}

// Positions where `s` is at bracket depth 0, as a predicate over each index.
template <class F>
void forEachTopLevel(std::string_view s, F&& f)
{
    int depth = 0;
    for (size_t i = 0; i < s.size(); ++i) {
        if (isOpen(s[i])) {
            if (depth == 0 && !f(i, true))
                return;
            ++depth;
        } else if (isClose(s, i)) {
            depth = std::max(depth - 1, 0);
        } else if (depth == 0 && !f(i, false)) {
            return;
        }
    }
}

// The '(' opening the trailing parameter list of `s` (which ends in ')'), else npos.
size_t paramListStart(std::string_view s)
{
    if (s.empty() || s.back() != ')')
        return std::string_view::npos;
    int depth = 0;
    for (size_t i = s.size(); i-- > 0;) {
        if (isClose(s, i)) {
            ++depth;
        } else if (isOpen(s[i])) {
            if (--depth == 0)
                return s[i] == '(' && i > 0 ? i : std::string_view::npos;
        }
    }
    return std::string_view::npos;
}

// The last top-level space (between a return type and the function's name), else npos.
size_t lastTopLevelSpace(std::string_view s)
{
    size_t at = std::string_view::npos;
    forEachTopLevel(s, [&](size_t i, bool) {
        if (s[i] == ' ')
            at = i;
        return true;
    });
    return at;
}

// `s` split at its top-level "::".
std::vector<std::string_view> components(std::string_view s)
{
    std::vector<std::string_view> out;
    size_t from = 0;
    forEachTopLevel(s, [&](size_t i, bool open) {
        if (!open && s[i] == ':' && i + 1 < s.size() && s[i + 1] == ':') {
            out.push_back(s.substr(from, i - from));
            from = i + 2;
        }
        return true;
    });
    out.push_back(s.substr(from));
    return out;
}

size_t firstTopLevel(std::string_view s, char c)
{
    size_t at = std::string_view::npos;
    forEachTopLevel(s, [&](size_t i, bool) {
        if (s[i] == c) {
            at = i;
            return false;
        }
        return true;
    });
    return at;
}

bool isKnownReturnType(std::string_view r)
{
    static const char* const kTypes[] = {"void", "int", "unsigned", "float", "double", "bool", "char", "long",
                                         "short", "auto", "static", "__global__", "size_t"};
    const std::string_view first = r.substr(0, r.find(' '));
    for (const char* t : kTypes)
        if (first == t)
            return true;
    return false;
}

bool looksLikeParams(std::string_view p)
{
    return p.empty() || p.find_first_of("*&,") != std::string_view::npos || p.find("::") != std::string_view::npos ||
           isKnownReturnType(trim(p));
}

// Names of templates that only wrap the kernel that matters (cutlass::Kernel<Op>): the label
// names the first template argument instead.
bool isWrapper(std::string_view base)
{
    return base == "Kernel" || base == "kernel" || base == "Kernel2" || base == "device_kernel";
}

// `ns::name<args>` -> `name`.
std::string_view bareName(std::string_view s)
{
    s = trim(s);
    while (!s.empty() && (s.front() == '&' || s.front() == '*'))
        s.remove_prefix(1);
    const std::string_view last = components(s).back();
    return trim(last.substr(0, firstTopLevel(last, '<')));
}

std::string demangled(std::string_view name)
{
    if (!startsWith(name, "_Z"))
        return std::string(name);
    int status = 0;
    std::unique_ptr<char, void (*)(void*)> out(abi::__cxa_demangle(std::string(name).c_str(), nullptr, nullptr, &status), std::free);
    return status == 0 && out ? std::string(out.get()) : std::string(name);
}

// Forms of a C++ signature ("void ns::f<T>(int)"), shortest first; empty when `s` is none.
std::vector<std::string> signatureForms(std::string_view s)
{
    const size_t open = paramListStart(s);
    if (open == std::string_view::npos)
        return {};
    const std::string_view head = trim(s.substr(0, open));
    const std::string_view params = s.substr(open + 1, s.size() - open - 2);
    const size_t space = lastTopLevelSpace(head);
    const std::string_view returnType = space == std::string_view::npos ? std::string_view() : trim(head.substr(0, space));
    const std::string_view qualified = space == std::string_view::npos ? head : trim(head.substr(space + 1));
    const bool cxx = qualified.find("::") != std::string_view::npos || qualified.find('<') != std::string_view::npos;
    if (qualified.empty() || (!returnType.empty() && !cxx && !isKnownReturnType(returnType)) ||
        (returnType.empty() && !cxx && !looksLikeParams(params)))
        return {};
    const std::string_view last = components(qualified).back();
    const size_t lt = firstTopLevel(last, '<');
    const std::string_view base = trim(last.substr(0, lt));
    if (base.empty() || base.front() == '{')
        return {};
    std::vector<std::string> forms;
    if (lt != std::string_view::npos && isWrapper(base)) {
        // cutlass::Kernel<cutlass_80_tensorop_s1688gemm_...>: the argument names it.
        std::string_view args = last.substr(lt + 1);
        if (!args.empty() && args.back() == '>')
            args.remove_suffix(1);
        const size_t comma = firstTopLevel(args, ',');
        const std::string_view inner = bareName(args.substr(0, comma));
        if (!inner.empty())
            forms.emplace_back(inner);
    }
    forms.emplace_back(base);
    if (lt != std::string_view::npos)
        forms.emplace_back(last);
    forms.push_back(std::string(qualified) + "(" + std::string(params) + ")");
    return forms;
}

bool containsNoCase(std::string_view s, std::string_view what)
{
    return std::search(s.begin(), s.end(), what.begin(), what.end(), [](char a, char b) {
               return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
           }) != s.end();
}

void dropRepeats(std::vector<std::string>& forms)
{
    std::vector<std::string> out;
    for (std::string& f : forms)
        if (!f.empty() && (out.empty() || out.back() != f))
            out.push_back(std::move(f));
    forms = std::move(out);
}

// `s` cut after each '_', '<', ',', ' ', ':' and '(' (the separators stay with their token).
std::vector<std::string> tokens(const std::string& s)
{
    std::vector<std::string> out(1);
    for (char c : s) {
        out.back() += c;
        if (c == '_' || c == '<' || c == ',' || c == ' ' || c == ':' || c == '(')
            out.emplace_back();
    }
    if (out.back().empty())
        out.pop_back();
    return out;
}

// The first n code points of s.
std::string codePointPrefix(const std::string& s, size_t n)
{
    size_t i = 0;
    for (size_t seen = 0; i < s.size(); ++i) {
        if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80 && seen++ == n)
            break;
    }
    return s.substr(0, i);
}

// The label of form `level` at a width (form 0 by fitName's rule).
std::string formLabel(std::string_view name, const std::vector<std::string>& forms, size_t level, size_t width)
{
    if (level == 0)
        return fitName(name, width);
    return elideMiddle(forms[level], width);
}

}  // namespace

std::string memcpyKind(std::string_view name)
{
    if (!containsNoCase(name, "memcpy"))
        return {};
    static const char* const kKinds[] = {"HtoD", "DtoH", "DtoD", "HtoH", "PtoP", "HtoA", "AtoH", "AtoA", "AtoD", "DtoA"};
    for (const char* k : kKinds)
        if (name.find(k) != std::string_view::npos)
            return k;
    return {};
}

std::vector<std::string> nameForms(std::string_view name)
{
    std::vector<std::string> forms;
    const std::string_view trimmed = trim(name);
    static constexpr std::string_view kAutograd = "autograd::engine::evaluate_function: ";
    if (startsWith(trimmed, kAutograd)) {
        // Kineto's backward ops: the op's name reads first, the engine's prefix comes back
        // only where the plain op of the same name is in the view too.
        forms = nameForms(trimmed.substr(kAutograd.size()));
        forms.push_back("evaluate_function: " + forms.back());
    } else if (const std::string kind = memcpyKind(trimmed); !kind.empty()) {
        forms.push_back((trimmed.front() == 'M' ? "Memcpy " : "memcpy ") + kind);
    } else if (trimmed == "[CUDA memset]") {
        forms.emplace_back("memset");
    } else {
        const std::string full = demangled(trimmed);
        forms = signatureForms(full);
        if (full != trimmed)
            forms.push_back(full);
    }
    forms.emplace_back(name);
    dropRepeats(forms);
    if (forms.empty())   // the empty name: its one form
        forms.emplace_back();
    return forms;
}

std::string shortName(std::string_view name)
{
    return nameForms(name).front();
}

std::string fitName(std::string_view name, size_t width)
{
    std::string s = shortName(name);
    if (width == 0 || displayLength(s) <= width)
        return s;
    const std::string kind = memcpyKind(name);
    if (!kind.empty() && kind.size() <= width)
        return kind;
    return elideMiddle(s, width);
}

std::vector<std::string> distinctLabels(const std::vector<std::string>& names, size_t width)
{
    // One entry per distinct name; equal names share it.
    std::map<std::string, size_t> slot;
    std::vector<std::string> unique;
    std::vector<size_t> of(names.size());
    for (size_t i = 0; i < names.size(); ++i) {
        auto [it, added] = slot.emplace(names[i], unique.size());
        if (added)
            unique.push_back(names[i]);
        of[i] = it->second;
    }
    const size_t n = unique.size();
    std::vector<std::vector<std::string>> forms(n);
    std::vector<size_t> level(n, 0);
    std::vector<std::string> label(n);
    for (size_t u = 0; u < n; ++u) {
        forms[u] = nameForms(unique[u]);
        label[u] = formLabel(unique[u], forms[u], 0, width);
    }
    // Names whose labels collide step to longer forms until none collide or none can step.
    std::vector<bool> exhausted(n, false);
    for (bool changed = true; changed;) {
        changed = false;
        std::map<std::string, std::vector<size_t>> byLabel;
        for (size_t u = 0; u < n; ++u)
            byLabel[label[u]].push_back(u);
        for (auto& [text, group] : byLabel) {
            if (group.size() < 2)
                continue;
            // Those that can step do; only when none can do all show where they differ.
            bool stepped = false;
            for (size_t u : group)
                if (level[u] + 1 < forms[u].size()) {
                    ++level[u];
                    label[u] = formLabel(unique[u], forms[u], level[u], width);
                    stepped = changed = true;
                }
            if (stepped)
                continue;
            for (size_t u : group) {
                if (!exhausted[u]) {
                    // Every form collides. First try the tokens where this name differs from
                    // the others (of its short form when those differ, else of the full name),
                    // the shared ones between them as "…": "split…weighted…cta…".
                    bool shortDiffers = forms[u].size() > 1;
                    for (size_t v : group)
                        if (v != u && forms[v].front() == forms[u].front())
                            shortDiffers = false;
                    const std::vector<std::string> mine = tokens(shortDiffers ? forms[u].front() : unique[u]);
                    std::vector<bool> differs(mine.size(), false);
                    for (size_t v : group) {
                        if (v == u)
                            continue;
                        const std::vector<std::string> theirs = tokens(shortDiffers ? forms[v].front() : unique[v]);
                        for (size_t k = 0; k < mine.size(); ++k)
                            differs[k] = differs[k] || k >= theirs.size() || theirs[k] != mine[k];
                    }
                    // A full name's tokens follow its short form (the family), not "void ".
                    const bool withFamily = !shortDiffers && forms[u].size() > 1;
                    std::string diffLabel = withFamily ? elideMiddle(forms[u].front(), width == 0 ? 0 : width / 2) : std::string();
                    bool gap = withFamily;
                    for (size_t k = 0; k < mine.size(); ++k) {
                        if ((k == 0 && !withFamily) || differs[k]) {
                            if (gap)
                                diffLabel += "\xE2\x80\xA6";
                            diffLabel += mine[k];
                            gap = false;
                        } else {
                            gap = true;
                        }
                    }
                    if (gap)
                        diffLabel += "\xE2\x80\xA6";
                    if (!diffLabel.empty() && (width == 0 || displayLength(diffLabel) <= width) &&
                        std::count(differs.begin(), differs.end(), true) > 0) {
                        label[u] = diffLabel;
                        exhausted[u] = true;
                        changed = true;
                        continue;
                    }
                    // Else a window: where this name first differs from the others.
                    size_t common = 0;
                    for (size_t v : group) {
                        if (v == u)
                            continue;
                        const std::string& a = unique[u];
                        const std::string& b = unique[v];
                        size_t k = 0;
                        while (k < a.size() && k < b.size() && a[k] == b[k])
                            ++k;
                        common = std::max(common, k);
                    }
                    const std::string& full = unique[u];
                    // The window starts at the token holding the first difference (back to
                    // the last '<', ',', ' ', ':' or '(' within 16 characters).
                    size_t from = common;
                    for (size_t back = 0; from > 0 && back < 16; ++back) {
                        const char c = full[from - 1];
                        if (c == '<' || c == ',' || c == ' ' || c == ':' || c == '(')
                            break;
                        --from;
                    }
                    if (from > 0 && common - from >= 16)
                        from = common - std::min<size_t>(common, 4);
                    while (from > 0 && (static_cast<unsigned char>(full[from]) & 0xC0) == 0x80)
                        --from;   // not inside a UTF-8 sequence
                    // The short form names the family; the window says which one this is.
                    // (A name of one form: its own start.)
                    const std::string family =
                        forms[u].size() > 1 ? forms[u].front() : codePointPrefix(full, width == 0 ? 24 : width / 3);
                    const size_t head = width == 0 ? displayLength(family) : std::min(displayLength(family), width / 2);
                    std::string rest = full.substr(from);
                    if (from == 0 || (width > 0 && width < 8)) {
                        label[u] = elideMiddle(full, width);
                    } else {
                        std::string start = elideMiddle(family, head) + "\xE2\x80\xA6";
                        const size_t room = width == 0 ? 0 : width - displayLength(start);
                        if (room > 0 && displayLength(rest) > room)
                            rest = codePointPrefix(rest, room - 1) + "\xE2\x80\xA6";
                        label[u] = start + rest;
                    }
                    exhausted[u] = true;
                    changed = true;
                }
            }
        }
    }
    // Last resort (names that differ only where no label of this width can show): numbered.
    std::map<std::string, std::vector<size_t>> byLabel;
    for (size_t u = 0; u < n; ++u)
        byLabel[label[u]].push_back(u);
    std::set<std::string> taken;
    for (const auto& [text, group] : byLabel)
        taken.insert(text);
    for (auto& [text, group] : byLabel) {
        if (group.size() < 2)
            continue;
        for (size_t k = 1; k < group.size(); ++k) {
            for (size_t tag = k + 1;; ++tag) {
                const std::string suffix = " #" + std::to_string(tag);
                const size_t room = width == 0 ? 0 : (width > suffix.size() ? width - suffix.size() : 1);
                std::string candidate = (width == 0 ? text : elideMiddle(text, room)) + suffix;
                if (taken.insert(candidate).second) {
                    label[group[k]] = std::move(candidate);
                    break;
                }
            }
        }
    }
    std::vector<std::string> out(names.size());
    for (size_t i = 0; i < names.size(); ++i)
        out[i] = label[of[i]];
    return out;
}

}  // namespace wt
