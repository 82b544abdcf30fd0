// The title and the error line that the analysis views (variants, scaling, roofline, job) put
// above their charts, styled once, and the column they stack them in, so the views look alike.
#pragma once

class QLabel;
class QLayout;
class QWidget;

namespace wt::gui {

// A view's title: the default font 1.3 times larger, bold.
void styleViewTitle(QLabel* title);
// A view's error line: wrapped, dark red on pale red, hidden until it has a message.
void styleViewMessage(QLabel* message);
// The view's column, top to bottom: title, info line, tool row, error line, then `body` (its
// charts over its table) taking the rest.
void layOutView(QWidget* view, QLabel* title, QLabel* info, QLayout* tools, QLabel* message, QWidget* body);

}  // namespace wt::gui
