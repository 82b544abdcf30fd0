// The title and the error line that the analysis views (variants, scaling, roofline) put above
// their charts, styled once so the views look alike.
#pragma once

class QLabel;

namespace wt::gui {

// A view's title: the default font 1.3 times larger, bold.
void styleViewTitle(QLabel* title);
// A view's error line: wrapped, dark red on pale red, hidden until it has a message.
void styleViewMessage(QLabel* message);

}  // namespace wt::gui
