#include "pathidentity.h"

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <sys/stat.h>
#include <unistd.h>

namespace wt {

namespace {

std::vector<std::string> components(const std::string& path)
{
    std::vector<std::string> out;
    size_t i = 0;
    while (i < path.size()) {
        size_t j = path.find('/', i);
        if (j == std::string::npos)
            j = path.size();
        if (j > i)
            out.push_back(path.substr(i, j - i));
        i = j + 1;
    }
    return out;
}

std::string join(const std::string& dir, const std::string& name)
{
    return dir == "/" ? "/" + name : dir + "/" + name;
}

std::string parentOf(const std::string& dir)
{
    size_t slash = dir.find_last_of('/');
    return slash == 0 || slash == std::string::npos ? std::string("/") : dir.substr(0, slash);
}

std::string resolve(const std::string& path, const std::string& base, int depth)
{
    std::string done = path.empty() || path[0] != '/' ? base : std::string("/");
    std::vector<std::string> parts = components(path);
    for (size_t k = 0; k < parts.size(); ++k) {
        const std::string& c = parts[k];
        if (c == ".")
            continue;
        if (c == "..") {
            done = parentOf(done);
            continue;
        }
        std::string next = join(done, c);
        struct stat st {};
        if (::lstat(next.c_str(), &st) == 0 && S_ISLNK(st.st_mode) && depth < 40) {
            std::string target(PATH_MAX, '\0');
            ssize_t n = ::readlink(next.c_str(), target.data(), target.size());
            if (n > 0) {
                target.resize(size_t(n));
                done = resolve(target, done, depth + 1);
                continue;
            }
        }
        done = next;
    }
    return done;
}

std::string currentDir()
{
    std::string cwd(PATH_MAX, '\0');
    if (!::getcwd(cwd.data(), cwd.size()))
        return "/";
    cwd.resize(cwd.find('\0'));
    return cwd;
}

}  // namespace

std::string canonicalPath(const std::string& path)
{
    // The working directory itself may be reached through links: start from its real path.
    std::string base = currentDir();
    if (char* real = ::realpath(base.c_str(), nullptr)) {
        base = real;
        std::free(real);
    }
    return resolve(path, base, 0);
}

bool sameFile(const std::string& a, const std::string& b)
{
    struct stat sa {}, sb {};
    bool hasA = ::stat(a.c_str(), &sa) == 0, hasB = ::stat(b.c_str(), &sb) == 0;
    if (hasA && hasB)
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    if (hasA != hasB)
        return false;
    return canonicalPath(a) == canonicalPath(b);
}

std::vector<std::string> occupiedFiles(const std::string& input)
{
    std::vector<std::string> out{input};
    // SQLite names the sidecars after the database's real path (symlinks resolved); a build
    // that does not resolve them uses the name as given: both count.
    std::string real = canonicalPath(input);
    for (const char* suffix : {"-wal", "-shm", "-journal"}) {
        out.push_back(real + suffix);
        if (input + suffix != out.back())
            out.push_back(input + suffix);
    }
    return out;
}

std::string Overwrite::message() const
{
    if (file == input)
        return "refusing to write " + output + ": it is the input " + input;
    return "refusing to write " + output + ": it is " + file + ", part of the input " + input;
}

Overwrite overwrittenInput(const std::vector<std::string>& outputs, const std::vector<std::string>& inputs)
{
    for (const std::string& out : outputs) {
        if (out.empty() || out == "-")
            continue;
        for (const std::string& in : inputs) {
            if (in.empty() || in == "-")
                continue;
            for (const std::string& f : occupiedFiles(in))
                if (sameFile(out, f))
                    return Overwrite{out, in, f};
        }
    }
    return {};
}

}  // namespace wt
