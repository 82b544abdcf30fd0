#include "lockholder.h"

#include <fcntl.h>
#include <unistd.h>

#include <fstream>
#include <iterator>

namespace wt {

namespace {

// SQLite's lock bytes (os_unix.c): in the database file, PENDING at 1 GiB, RESERVED after it,
// then the 510-byte SHARED range; in WAL mode, the -shm's write lock at byte 120 and the read
// marks at 123..127.
constexpr off_t kPendingByte = 0x40000000;
constexpr off_t kReservedByte = kPendingByte + 1;
constexpr off_t kSharedFirst = kPendingByte + 2;
constexpr off_t kSharedSize = 510;
constexpr off_t kShmWriteLock = 120;
constexpr off_t kShmReadFirst = 123;
constexpr off_t kShmReadCount = 5;

// The first lock of another process that a write lock on [start, start + len) would meet.
bool conflicting(int fd, off_t start, off_t len, struct flock& out)
{
    out = {};
    out.l_type = F_WRLCK;
    out.l_whence = SEEK_SET;
    out.l_start = start;
    out.l_len = len;
    return ::fcntl(fd, F_GETLK, &out) == 0 && out.l_type != F_UNLCK;
}

std::string commandOf(long pid)
{
    if (pid <= 0)
        return {};
    std::ifstream in("/proc/" + std::to_string(pid) + "/cmdline", std::ios::binary);
    std::string raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::string text;
    bool first = true;
    for (size_t at = 0; at < raw.size();) {
        size_t end = raw.find('\0', at);
        if (end == std::string::npos)
            end = raw.size();
        std::string arg = raw.substr(at, end - at);
        if (first && arg.rfind('/') != std::string::npos)
            arg = arg.substr(arg.rfind('/') + 1);   // the program's name, not its path
        if (!text.empty())
            text += ' ';
        text += arg;
        first = false;
        at = end + 1;
    }
    for (char& c : text)
        if (static_cast<unsigned char>(c) < ' ')
            c = ' ';   // one line
    if (text.size() > 60) {
        size_t cut = 57;
        while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xc0) == 0x80)
            --cut;
        text = text.substr(0, cut) + "...";
    }
    return text;
}

LockHolder holder(LockHolder::Kind kind, const struct flock& lock)
{
    LockHolder h;
    h.kind = kind;
    h.pid = lock.l_pid > 0 ? long(lock.l_pid) : 0;
    h.command = commandOf(h.pid);
    return h;
}

}  // namespace

LockHolder lockHolder(const std::string& path)
{
    int db = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    int shm = ::open((path + "-shm").c_str(), O_RDONLY | O_CLOEXEC);
    struct flock lock {};
    LockHolder found;
    // A writer first: it holds RESERVED (or PENDING/EXCLUSIVE) in the file, or the -shm's write lock.
    if (db >= 0 && (conflicting(db, kReservedByte, 1, lock) || conflicting(db, kPendingByte, 1, lock)))
        found = holder(LockHolder::Writer, lock);
    else if (shm >= 0 && conflicting(shm, kShmWriteLock, 1, lock))
        found = holder(LockHolder::Writer, lock);
    else if (db >= 0 && conflicting(db, kSharedFirst, kSharedSize, lock))
        found = holder(lock.l_type == F_WRLCK ? LockHolder::Writer : LockHolder::Reader, lock);
    else if (shm >= 0 && conflicting(shm, kShmReadFirst, kShmReadCount, lock))
        found = holder(LockHolder::Reader, lock);
    if (db >= 0)
        ::close(db);
    if (shm >= 0)
        ::close(shm);
    return found;
}

std::string describeLockHolder(const std::string& path)
{
    const LockHolder h = lockHolder(path);
    if (h.kind == LockHolder::None)
        return "the file is locked by another process";
    std::string text = h.kind == LockHolder::Reader ? "the file is being read by " : "the file is being written by ";
    if (h.pid == 0)
        return text + "another process";
    text += "process " + std::to_string(h.pid);
    if (!h.command.empty())
        text += " (" + h.command + ")";
    return text;
}

}  // namespace wt
