// Who holds a lock on a wheretime file: when a write waits out its busy timeout, the user is
// told whether a reader or a writer holds the file, and which process, instead of a bare
// "locked". Reads SQLite's POSIX advisory locks on the file (and its -shm in WAL mode) with
// F_GETLK, which sees the locks of other processes only.
#pragma once

#include <string>

namespace wt {

struct LockHolder {
    enum Kind { None, Reader, Writer } kind = None;
    long pid = 0;              // 0: unknown (another PID namespace, or a lock over NFS)
    std::string command;       // the holder's command line, shortened; empty when unknown
};

LockHolder lockHolder(const std::string& path);

// One phrase for the user: "the file is being read by process 1234 (wheretime sql runs.wt ...)"
// or "... written by ...", or "the file is locked by another process" when no holder is seen.
std::string describeLockHolder(const std::string& path);

}  // namespace wt
