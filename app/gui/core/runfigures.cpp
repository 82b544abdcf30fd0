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
    // Launch latency over the loaded run's joins (TrackData::launch: by correlation id, as
    // computeLaunchLatency joins them from storage).
    LaunchLatencyAccumulator latency;
    bool anyCall = false;
    for (const TrackData& t : run.tracks) {
        if (t.kind != TrackKind::Kernel)
            continue;
        for (size_t i = 0; i < t.size(); ++i) {
            if (t.launch.empty() || t.launch[i] == kNone) {
                latency.addKernel(t.deviceId);
                continue;
            }
            anyCall = true;
            const auto [row, k] = run.apiCallAt(t.launch[i]);
            const ApiRowData& api = run.apiRows[row];
            latency.addLaunched(t.deviceId, t.startNs[i], int64_t(t.durationNs[i]), api.startNs[k], int64_t(api.durationNs[k]));
        }
    }
    std::vector<std::pair<int32_t, std::string>> names;
    for (const DeviceData& d : run.devices)
        names.emplace_back(d.id, d.name.toStdString());
    if (anyCall)
        f->launchLatency = latency.finish(names);
    return f;
}

}  // namespace wt::gui
