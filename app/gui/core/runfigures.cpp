#include "runfigures.h"

namespace wt::gui {

std::shared_ptr<const RunFigures> computeRunFigures(const RunData& run)
{
    auto f = std::make_shared<RunFigures>();
    const ActivityView view = run.activities();
    f->devices = computeDeviceTimes(*run.profile, view);
    f->steps = computeStepTimes(*run.profile, view);
    std::vector<int32_t> trackDevice;
    for (const TrackData& t : run.tracks)
        trackDevice.push_back(t.deviceId);
    std::vector<DeviceInfo> devices;
    for (const DeviceData& d : run.devices)
        devices.push_back(DeviceInfo{d.id, d.name.toStdString(), "{}"});
    f->ranks = computeRankStats(view, trackDevice, run.instances.parent, run.profile->tree, devices);
    return f;
}

}  // namespace wt::gui
