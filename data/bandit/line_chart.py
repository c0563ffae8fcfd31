"""A small SVG line chart (no plotting library): the in-context figures of docs/configs.md."""


def svg(title, labels, curves, colours, x_title, width=600, height=320):
    """labels: the x positions' names; curves: (name, values in [0, 1]) drawn in colours, with a legend. The first
    curve is drawn wide and pale under the others, so that another curve on top of it still shows it."""
    left, bottom, top, right = 60, 50, 30, 170
    x = lambda i: left + (i + 0.5) * (width - left - right) / len(labels)  # noqa: E731
    y = lambda v: top + (1 - v) * (height - top - bottom)  # noqa: E731
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="12">',
             '<rect width="100%" height="100%" fill="white"/>',
             f'<text x="{left}" y="18" font-size="13">{title}</text>']
    for v in (0, 0.25, 0.5, 0.75, 1.0):
        parts.append(f'<line x1="{left}" x2="{width - right}" y1="{y(v)}" y2="{y(v)}" stroke="#ddd"/>')
        parts.append(f'<text x="{left - 8}" y="{y(v) + 4}" text-anchor="end">{v:.2f}</text>')
    for i, label in enumerate(labels):
        parts.append(f'<text x="{x(i)}" y="{height - bottom + 18}" text-anchor="middle">{label}</text>')
    parts.append(f'<text x="{(left + width - right) / 2}" y="{height - 12}" text-anchor="middle">{x_title}</text>')
    for n, ((name, values), colour) in enumerate(zip(curves, colours)):
        points = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate(values))
        stroke = 'stroke-width="7" stroke-opacity="0.45"' if n == 0 else 'stroke-width="2"'
        parts.append(f'<polyline points="{points}" fill="none" stroke="{colour}" {stroke}/>')
        for i, v in enumerate(values):
            parts.append(f'<circle cx="{x(i):.1f}" cy="{y(v):.1f}" r="3" fill="{colour}"/>')
        ly = top + 20 + 22 * n
        parts.append(f'<line x1="{width - right + 12}" x2="{width - right + 32}" y1="{ly}" y2="{ly}" stroke="{colour}" {stroke}/>')
        parts.append(f'<text x="{width - right + 38}" y="{ly + 4}">{name}</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"
