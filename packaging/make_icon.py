"""Draws packaging/burrow.png (256 px): a hill with a burrow's entrance. Run once; the PNG is kept.

Drawn with Qt so the repo needs no image tools: QT_QPA_PLATFORM=offscreen python packaging/make_icon.py
"""

import sys
from pathlib import Path

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QGuiApplication, QImage, QPainter, QPainterPath


def draw(size: int = 256) -> QImage:
    image = QImage(size, size, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.transparent)
    p = QPainter(image)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    p.setPen(Qt.PenStyle.NoPen)
    p.setBrush(QBrush(QColor("#2f6f4f")))
    p.drawRoundedRect(QRectF(8, 8, size - 16, size - 16), 40, 40)
    hill = QPainterPath(QPointF(20, 200))
    hill.cubicTo(QPointF(60, 70), QPointF(196, 70), QPointF(236, 200))
    hill.closeSubpath()
    p.setBrush(QBrush(QColor("#b5834f")))
    p.drawPath(hill)
    p.setBrush(QBrush(QColor("#2b1d10")))
    p.drawChord(QRectF(92, 128, 72, 100), 0, 180 * 16)
    p.end()
    return image


if __name__ == "__main__":
    app = QGuiApplication(sys.argv)
    out = Path(__file__).with_name("burrow.png")
    draw().save(str(out))
    print(out)
