// The frame every chart of the app shares (breakdown, compare, variants and scaling plots):
// white background, 12 px text, a bold 15 px title row and, where asked, a grey subtitle row
// below it. One place, so the views' charts look alike and their plot code is not repeated.
#pragma once

class QCustomPlot;
class QCPTextElement;

namespace wt::gui {

struct ChartTitles {
    QCPTextElement* title = nullptr;
    QCPTextElement* subtitle = nullptr;   // null without one
};

// Sets up `plot` (which owns the returned elements); the titles start empty.
ChartTitles setUpChartFrame(QCustomPlot& plot, bool withSubtitle);

}  // namespace wt::gui
