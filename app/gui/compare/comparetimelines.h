// Synchronized timelines: BASE above OTHER, each a TimelineWidget over its own ViewState,
// sharing zoom and pan through one time mapping between the runs: OTHER's time = BASE's time
// + shift, where shift aligns the start of a chosen step in both (plus an offset the user
// sets), so an unchanged layer sits at the same x in both. Zooming or panning either moves the
// other (same start and ns per pixel). Selecting a scope in either, or a layer in the compare
// view, marks that layer's kernels in both. Both runs load on workers (RunLoader).
#pragma once

#include "compareloader.h"

#include "app/gui/core/runloader.h"
#include "app/gui/core/viewstate.h"

#include <QWidget>

class QDoubleSpinBox;
class QLabel;
class QSpinBox;

namespace wt::gui {

class TimelineWidget;

// The GPU start of the step-th (0-based) outermost step instance of a run; the run's first
// activity when it has no steps (or fewer).
double stepStartNs(const RunData& run, int step);
int stepCount(const RunData& run);

class CompareTimelines : public QWidget {
    Q_OBJECT
public:
    explicit CompareTimelines(QWidget* parent = nullptr);
    ~CompareTimelines() override;

    void load(const CompareSelector& base, const CompareSelector& other);
    // Both runs at once (already loaded: tests, benchmarks).
    void setRuns(std::shared_ptr<const RunData> base, std::shared_ptr<const RunData> other);
    bool isReady() const { return m_base->run() && m_other->run(); }

    ViewState* baseState() const { return m_base; }
    ViewState* otherState() const { return m_other; }
    TimelineWidget* baseTimeline() const { return m_baseTimeline; }
    TimelineWidget* otherTimeline() const { return m_otherTimeline; }

    // Aligns the starts of this step (0-based) in both runs; offsetNs moves OTHER against BASE.
    void setAlignment(int step, double offsetNs);
    int alignStep() const { return m_step; }
    double offsetNs() const { return m_offsetNs; }
    // OTHER's time = BASE's time + shiftNs().
    double shiftNs() const { return m_shiftNs; }
    // Shows this step of BASE (and the same window of OTHER).
    void showStep(int step);
    QString highlightedLayer() const { return m_layer; }
    // Both timelines as one picture (BASE above OTHER, each at its visible range) through the
    // export dialog; returns the written path, empty when cancelled.
    QString exportInteractive();

public slots:
    // Marks every kernel of the layer in both timelines (empty: clears).
    void highlightLayer(const QString& layer);

signals:
    void ready();
    void failed(const QString& message);

private:
    void onLoaded();
    void sync(TimelineWidget* from, TimelineWidget* to, double shift);
    void updateLimits();

    ViewState* m_base;
    ViewState* m_other;
    RunLoader* m_baseLoader;
    RunLoader* m_otherLoader;
    std::shared_ptr<const RunData> m_baseRun, m_otherRun;
    TimelineWidget* m_baseTimeline;
    TimelineWidget* m_otherTimeline;
    QLabel* m_baseLabel;
    QLabel* m_otherLabel;
    QSpinBox* m_stepBox;
    QDoubleSpinBox* m_offsetBox;
    int m_step = 0;
    double m_offsetNs = 0;
    double m_shiftNs = 0;
    bool m_syncing = false;
    QString m_layer;
};

}  // namespace wt::gui
