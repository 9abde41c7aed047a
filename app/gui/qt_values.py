"""Qt enum values as plain ints, for the views built before the window's first paint with its
contents.

PySide6 creates the Python enums of a Qt class the first time the class is touched; the `Qt`
namespace holds ~100 of them (~35 ms on the bench machine, a fifth of what building the views
cost), and nothing that paint needs requires it. Qt takes these ints where it declares an `int`
(item data roles) and through its property system (`setProperty("orientation", VERTICAL)`);
tests/gui/test_gui_layout.py checks each against PySide6's own enum.
"""

VERTICAL = 0x2  # Qt.Orientation.Vertical
ALIGN_CENTER = 0x84  # Qt.AlignmentFlag.AlignCenter
DOWN_ARROW = 2  # Qt.ArrowType.DownArrow
RIGHT_ARROW = 4  # Qt.ArrowType.RightArrow
TEXT_BESIDE_ICON = 2  # Qt.ToolButtonStyle.ToolButtonTextBesideIcon
TOOLTIP_ROLE = 3  # Qt.ItemDataRole.ToolTipRole
USER_ROLE = 0x100  # Qt.ItemDataRole.UserRole
