#include "types.h"

namespace wt {

std::string_view toString(ActivityKind kind)
{
    switch (kind) {
    case ActivityKind::Kernel: return "kernel";
    case ActivityKind::Memcpy: return "memcpy";
    case ActivityKind::Memset: return "memset";
    }
    return "kernel";
}

std::string_view toString(TrackKind kind) { return kind == TrackKind::Memory ? "memory" : "kernel"; }

std::string_view toString(RunStatus status)
{
    switch (status) {
    case RunStatus::Writing: return "writing";
    case RunStatus::Complete: return "complete";
    case RunStatus::Interrupted: return "interrupted";
    case RunStatus::Failed: return "failed";
    case RunStatus::Incomplete: return "incomplete";
    }
    return "incomplete";
}

RunStatus runStatusFromString(std::string_view text)
{
    if (text == "writing") return RunStatus::Writing;
    if (text == "complete") return RunStatus::Complete;
    if (text == "interrupted") return RunStatus::Interrupted;
    if (text == "failed") return RunStatus::Failed;
    return RunStatus::Incomplete;
}

bool isProfilerStep(std::string_view name)
{
    constexpr std::string_view prefix = "ProfilerStep#";
    if (name.size() <= prefix.size() || name.substr(0, prefix.size()) != prefix)
        return false;
    for (char c : name.substr(prefix.size()))
        if (c < '0' || c > '9')
            return false;
    return true;
}

}  // namespace wt
