#include "app/gui/widgets/viewlabels.h"

#include <QFont>
#include <QLabel>
#include <QVBoxLayout>

namespace wt::gui {

void styleViewTitle(QLabel* title)
{
    QFont f = title->font();
    f.setPointSizeF(f.pointSizeF() * 1.3);
    f.setBold(true);
    title->setFont(f);
}

void styleViewMessage(QLabel* message)
{
    message->setWordWrap(true);
    message->setStyleSheet(
        QStringLiteral("QLabel{color:#a02020;font-weight:bold;padding:8px;background:#fff0f0;border:1px solid #e0b0b0}"));
    message->hide();
}

void layOutView(QWidget* view, QLabel* title, QLabel* info, QLayout* tools, QLabel* message, QWidget* body)
{
    auto* layout = new QVBoxLayout(view);
    layout->addWidget(title);
    layout->addWidget(info);
    layout->addLayout(tools);
    layout->addWidget(message);
    layout->addWidget(body, 1);
}

}  // namespace wt::gui
