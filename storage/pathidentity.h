// Whether writing a file would overwrite one of a command's inputs. Files are compared by
// identity: device and inode where both exist (so hard links and symlinks are caught), the
// canonical path otherwise (symlinks resolved, dangling ones too), so an output that does not
// exist yet still matches an input's -wal that does not exist yet either. Qt-free: the CLI and
// the GUI both use it.
#pragma once

#include <string>
#include <vector>

namespace wt {

// Absolute path with every symlink resolved, also past the part of the path that exists
// (a dangling link is followed to where it points); `.` and `..` applied after resolving.
std::string canonicalPath(const std::string& path);

// True when both paths name the same file (see the file comment).
bool sameFile(const std::string& a, const std::string& b);

// The files an input occupies: the path itself and SQLite's -wal, -shm and -journal beside it
// (writing any of them would damage a database input), beside its real path and its name.
std::vector<std::string> occupiedFiles(const std::string& input);

struct Overwrite {
    std::string output;       // the output path that would overwrite
    std::string input;        // the input given on the command line; empty = no overwrite
    std::string file;         // the file of that input that would be hit (the input or a sidecar)
    explicit operator bool() const { return !input.empty(); }
    // One line: "refusing to write OUT: it is the input FILE" (or "... FILE-wal, part of the input FILE").
    std::string message() const;
};

// The first output that would overwrite an input or a sidecar of one; false when none.
// "-" (standard input or output) never matches.
Overwrite overwrittenInput(const std::vector<std::string>& outputs, const std::vector<std::string>& inputs);

}  // namespace wt
