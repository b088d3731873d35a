"""The trend over a results file's campaigns as an inline SVG chart.

Two series over the campaigns, oldest first: violated verdicts (left axis,
red) and generator coverage, the share of known features the campaign's
programs reached (right axis, 0-100 %, blue).  Each point links to its
campaign's page and carries a tooltip with the numbers.  No script, no
external file: the report stays one self-contained page.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape

WIDTH, HEIGHT = 900, 260
LEFT, RIGHT, TOP, BOTTOM = 56, 60, 20, 56


@dataclass
class Point:
    campaign: str
    label: str  # short x-axis label (date, or index)
    violations: int
    coverage: float | None  # 0..100, None when unknown
    href: str = ""


def _nice_max(n: int) -> int:
    if n <= 5:
        return 5
    step = 10 ** (len(str(n)) - 1)
    return ((n + step - 1) // step) * step


def trend_svg(points: list[Point]) -> str:
    """The chart as an `<svg>` element (empty string for no campaign)."""
    if not points:
        return ""
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    top_v = _nice_max(max(p.violations for p in points))
    n = len(points)

    def x(i: int) -> float:
        return LEFT + (plot_w / 2 if n == 1 else plot_w * i / (n - 1))

    def y_v(v: float) -> float:
        return TOP + plot_h * (1 - v / top_v)

    def y_c(c: float) -> float:
        return TOP + plot_h * (1 - c / 100)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" id="trend-chart" role="img" '
           f'viewBox="0 0 {WIDTH} {HEIGHT}" width="100%" style="max-width:{WIDTH}px" '
           f'aria-label="violated verdicts and coverage over {n} campaign(s)">',
           '<title>Violated verdicts (red, left axis) and generator coverage '
           '(blue, right axis) per campaign</title>']
    for k in range(5):  # grid and axis labels
        frac = k / 4
        yy = TOP + plot_h * (1 - frac)
        out.append(f'<line x1="{LEFT}" y1="{yy:.1f}" x2="{WIDTH - RIGHT}" y2="{yy:.1f}" '
                   'stroke="#d8dee4" stroke-width="1"/>')
        out.append(f'<text x="{LEFT - 6}" y="{yy + 4:.1f}" text-anchor="end" font-size="11" '
                   f'fill="#b42318">{round(top_v * frac)}</text>')
        out.append(f'<text x="{WIDTH - RIGHT + 6}" y="{yy + 4:.1f}" font-size="11" '
                   f'fill="#0b5cad">{round(100 * frac)}%</text>')
    out.append(f'<text x="14" y="{TOP + plot_h / 2:.1f}" font-size="11" fill="#b42318" '
               f'transform="rotate(-90 14 {TOP + plot_h / 2:.1f})" text-anchor="middle">'
               'violated verdicts</text>')
    out.append(f'<text x="{WIDTH - 10}" y="{TOP + plot_h / 2:.1f}" font-size="11" '
               f'fill="#0b5cad" transform="rotate(90 {WIDTH - 10} {TOP + plot_h / 2:.1f})" '
               'text-anchor="middle">coverage (features reached)</text>')
    viol = " ".join(f"{x(i):.1f},{y_v(p.violations):.1f}" for i, p in enumerate(points))
    out.append(f'<polyline class="series-violations" points="{viol}" fill="none" '
               'stroke="#b42318" stroke-width="2"/>')
    cov = [(i, p) for i, p in enumerate(points) if p.coverage is not None]
    if cov:
        line = " ".join(f"{x(i):.1f},{y_c(p.coverage or 0):.1f}" for i, p in cov)
        out.append(f'<polyline class="series-coverage" points="{line}" fill="none" '
                   'stroke="#0b5cad" stroke-width="2" stroke-dasharray="5 3"/>')
    every = max(1, n // 12)  # at most about 12 x labels
    for i, p in enumerate(points):
        tip = escape(f"{p.campaign}: {p.violations} violated verdict(s)"
                     + (f", coverage {p.coverage:.0f}%" if p.coverage is not None else ""))
        dots = [f'<circle cx="{x(i):.1f}" cy="{y_v(p.violations):.1f}" r="4" '
                f'fill="#b42318"><title>{tip}</title></circle>']
        if p.coverage is not None:
            dots.append(f'<rect x="{x(i) - 3.5:.1f}" y="{y_c(p.coverage) - 3.5:.1f}" '
                        f'width="7" height="7" fill="#0b5cad"><title>{tip}</title></rect>')
        group = "".join(dots)
        if p.href:
            group = f'<a href="{escape(p.href)}" data-campaign="{escape(p.campaign)}">{group}</a>'
        out.append(group)
        if i % every == 0 or i == n - 1:
            out.append(f'<text x="{x(i):.1f}" y="{HEIGHT - BOTTOM + 16}" font-size="10.5" '
                       f'text-anchor="middle" fill="#5f6b76">{escape(p.label)}</text>')
    out.append("</svg>")
    return "\n".join(out)
