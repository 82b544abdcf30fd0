// The made-up CPU device of the predictor tests: round rates, so expected times can be worked
// out by hand (100 GFLOP/s, 20 GB/s, 100 ns a launch).
#pragma once

#include "analysis/costmodel.h"

namespace wt::test {

inline DeviceSpec roundCpu()
{
    DeviceSpec d;
    d.name = "cpu";
    d.kind = "cpu";
    d.fp32Flops = 100e9;
    d.memoryBytesPerS = 20e9;
    d.hostLinkBytesPerS = 20e9;
    d.launchOverheadNs = 100;
    return d;
}

}  // namespace wt::test
