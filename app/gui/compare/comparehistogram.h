// The compare view's histogram overlay (Tracy's compare window does the same): BASE's and
// OTHER's distributions of the selected row's group on common log bins (both anchored at powers
// of ten, analysis/histogramtable.h's histogramOverlayTable), each bin's count divided by its
// run's steps so runs of different step counts compare (counts when a run has no steps). The
// runs' activities are read on a worker (an AsyncJob; histogramOfRun per run); BASE is drawn
// blue, OTHER orange, side by side per bin, with the group's n, median and p95 per run above.
#pragma once

#include "analysis/histogram.h"
#include "analysis/table.h"
#include "compareloader.h"

#include <QWidget>

#include <memory>

namespace wt::gui {

class CompareHistogram : public QWidget {
    Q_OBJECT
public:
    explicit CompareHistogram(QWidget* parent = nullptr);

    // The runs (BASE, OTHER: the first two) and the group to overlay; computed on a worker.
    void setGroup(const std::vector<CompareSelector>& runs, const HistogramGroup& group, const QString& label);
    void clear();
    // The overlay shown (histogramOverlayTable), and both sides' histograms; empty before.
    const Table& overlay() const { return m_overlay; }
    const Histogram& base() const { return m_base; }
    const Histogram& other() const { return m_other; }
    const QString& label() const { return m_label; }
    bool isComputing() const;
    void waitForOverlay();   // tests

    QSize sizeHint() const override { return {500, 170}; }

signals:
    void overlayReady();

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    AsyncJob* m_job;
    QString m_label;
    QString m_status;
    Table m_overlay;
    Histogram m_base, m_other;
};

}  // namespace wt::gui
