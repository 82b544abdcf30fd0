// The bars of a histogram (analysis/histogram.h: log bins, so every bin is one equal-width bar),
// painted from the bins alone: the marked bin (the selected instance's) in the accent colour
// with a triangle under it, the chosen bin (clicked: its instances marked on the timeline)
// outlined; the first bin's lower and the last bin's upper edge under the bars, the fullest
// count above them; a bin's range and count in its tooltip. A click on a bar emits
// binClicked. Knows nothing of runs.
#pragma once

#include "analysis/histogram.h"

#include <QWidget>

#include <vector>

namespace wt::gui {

class HistogramPlot : public QWidget {
    Q_OBJECT
public:
    explicit HistogramPlot(QWidget* parent = nullptr);

    void setBins(std::vector<HistogramBin> bins);
    const std::vector<HistogramBin>& bins() const { return m_bins; }
    void setMarkedBin(int bin);    // -1: none
    int markedBin() const { return m_marked; }
    void setChosenBin(int bin);    // -1: none
    int chosenBin() const { return m_chosen; }
    // The bar area of a bin (its full height, in widget coordinates); empty when out of range.
    QRect binRect(int bin) const;
    int binAt(QPoint pos) const;   // -1 outside the bars

    QSize sizeHint() const override { return {320, 130}; }
    QSize minimumSizeHint() const override { return {160, 90}; }

signals:
    void binClicked(int bin);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    bool event(QEvent* event) override;   // tooltips

private:
    QRect plotArea() const;

    std::vector<HistogramBin> m_bins;
    int m_marked = -1;
    int m_chosen = -1;
};

}  // namespace wt::gui
