"""The keys as data, drawn: the script's source with the calling line lit, and the queue's keys.

The lesson model (`emqsim.lessons.script_steps`) hands over one recorded `redis.call`: the
script's numbered source, its line, the command and reply, and every key after it with what
changed. This view lays them out as text: on the left (on a phone, on top) a window of the
source around the lit line, marked by a band and an arrow; under it the call and its reply;
on the right (below) each key, the ones the step touched opened up, a changed entry marked
by a dot as well as by colour. A long line wraps inside its column, in both layouts: what a
call sends or a key holds is never cut (issue 30).
"""

from __future__ import annotations

import re

from matplotlib.lines import Line2D
from matplotlib.patches import Rectangle

from . import glyphs
from .style import GREY, READ_PX, ROLE, floor_of, ink, narrow, scale
from .view import View

#: width of a monospace character, as a share of the font size (DejaVu Sans Mono: 0.602)
CHAR = 0.66
#: the band behind the lit line
BAND = "#F2E2A0"
CHANGED = ink(ROLE["release"])
NEW = ink(ROLE["marker"])
PLAIN = "#222222"
#: the unlit source lines and notes: the figure's reading matter in small monospace, so at WCAG's
#: enhanced contrast (7:1, 1.4.6) on both backgrounds, not at ink()'s 4.5:1 floor, where the
#: desktop's code read pale (issue 30); still lighter than PLAIN, which the lit line keeps
SOFT = "#595959"
#: lines of source around the lit one
AROUND = {"normal": 5, "narrow": 3}
#: lines each side at most on a phone when the keys leave room (`ScriptStepsView._narrow_source`)
MORE_AROUND = 30


