"""The report's sparklines (great-tables nanoplots) written once: what every one repeats said
once for the page, coordinates at the precision a 500-unit plot drawn 2em high can show."""

from __future__ import annotations

import re

# great-tables gives each sparkline a hatched pattern for a data area the report does not
# draw (show_data_area=False), the same inline style, and each point its stroke and fill.
_SPARKLINE = re.compile(
    r'<svg class="(?P<cls>gt-nanoplot-[0-9a-f]+)"(?P<attrs>[^>]*)>.*?</svg>', re.S
)
_STYLE = re.compile(r' style="(?P<style>[^"]*)"')
_DEFS = re.compile(r'<defs><pattern id="(?P<id>[^"]+)".*?</pattern></defs>', re.S)
_NUMBER = re.compile(r"\d+\.\d{2,}")
_POINT_ATTRS = re.compile(r'(?: (?:points|cx|cy|x|y)="[^"]*")')
# A circle's radius is its own (not inherited from a group); stroke and fill are.
_CIRCLE = re.compile(r'<circle (?P<at>cx="[^"]*" cy="[^"]*" r="[^"]*") (?P<rest>[^>]*)></circle>')
_CIRCLES = re.compile(r"(?:<circle [^>]*></circle>)+")


def _rounded(attrs: re.Match) -> str:
    """A coordinate to a tenth of the plot's 500 units (a pixel's fraction at 2em)."""
    return _NUMBER.sub(lambda n: f"{float(n.group(0)):.1f}".removesuffix(".0"), attrs.group(0))


def _grouped(run: re.Match) -> str:
    """A run of points sharing stroke and fill: those once, on a group around them."""
    circles = list(_CIRCLE.finditer(run.group(0)))
    rests = {c["rest"] for c in circles}
    if len(circles) < 2 or len(rests) != 1:
        return run.group(0)
    points = "".join(f"<circle {c['at']}/>" for c in circles)
    return f"<g {rests.pop()}>{points}</g>"


def compact_sparklines(html: str) -> str:
    """The page with each sparkline drawn as before in fewer bytes: its unused pattern gone,
    its inline style one rule of the page's, its points' shared paint on one group."""
    styles: dict[str, str] = {}

    def compact(svg: re.Match) -> str:
        text = svg.group(0)
        style = _STYLE.search(svg["attrs"])
        if style and styles.setdefault(svg["cls"], style["style"]) == style["style"]:
            text = text.replace(style.group(0), "", 1)
        text = _DEFS.sub(lambda d: "" if f"#{d['id']}" not in html else d.group(0), text)
        text = _POINT_ATTRS.sub(_rounded, text)
        text = text.replace("></polyline>", "/>")
        return _CIRCLES.sub(_grouped, text)

    html = _SPARKLINE.sub(compact, html)
    if not styles:
        return html
    rules = "".join(f"svg.{cls} {{ {style} }}\n" for cls, style in styles.items())
    return html.replace("</style></head>", f"{rules}</style></head>", 1)
