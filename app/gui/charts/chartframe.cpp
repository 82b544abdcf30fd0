#include "chartframe.h"

#include <qcustomplot.h>

namespace wt::gui {

ChartTitles setUpChartFrame(QCustomPlot& plot, bool withSubtitle)
{
    ChartTitles t;
    plot.setAutoAddPlottableToLegend(false);
    plot.setBackground(Qt::white);
    QFont f = plot.font();
    f.setPixelSize(12);
    plot.setFont(f);
    plot.plotLayout()->insertRow(0);
    QFont tf = f;
    tf.setPixelSize(15);
    tf.setBold(true);
    t.title = new QCPTextElement(&plot, QString(), tf);
    plot.plotLayout()->addElement(0, 0, t.title);
    if (withSubtitle) {
        plot.plotLayout()->insertRow(1);
        t.subtitle = new QCPTextElement(&plot, QString(), f);
        t.subtitle->setTextColor(QColor(90, 90, 90));
        plot.plotLayout()->addElement(1, 0, t.subtitle);
        plot.plotLayout()->setRowSpacing(0);
    }
    return t;
}

}  // namespace wt::gui
