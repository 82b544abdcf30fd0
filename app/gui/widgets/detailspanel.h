// Fields of the selected kernel or scope, or, for a selected time range, the time by layer
// and the top kernels inside it; for a run of several devices (the ranks of a job) a per-rank
// table: each rank's mean step time and slowest step (analysis/rankstats); per device, the time
// on the GPU (analysis/gputime: busy, idle, compute, communication and memory, overlapped and
// exposed; docs/definitions.md) as figures and a small stacked bar. Listens to the ViewState.
#pragma once

#include "app/gui/core/viewstate.h"

#include <QRgb>
#include <QWidget>

#include <cstdint>
#include <vector>

class QTableWidget;
class QTreeWidget;

namespace wt::gui {

class DetailsPanel : public QWidget {
    Q_OBJECT
public:
    explicit DetailsPanel(ViewState* state, QWidget* parent = nullptr);
    QTreeWidget* tree() const { return m_tree; }
    // Columns: device, steps, mean step, slowest step, its time, kernel time; hidden for one device.
    QTableWidget* ranksTable() const { return m_ranks; }
    enum RankColumns { RankDevice, RankSteps, RankMeanStep, RankSlowestStep, RankSlowestTime, RankKernelTime, RankColumnCount };
    // Time on the GPU per device (analysis computeDeviceTimes): the device, a stacked bar
    // (deviceBarSegments: compute, overlapped communication, exposed communication, exposed
    // memory, idle; the parts sum to the span), then span, busy, idle, compute, communication
    // with its overlapped and exposed parts, memory with its overlapped and exposed parts.
    QTableWidget* devicesTable() const { return m_devices; }
    enum DeviceColumns {
        DevName, DevBar, DevSpan, DevBusy, DevIdle, DevCompute, DevComm, DevOverlap, DevExposed,
        DevMemory, DevMemoryOverlap, DevMemoryExposed, DevColumnCount
    };

private:
    void refresh();
    void refreshRanks();
    void refreshDevices();

    ViewState* m_state;
    QTreeWidget* m_tree;
    QTableWidget* m_ranks;
    QTableWidget* m_devices;
};

// The stacked bar of one device: segments left to right, widths in proportion to their time.
class DeviceBar : public QWidget {
    Q_OBJECT
public:
    struct Segment {
        QString label;
        int64_t ns = 0;
        QRgb color = 0;
    };
    DeviceBar(std::vector<Segment> segments, QWidget* parent = nullptr);
    const std::vector<Segment>& segments() const { return m_segments; }
    QSize sizeHint() const override { return {160, 16}; }

protected:
    void paintEvent(QPaintEvent*) override;

private:
    std::vector<Segment> m_segments;
};

}  // namespace wt::gui
