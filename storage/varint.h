// LEB128 varints and zigzag encoding for the chunk formats (activitychunk, instancechunk).
#pragma once

#include "storageerror.h"

#include <cstdint>
#include <string>

namespace wt::varint {

inline void put(std::string& out, uint64_t v)
{
    while (v >= 0x80) {
        out.push_back(char(uint8_t(v) | 0x80));
        v >>= 7;
    }
    out.push_back(char(uint8_t(v)));
}

inline uint64_t zigzag(int64_t v) { return (uint64_t(v) << 1) ^ uint64_t(v >> 63); }
inline int64_t unzigzag(uint64_t v) { return int64_t(v >> 1) ^ -int64_t(v & 1); }

struct Cursor {
    const uint8_t* p;
    const uint8_t* end;
    uint64_t next()
    {
        uint64_t v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (p == end)
                throw StorageError("corrupt chunk (truncated)");
            uint8_t b = *p++;
            v |= uint64_t(b & 0x7f) << shift;
            if (!(b & 0x80))
                return v;
        }
        throw StorageError("corrupt chunk (bad varint)");
    }
};

}  // namespace wt::varint
