"""Draw the web app's icons: a white spade on the table's felt green.

Writes ``icon-192.png``, ``icon-512.png``, ``icon-maskable-512.png`` (the spade inside the
central 80 % "safe zone" that a launcher's mask keeps), ``apple-touch-icon.png`` (180 px, square
corners) and ``icon.svg`` into
``src/callbreak/server/static/icons``.  Standard library only (zlib, struct)::

    python3 tools/make_icons.py

The PNGs are committed; run this again only to change the drawing.
"""

from __future__ import annotations

import math
import struct
import sys
import zlib
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "src" / "callbreak" / "server" / "static" / "icons"
FELT = (0x0B, 0x3D, 0x26)  # --felt-2 in style.css: the top bar and the table's background
INK = (0xFF, 0xFD, 0xF8)  # --card
SAMPLES = 4  # supersampling per axis, for smooth edges

# The spade in a unit box (x right, y down), centred on (0.5, 0.5):
# two lobes, the point above them, and a flared stem below.
LOBE_R = 0.205
LOBES = ((0.31, 0.60), (0.69, 0.60))
TIP = (0.5, 0.06)
STEM = ((0.5, 0.58), (0.34, 0.94), (0.66, 0.94))


def _tri(
    p: tuple[float, float], a: tuple[float, float], b: tuple[float, float], c: tuple[float, float]
) -> bool:
    def side(u: tuple[float, float], v: tuple[float, float]) -> float:
        return (p[0] - v[0]) * (u[1] - v[1]) - (u[0] - v[0]) * (p[1] - v[1])

    d1, d2, d3 = side(a, b), side(b, c), side(c, a)
    return not ((d1 < 0 or d2 < 0 or d3 < 0) and (d1 > 0 or d2 > 0 or d3 > 0))


def _tangent(
    centre: tuple[float, float], r: float, point: tuple[float, float], outer: float
) -> tuple[float, float]:
    """The point where a line from ``point`` touches the circle, on the side ``outer`` (-1 left, +1 right)."""
    dx, dy = centre[0] - point[0], centre[1] - point[1]
    d = math.hypot(dx, dy)
    base = math.atan2(dy, dx)
    off = math.asin(r / d)
    for ang in (base + off, base - off):
        length = math.sqrt(d * d - r * r)
        q = (point[0] + length * math.cos(ang), point[1] + length * math.sin(ang))
        if (q[0] - centre[0]) * outer > 0:
            return q
    raise ValueError("no tangent on that side")


LEFT_T = _tangent(LOBES[0], LOBE_R, TIP, -1)
RIGHT_T = _tangent(LOBES[1], LOBE_R, TIP, +1)
BODY = (
    TIP,
    LEFT_T,
    (LOBES[0][0], LOBES[0][1] + LOBE_R * 0.2),
    (LOBES[1][0], LOBES[1][1] + LOBE_R * 0.2),
    RIGHT_T,
)


def inside(x: float, y: float) -> bool:
    """Whether the unit-box point (x, y) is on the spade."""
    for cx, cy in LOBES:
        if (x - cx) ** 2 + (y - cy) ** 2 <= LOBE_R**2:
            return True
    # The body: the polygon from the tip down the two tangent lines, as a fan of triangles.
    for i in range(1, len(BODY) - 1):
        if _tri((x, y), BODY[0], BODY[i], BODY[i + 1]):
            return True
    return _tri((x, y), *STEM)


def render(size: int, scale: float, radius: float) -> bytes:
    """RGBA rows of a ``size`` square: felt background with corners rounded by ``radius`` (a fraction)
    and the spade filling ``scale`` of the side."""
    rows = []
    off = (1 - scale) / 2
    rad = radius * size
    for py in range(size):
        row = bytearray([0])  # PNG filter: none
        for px in range(size):
            ink = bg = 0
            for sy in range(SAMPLES):
                for sx in range(SAMPLES):
                    x = px + (sx + 0.5) / SAMPLES
                    y = py + (sy + 0.5) / SAMPLES
                    if rad:
                        cx = min(max(x, rad), size - rad)
                        cy = min(max(y, rad), size - rad)
                        if (x - cx) ** 2 + (y - cy) ** 2 > rad * rad:
                            continue
                    bg += 1
                    if inside((x / size - off) / scale, (y / size - off) / scale):
                        ink += 1
            n = SAMPLES * SAMPLES
            if bg == 0:
                row += bytes(4)
                continue
            t = ink / bg
            rgb = [round(f + (i - f) * t) for f, i in zip(FELT, INK, strict=True)]
            row += bytes([*rgb, round(255 * bg / n)])
        rows.append(bytes(row))
    return b"".join(rows)


def png(size: int, rgba_rows: bytes) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data))
            + kind
            + data
            + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
        )

    header = struct.pack(">IIBBBBB", size, size, 8, 6, 0, 0, 0)  # 8-bit RGBA
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rgba_rows, 9))
        + chunk(b"IEND", b"")
    )


def svg() -> str:
    def pt(p: tuple[float, float]) -> str:
        return f"{p[0] * 512:.1f} {p[1] * 512:.1f}"

    r = LOBE_R * 512
    lobes = "".join(f'<circle cx="{cx * 512:.1f}" cy="{cy * 512:.1f}" r="{r:.1f}"/>' for cx, cy in LOBES)
    body = "M" + " L".join(pt(p) for p in BODY) + "Z"
    stem = "M" + " L".join(pt(p) for p in STEM) + "Z"
    # The same drawing as the PNGs, scaled like icon-512.png (spade at 70 % of the side).
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 512 512">'
        '<rect width="512" height="512" rx="92" fill="#0b3d26"/>'
        f'<g fill="#fffdf8" transform="translate(76.8 76.8) scale(.7)">{lobes}<path d="{body} {stem}"/></g>'
        "</svg>\n"
    )


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    for name, size, scale, radius in (
        ("icon-192.png", 192, 0.7, 0.18),
        ("icon-512.png", 512, 0.7, 0.18),
        # A maskable icon fills the square; the launcher cuts its own shape, keeping a circle of 80 %.
        ("icon-maskable-512.png", 512, 0.52, 0.0),
        # iOS rounds the corners itself and shows transparency as black: a full square.
        ("apple-touch-icon.png", 180, 0.7, 0.0),
    ):
        (OUT / name).write_bytes(png(size, render(size, scale, radius)))
        print(f"wrote {OUT / name}")
    (OUT / "icon.svg").write_text(svg())
    print(f"wrote {OUT / 'icon.svg'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