def _wrap(text: str, n: int, indent: int = 0) -> list[str]:
    """`text` as lines of at most `n` characters, broken at spaces, each line after the first
    indented `indent` + 2 characters: a line is wrapped, not cut (issue 30), so whatever it says
    is all there. A word is broken only where it is longer than a whole continuation line: a
    reader read `eventSt` / `reamKey` on 03, where a word longer than what was left of the first
    line was broken to fill it. A continuation lined up under its call's "(" (44 spaces in
    BullMQ's moveToActive-11.lua) keeps at most a third of the row as its indentation."""
    if len(text) <= n:
        return [text]
    head = min(len(text) - len(text.lstrip(" ")), n // 3)
    lead = " " * min(indent + 2, n // 2)
    lines, line = [], " " * head
    for token in re.findall(r"\S+|\s+", text.lstrip(" ")):
        if token.isspace():
            if line.strip() and len(line) + len(token) < n:
                line += token
            continue
        if len(line) + len(token) > n and line.strip():
            lines.append(line.rstrip())
            line = lead
        while len(line) + len(token) > n:
            room = n - len(line)
            lines.append(line + token[:room])
            token, line = token[room:], lead
        line += token
    if line.strip():
        lines.append(line.rstrip())
    return lines


def _short(key: str, prefix: str) -> str:
    return key[len(prefix):] if prefix and key.startswith(prefix) else key


def _prefix(keys) -> str:
    names = [k.key for k in keys]
    if not names:
        return ""
    head = names[0].rsplit(":", 1)[0] + ":"
    while head and not all(n.startswith(head) for n in names):
        head = head[:-1].rsplit(":", 1)[0] + ":" if ":" in head[:-1] else ""
    return head


class ScriptStepsView(View):
    """Source and keys side by side (stacked on a phone), each a column of text lines."""

    width, height = 9.0, 4.8
    narrow_height = 6.4

    def __init__(self, ax=None):
        super().__init__(ax)
        ax, s = self.ax, scale()
        fig = ax.figure
        ax.set_axis_off()
        ax.xaxis.set_visible(False)
        ax.yaxis.set_visible(False)
        self.font = s["font"]
        # on a phone at the legible floor (10 CSS px): more of each line fits, and the frames stay
        # within the site's byte budget now that wrapped lines show what cut ones left out
        self.small = self.font * (0.76 if narrow() else 0.78)
        if not narrow():   # the code and the keys at `READ_PX` on the desktop (a phone keeps the floor)
            self.small = max(self.small, floor_of(fig, READ_PX))
        w, h = fig.get_size_inches()
        self.line = self.small * 1.5 / 72 / h          # one line's height, in figure fractions
        if narrow():
            self.src_box = (0.03, 0.97, 0.94, 0.44)      # x, top, width, height (figure fractions)
            self.keys_box = (0.03, 0.50, 0.94, 0.49)
        else:
            self.src_box = (0.01, 0.97, 0.47, 0.94)
            self.keys_box = (0.51, 0.97, 0.48, 0.94)
        self.src_chars = int(self.src_box[2] * w * 72 / (CHAR * self.small)) - 1
        self.key_chars = int(self.keys_box[2] * w * 72 / (CHAR * self.small)) - 1
        self.src_rows = int(self.src_box[3] / self.line)
        self.key_rows = int(self.keys_box[3] / self.line)
        mono = dict(family="monospace", fontsize=self.small, va="top", ha="left", transform=fig.transFigure)
        x, top = self.src_box[0], self.src_box[1]
        if narrow():
            # one column down the phone: the source's rows, a rule, then the keys, which take every
            # row the source leaves (wrapped lines need more rows than cut ones did)
            rows = int((top - 0.01) / self.line)
            self.src_lines = [glyphs.text(ax, x, top - i * self.line, "", color=PLAIN, **mono) for i in range(rows)]
            self.key_lines = []
        else:
            self.src_lines = [glyphs.text(ax, x, top - i * self.line, "", color=PLAIN, **mono)
                              for i in range(self.src_rows)]
            x, top = self.keys_box[0], self.keys_box[1]
            self.key_lines = [glyphs.text(ax, x, top - i * self.line, "", color=PLAIN, **mono)
                              for i in range(self.key_rows)]
        self.band = Rectangle((self.src_box[0] - 0.005, 0), self.src_box[2], self.line, transform=fig.transFigure,
                              facecolor=BAND, edgecolor="none", zorder=0, visible=False, clip_on=False)
        ax.add_artist(self.band)
        # the text lines (~25, redrawn on every move) from cached glyphs: the same pixels, ~5x faster
        # (glyphs.py)
        # a rule between the two columns (across, on a phone), as thick as the course's lines
        if narrow():
            xs, ys = [0.03, 0.97], [self.keys_box[1] + 0.02] * 2
        else:
            xs, ys = [0.495] * 2, [0.03, 0.97]
        self.rule = ax.add_line(Line2D(xs, ys, transform=fig.transFigure, color=GREY, lw=s["line"] * 0.5,
                                       clip_on=False))
        self.track(self.band, *self.src_lines, *self.key_lines, *([self.rule] if narrow() else []))

    # -- the two columns ----------------------------------------------------------------------

    def _fit(self, text: str, n: int, indent: int = 0) -> list[str]:
        """A row's text as the layout shows it: wrapped, never cut, in both layouts."""
        return _wrap(text, n, indent)

    def _source_rows(self, frame, around: int | None = None, limit: int | None = None,
                     extra: int = 0) -> list[tuple[str, str, bool]]:
        """(text, colour, lit) for each row of the source column: the lit line, `around` lines
        each side (the layout's `AROUND` by default) and `extra` more after, in at most `limit`
        rows."""
        n = self.src_chars
        limit = self.src_rows if limit is None else limit
        head = [(t, PLAIN, False) for t in self._fit(f"{frame.script}: {frame.role}", n)]
        if frame.step:
            tail = [(t, PLAIN, False) for t in self._fit(f"call  {frame.command}", n, 4)]
            tail += [(t, PLAIN, False) for t in self._fit(f"reply {frame.reply}", n, 4)]
        else:
            tail = [(t, PLAIN, False) for t in self._fit("no call yet: step forward", n)]
        if around is None:
            around = AROUND["narrow" if self.narrow_layout else "normal"]
        # the lit line and `around` lines each side, fewer if wrapped lines leave no room
        for around in range(around, -1, -1):
            body = self._source_window(frame, around, n, limit, extra)
            if len(head) + len(body) + 1 + len(tail) <= limit:
                break
        return head + body + [("", PLAIN, False)] + tail

    def _source_window(self, frame, around: int, n: int, limit: int, extra: int = 0) -> list[tuple[str, str, bool]]:
        """The rows of the source lines around the lit one (`around` each side, `extra` more)."""
        body = min(limit - 5, 2 * around + 1 + extra)
        if frame.step:
            first = max(1, min(frame.lit - around, len(frame.source) - body + 1))
        else:
            first = 1
        shown = frame.source[first - 1: first - 1 + body]
        width = len(str(shown[-1][0])) if shown else 2
        # the window's common indentation taken off, so deep lines keep their ends
        indents = [len(t.expandtabs(4)) - len(t.expandtabs(4).lstrip()) for _, t in shown if t.strip()]
        cut = min(indents) if indents else 0
        shown = [(number, text.expandtabs(4)[cut:]) for number, text in shown]
        rows = []
        for number, text in shown:
            lit = frame.step and number == frame.lit
            mark = "▶" if lit else " "
            gutter = f"{mark}{number:>{width}} "
            body_text = text.rstrip()
            if len(gutter) + len(body_text) > n:
                parts = _wrap(body_text, n - len(gutter))
                lines = [gutter + parts[0]] + [" " * len(gutter) + p for p in parts[1:]]
            else:
                lines = [gutter + body_text]
            rows += [(line, PLAIN if lit else SOFT, bool(lit)) for line in lines]
        return rows

    def _key_rows(self, frame) -> list[tuple[str, str]]:
        """(text, colour) for each row of the keys column."""
        n = self.key_chars
        prefix = _prefix(frame.keys)
        rows = [(t, PLAIN) for t in self._fit(f"keys of the queue ({prefix}*)" if prefix else "keys of the queue: none yet", n)]
        # the registry first, then what this step touched, then the rest, each opened only if
        # it is the registry or touched: changed, or named by the call though it changed nothing
        # (03's take: `ZADD …:marker 0 0` adds no member, which only an opened key shows)
        named = set(frame.command.split()[1:])

        def touched(k) -> bool:
            return k.state != "same" or k.key in named

        order = sorted(frame.keys, key=lambda k: (not k.key.endswith(":repeat"), not touched(k), k.key))
        for k in order:
            name = _short(k.key, prefix)
            mark = {"new": "+", "changed": "●", "deleted": "✕", "same": " "}[k.state]
            colour = {"new": NEW, "changed": CHANGED, "deleted": CHANGED, "same": PLAIN}[k.state]
            kind = {"zset": "sorted set", "hash": "hash", "list": "list"}.get(k.kind, k.kind)
            if k.state == "deleted":
                rows += [(t, colour) for t in self._fit(f"{mark} {name}  ({kind}) deleted", n)]
                continue
            opened = touched(k) or k.key.endswith(":repeat")
            count = f"{len(k.entries)} entr{'y' if len(k.entries) == 1 else 'ies'}"
            rows += [(t, colour) for t in self._fit(f"{mark} {name}  ({kind}, {count})", n)]
            if opened:
                for e in k.entries:
                    dot = "●" if e.changed and k.state == "changed" else " "
                    label = e.name if e.name else "value"
                    colour = CHANGED if dot == "●" else PLAIN
                    line = f"   {dot} {label} = {e.value}"
                    if len(line) > n:   # a long name: its value on a line of its own
                        rows += [(t, colour) for t in self._fit(f"   {dot} {label}", n, 4)]
                        line = f"       = {e.value}"
                    rows += [(t, colour) for t in self._fit(line, n, 7)]
        if not frame.step:
            rows += [("", PLAIN)] + [(t, PLAIN if i == 0 else SOFT) for i, t in enumerate(self._first_words(frame, n))]
        if len(rows) > self.key_rows >= 0:
            more = len(rows) - self.key_rows + 1
            rows = rows[: self.key_rows - 1] + [(f"   … {more} more lines", SOFT)]
        return rows

    def _first_words(self, frame, n: int) -> list[str]:
        """What the first frame says under the keys (issue 30: before the first call the keys
        column was one line in an empty box): what stands before the first call, and what each
        step forward will show."""
        before = ("before the first call: no key of the queue yet" if not frame.keys
                  else "before the first call: the keys as they stand")
        lines = [before, f"Step forward (the step slider, or Play) to run {frame.script}'s first redis.call.",
                 "Each step shows:", f"  the call and its reply ({'above the rule' if self.narrow_layout else 'left'}),",
                 "  every key after it, the touched ones opened,", "  + a new key, ● a changed entry, ✕ a deleted key."]
        return [row for line in lines for row in self._fit(line, n, 2)]

    def _narrow_source(self, frame) -> list[tuple[str, str, bool]]:
        """The source column on a phone: `AROUND` lines each side of the lit one, and more when
        the keys under it leave rows free (issue 30: a step with few keys left a third of the
        figure blank), as long as the source and every key fit the figure."""
        total = len(self.src_lines)
        self.key_rows = -1             # every key's row, to count them
        keys = len(self._key_rows(frame))
        rows = self._source_rows(frame)
        for lines in range(2 * AROUND["narrow"] + 2, 2 * MORE_AROUND + 2):   # one source line more each time
            wider = self._source_rows(frame, (lines - 1) // 2, total - 1 - keys, (lines - 1) % 2)
            if len(wider) <= len(rows) or len(wider) + 1 + keys > total:
                break
            rows = wider
        return rows

    def draw(self, frame) -> None:
        self.band.set_visible(False)
        rows = self._narrow_source(frame) if self.narrow_layout else self._source_rows(frame)
        if self.narrow_layout:   # the keys under the source, a rule between
            self.key_rows = len(self.src_lines) - len(rows) - 1
            y = self.src_box[1] - (len(rows) + 0.5) * self.line
            self.rule.set_ydata([y, y])
            rows = rows + [("", PLAIN, False)] + [(text, colour, False) for text, colour in self._key_rows(frame)]
        lit_rows = 0
        for i, artist in enumerate(self.src_lines):
            text, colour, lit = rows[i] if i < len(rows) else ("", PLAIN, False)
            artist.set_text(text)
            artist.set_color(colour)
            artist.set_fontweight("bold" if lit else "normal")
            if lit:   # the band behind every row of the lit line (more than one when wrapped)
                lit_rows += 1
                self.band.set_y(artist.get_position()[1] - self.line * 0.95)
                self.band.set_height(self.line * lit_rows)
                self.band.set_visible(True)
        rows = self._key_rows(frame) if self.key_lines else []
        for i, artist in enumerate(self.key_lines):
            text, colour = rows[i] if i < len(rows) else ("", PLAIN)
            artist.set_text(text)
            artist.set_color(colour)
