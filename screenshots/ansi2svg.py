#!/usr/bin/env python3
"""Turn a tmux `capture-pane -e -p` dump (text with SGR colour codes) into an SVG image.

Usage: ansi2svg.py IN.ans OUT.svg [TITLE]
Only what tmux emits is handled: 16/256/true colour, bold, dim, reverse and resets.
"""
import html
import re
import sys

BASE = ["#1e1e1e", "#e06c75", "#98c379", "#e5c07b", "#61afef", "#c678dd", "#56b6c2", "#d0d0d0",
        "#5c6370", "#ff7b86", "#b5e890", "#ffd68a", "#82c4ff", "#e19cff", "#7fd6e0", "#ffffff"]
FG, BG = "#d0d0d0", "#1e1e1e"
CELL_W, CELL_H = 8.4, 17


def color256(n):
    if n < 16:
        return BASE[n]
    if n < 232:
        n -= 16
        steps = [0, 95, 135, 175, 215, 255]
        return "#%02x%02x%02x" % (steps[n // 36], steps[n // 6 % 6], steps[n % 6])
    v = 8 + (n - 232) * 10
    return "#%02x%02x%02x" % (v, v, v)


def apply(style, params):
    i = 0
    params = params or [0]
    while i < len(params):
        p = params[i]
        if p == 0:
            style.update(fg=None, bg=None, bold=False, dim=False, rev=False)
        elif p == 1:
            style["bold"] = True
        elif p == 2:
            style["dim"] = True
        elif p == 22:
            style.update(bold=False, dim=False)
        elif p == 7:
            style["rev"] = True
        elif p == 27:
            style["rev"] = False
        elif 30 <= p <= 37 or 90 <= p <= 97:
            style["fg"] = BASE[p - 30 if p < 90 else p - 82]
        elif 40 <= p <= 47 or 100 <= p <= 107:
            style["bg"] = BASE[p - 40 if p < 100 else p - 92]
        elif p == 39:
            style["fg"] = None
        elif p == 49:
            style["bg"] = None
        elif p in (38, 48) and i + 1 < len(params):
            key = "fg" if p == 38 else "bg"
            if params[i + 1] == 5 and i + 2 < len(params):
                style[key] = color256(params[i + 2])
                i += 2
            elif params[i + 1] == 2 and i + 4 < len(params):
                style[key] = "#%02x%02x%02x" % tuple(params[i + 2:i + 5])
                i += 4
        i += 1


def main():
    src, out = sys.argv[1], sys.argv[2]
    title = sys.argv[3] if len(sys.argv) > 3 else "rtenx"
    lines = open(src, encoding="utf-8", errors="replace").read().rstrip("\n").split("\n")
    rows = []
    style = dict(fg=None, bg=None, bold=False, dim=False, rev=False)
    for line in lines:
        cells = []
        for part in re.split(r"(\x1b\[[0-9;:]*m)", line):
            m = re.fullmatch(r"\x1b\[([0-9;:]*)m", part)
            if m:
                apply(style, [int(x) for x in re.split("[;:]", m.group(1)) if x != ""])
                continue
            for ch in part:
                cells.append((ch, dict(style)))
        rows.append(cells)
    width = max(len(r) for r in rows)
    w, h = int(width * CELL_W) + 20, int(len(rows) * CELL_H) + 44
    out_lines = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}">',
                 f'<rect width="100%" height="100%" rx="8" fill="{BG}"/>',
                 f'<text x="{w / 2}" y="20" fill="#888" font-family="sans-serif" font-size="12" text-anchor="middle">{html.escape(title)}</text>',
                 '<g font-family="DejaVu Sans Mono, Menlo, Consolas, monospace" font-size="14" xml:space="preserve">']
    for y, cells in enumerate(rows):
        ty = 36 + y * CELL_H
        x = 0
        while x < len(cells):
            ch, st = cells[x]
            run = [ch]
            while x + len(run) < len(cells) and cells[x + len(run)][1] == st:
                run.append(cells[x + len(run)][0])
            fg, bg = st["fg"] or FG, st["bg"]
            if st["rev"]:
                fg, bg = (bg or BG), (st["fg"] or FG)
            px = 10 + x * CELL_W
            if bg:
                out_lines.append(f'<rect x="{px:.1f}" y="{ty:.1f}" width="{len(run) * CELL_W:.1f}" height="{CELL_H}" fill="{bg}"/>')
            text = "".join(run)
            if text.strip():
                attrs = ' font-weight="bold"' if st["bold"] else ""
                attrs += ' opacity="0.6"' if st["dim"] else ""
                out_lines.append(f'<text x="{px:.1f}" y="{ty + 13:.1f}" fill="{fg}"{attrs} textLength="{len(run) * CELL_W:.1f}" lengthAdjust="spacingAndGlyphs">{html.escape(text)}</text>')
            x += len(run)
    out_lines += ["</g>", "</svg>"]
    open(out, "w", encoding="utf-8").write("\n".join(out_lines) + "\n")


if __name__ == "__main__":
    main()
