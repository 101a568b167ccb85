"""A live figure on a page with no kernel: its frames rendered in advance, swapped by a script.

A reader of the static site has no kernel, so the sliders of a figure cannot ask its model
for a frame. Instead `make html` asks for every frame a reader can reach (the model's
`reachable()` value sets: every position of the main slider, the other controls too while
the count stays small), draws each with the figure's own view, and writes into the page:
the pictures (a lossless WebP of COLORS colours each, one file per distinct picture, named by its
content, fetched by the browser only when a reader reaches it; each drawn twice, for a desktop
and in the narrow layout for a phone, a browser fetching one set), a JSON table of the controls
and, for each frame, its picture, its readout and the position of every control. The script
`player.js`, loaded deferred in the page's head (so the controls work before the pictures
arrive on a slow link), builds a range input per slider and a drop-down per choice from that
table and swaps picture and readout as they move: the same readout text the notebook panel
shows, with no network beyond the site's own files and no kernel.

The figure's questions and challenge (declared on its model, `emqsim.lessons.questions`)
are written into the page too: each question a `<fieldset>` of radio inputs with its right
answer, the feedback for every option (worded as the notebook words it) and the frame its
Show me moves to; the challenge with one bit per frame, its predicate evaluated here at
build time on every frame rendered, which the script reads to tick the line.

A control held at its default (`reachable()` held it so the frame count stays small) is
shown disabled, with a note on the page saying so.
"""

from __future__ import annotations

import hashlib
import html
import io
import json
import math
import os
import re
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from importlib import resources

from ..lessons.questions import MET, PICK_FIRST, as_html, challenge_line, feedback

#: the class of a player's element on the page (and what a browser test looks for)
PLAYER_CLASS = "emqsim-player"
#: colours per frame: matplotlib's antialiased text and lines keep their look with 48
COLORS = 48
#: how near its ink (the share of the way from white) a pixel in a text's box is painted in it
CORE = 0.8
#: a frame's file type: lossless WebP, which every current browser shows
FRAME_SUFFIX = ".webp"
#: frames per rendering job at least: a model's caches (a walk extended frame by frame) are
#: per process, so a figure is split only when it is long
MIN_CHUNK = 200


#: where a page finds the frames, relative to the page (the site's pages sit side by side)
FRAMES_URL = "_static/frames/"
#: and the frames drawn in the narrow layout, for a phone
NARROW_URL = "_static/frames/narrow/"
#: the screens that get the narrow frames (the browser picks one set and fetches only it)
NARROW_MEDIA = "(max-width: 600px)"


def shipped(text: str) -> str:
    """A script or style sheet as the site serves it: its /* */ comments and blank lines left
    out. They say why to the reader of the source; on a phone's slow link they were a third of
    the player's bytes, on the way to its first move (04's stood at 2.01 s of its 2 s on Fast 3G)."""
    return re.sub(r"\n\s*\n+", "\n", re.sub(r"/\*[\s\S]*?\*/", "", text))


def served(name: str) -> str:
    """The file `name` of this folder (player.js, player.css) as the site serves it."""
    return shipped(resources.files("emqsim.site").joinpath(name).read_text(encoding="utf-8"))


def script() -> str:
    """The player script, a static file every page loads deferred, as the site serves it."""
    return served("player.js")


def image_name(picture: bytes) -> str:
    """A frame's file name: its content's hash, so a picture two figures share is one file
    and a browser may cache it for good."""
    return hashlib.sha1(picture).hexdigest()[:16] + FRAME_SUFFIX


def image_size(picture: bytes) -> tuple[int, int]:
    """A frame's width and height in pixels."""
    from PIL import Image

    return Image.open(io.BytesIO(picture)).size


def compress(png: bytes, cores: tuple = ()) -> bytes:
    """A frame as at most `COLORS` colours, without dithering (flat areas stay flat), stored as
    lossless WebP: the same pixels as a palette PNG in about two thirds of its bytes, so both
    frame sets together weigh what one set of PNGs did. In each text's box of `cores`
    (`text_cores`), the pixels that are nearly its ink (its glyphs' cores) are painted in the
    ink itself: cut to 48 colours, they merged with their lighter antialiased shades, and 05's
    green text, inked at 5.5:1, was served at 4.24:1 (issue 30)."""
    import numpy as np
    from PIL import Image

    im = Image.open(io.BytesIO(png))
    if im.mode in ("RGBA", "LA", "P"):
        im = im.convert("RGBA")
        white = Image.new("RGBA", im.size, (255, 255, 255, 255))
        im = Image.alpha_composite(white, im)
    im = im.convert("RGB")
    out = im.quantize(colors=COLORS, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE).convert("RGB")
    if cores:
        source, out = np.asarray(im, dtype=float), np.array(out)
        for ink, (x0, y0, x1, y1) in cores:
            box = (slice(max(y0, 0), y1), slice(max(x0, 0), x1))
            pixels, c = source[box], np.array(ink, dtype=float)
            along = ((pixels - 255) @ (c - 255)) / float((c - 255) @ (c - 255))
            off = np.linalg.norm(pixels - 255 - along[..., None] * (c - 255), axis=-1)
            out[box][(along >= CORE) & (off < 8)] = ink
        out = Image.fromarray(out)
    buf = io.BytesIO()
    out.save(buf, format="WEBP", lossless=True, method=4, exact=True)
    return buf.getvalue()


def text_cores(fig) -> tuple:
    """Each opaque text of a drawn matplotlib figure as (its ink as (r, g, b), its box in the
    picture's pixels (x0, y0, x1, y1), y down): where `compress` paints glyph cores in their ink."""
    from matplotlib.colors import to_rgb, to_rgba

    from ..figures.view import drawn_texts

    renderer, height = fig.canvas.get_renderer(), fig.bbox.height
    out = []
    for t in drawn_texts(fig):
        if not t.get_text().strip() or to_rgba(t.get_color(), t.get_alpha())[3] < 1:
            continue
        b = t.get_window_extent(renderer)
        out.append((tuple(round(255 * v) for v in to_rgb(t.get_color())),
                    (int(b.x0), int(height - b.y1), int(b.x1) + 1, int(height - b.y0) + 1)))
    return tuple(out)


def render_frames(title: str, value_sets: list[dict]) -> tuple[list[tuple], dict]:
    """Draw `title` at each value set with the notebook's model and view, in the normal layout
    and the narrow one: (compressed PNG, readout, whether the frame meets the model's
    challenge, None without one, alt text, compressed narrow PNG) per set, and the facts of
    each layout's pictures (see `Player.facts`). Runs in a worker process; a frame drawn twice
    is compressed once."""
    from ..figures import catalogue
    from ..figures.style import at_shown_width

    with at_shown_width():      # normal frames one pixel per CSS px: the browser shows them unscaled
        figs = {layout: catalogue.figure(title, layout=layout) for layout in ("normal", "narrow")}
    fig = figs["normal"]
    challenge = fig.model.challenge
    done: dict[bytes, bytes] = {}
    smallest = {layout: math.inf for layout in figs}
    out = []
    for values in value_sets:
        pngs = {}
        for layout, f in figs.items():
            f.update(**values)
            png = f.png()
            key = hashlib.sha1(png).digest()
            if key not in done:
                done[key] = compress(png, text_cores(f.view.ax.figure))
                smallest[layout] = min(smallest[layout], _smallest_font(f))
            pngs[layout] = done[key]
        out.append((pngs["normal"], fig.frame.readout, None if challenge is None else challenge.check(fig.frame),
                    fig.model.describe(fig.frame), pngs["narrow"]))
    facts = {layout: {"width_in": float(f.view.ax.figure.get_figwidth()), "min_font_pt": smallest[layout]}
             for layout, f in figs.items()}
    return out, facts


def _smallest_font(fig) -> float:
    """The smallest font, in points, of the texts the figure's latest picture shows."""
    from ..figures.view import smallest_font

    return smallest_font(fig.view.ax.figure)


def facts_attrs(facts: dict) -> str:
    """A picture set's facts as the attributes its element carries: the figure's width in
    inches and its smallest font in points, from which a page's test works out how tall the
    smallest text stands on screen (points / 72 x CSS px shown per inch)."""
    return f' data-fig-width-in="{facts["width_in"]:.4g}" data-min-font-pt="{facts["min_font_pt"]:.4g}"'


def _json_value(value):
    """A control value as the JSON table shows it (a value JSON cannot hold, as its repr)."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return repr(value)


@dataclass
class Player:
    """One figure, pre-rendered: what its element on a page holds."""

    title: str
    readout_id: str
    #: per control: name, label, kind, held, play (or None), positions [[label, value]], default
    #: (the control's default value: a dependent choice falls back to it, as the model does),
    #: span [position, count] of a held slider's default among all its positions (where the
    #: disabled slider sits)
    controls: list[dict]
    #: per frame: [image index, readout index, [position index per control]], and a fourth,
    #: the index of its alt text in `alts`, where that is not the readout
    frames: list[list]
    images: list[bytes]
    readouts: list[str]
    start: int
    held: list[str] = field(default_factory=list)
    #: per question: id, prompt, options [[key, text]] (HTML), right (key), feedback {key: HTML},
    #: show (the frame its Show me moves to; None if the page does not render it)
    questions: list[dict] = field(default_factory=list)
    #: the challenge: goal, met (the line once met, HTML), bits ("1" per frame that meets it)
    challenge: dict | None = None
    #: the frames' alt texts that differ from their readouts
    alts: list[str] = field(default_factory=list)
    #: the narrow layout's picture for each picture in `images` (a phone's set)
    narrow: list[bytes] = field(default_factory=list)
    #: per layout ("normal", "narrow"): the pictures' figure width in inches ("width_in") and
    #: the smallest font size drawn in them, in points ("min_font_pt")
    facts: dict = field(default_factory=dict)

    @property
    def names(self) -> list[str]:
        """Each picture's file name (`image_name`)."""
        return [image_name(b) for b in self.images]

    @property
    def narrow_names(self) -> list[str]:
        """Each narrow picture's file name."""
        return [image_name(b) for b in self.narrow]

    def write_images(self, folder, narrow_folder=None) -> int:
        """Write each picture into `folder` as its own file, the narrow ones into
        `narrow_folder`; returns the bytes written."""
        from pathlib import Path

        total = 0
        for where, names, pngs in ((folder, self.names, self.images), (narrow_folder, self.narrow_names, self.narrow)):
            if where is None:
                continue
            where = Path(where)
            where.mkdir(parents=True, exist_ok=True)
            for name, png in zip(names, pngs, strict=True):
                (where / name).write_bytes(png)
            total += sum(len(b) for b in set(pngs))
        return total

    def table(self) -> dict:
        """The JSON table the script reads (pictures by file name)."""
        table = {"title": self.title, "readout_id": self.readout_id, "controls": self.controls,
                 "frames": self.frames, "readouts": self.readouts, "start": self.start,
                 "images": self.names}
        if self.narrow:
            table["narrow"] = self.narrow_names
        if self.alts:
            table["alts"] = self.alts
        if self.questions:
            table["questions"] = [{k: q[k] for k in ("id", "right", "feedback", "show")} for q in self.questions]
            table["pick_first"] = PICK_FIRST
        if self.challenge is not None:
            table["challenge"] = self.challenge
        return table

    def summary(self) -> str:
        """One line for the build's log: frames, distinct pictures, bytes."""
        size = sum(len(b) for b in set(self.images))
        small = sum(len(b) for b in set(self.narrow))
        return (f"{self.title}: {len(self.frames)} frames, {len(set(self.images))} pictures, {size / 1e6:.1f} MB"
                + (f" (narrow: {len(set(self.narrow))}, {small / 1e6:.1f} MB)" if self.narrow else "")
                + (f", held: {', '.join(self.held)}" if self.held else ""))

    def held_note(self) -> str:
        """What the page says about controls held at their default ('' when none is)."""
        if not self.held:
            return ""
        shown = []
        for c in self.controls:
            if c["held"]:
                first = self.frames[0][2][self.controls.index(c)]
                shown.append(f"{c['label']} ({c['positions'][first][0]})")
        names = ", ".join(shown)
        return (f"Held at its default on this page: {names}. The notebook, run in JupyterLab, moves "
                f"{'it' if len(shown) == 1 else 'them'} too (make lab).")

    def alt(self, n: int) -> str:
        """The alt text of frame `n`."""
        f = self.frames[n]
        return self.alts[f[3]] if len(f) > 3 else self.readouts[f[1]]

    def html(self, frames_url: str = FRAMES_URL, narrow_url: str = NARROW_URL) -> str:
        """The player's element: the JSON table first (so the script may start the player as
        soon as its last part, the note, has arrived), the stage (the first frame, fetched from `frames_url`, and its
        readout, seen even without scripts), a place for the controls, the held note, the
        challenge, the questions and the note. The controls are the first thing a Tab
        reaches; the readout is a polite live region, so a screen reader hears each change.
        With narrow pictures the frame is a `<picture>`: a phone (`NARROW_MEDIA`) fetches the
        narrow set only, a wider screen the normal set only; each set's element carries its facts."""
        first = self.frames[self.start]
        png = self.images[first[0]]
        width, height = image_size(png)
        data = json.dumps(self.table(), separators=(",", ":"), ensure_ascii=True).replace("<", "\\u003c")
        note = self.held_note()
        held = f'<p class="emqsim-held">{html.escape(note)}</p>' if note else ""
        label = html.escape(f"Controls of the figure {self.title}")
        img = (f'<img class="emqsim-frame" alt="{html.escape(self.alt(self.start))}" '
               f'src="{html.escape(frames_url + image_name(png))}" width="{width}" height="{height}"'
               f'{facts_attrs(self.facts["normal"]) if "normal" in self.facts else ""}>')
        narrow = ""
        if self.narrow:
            small = self.narrow[first[0]]
            w, h = image_size(small)
            img = (f'<picture class="emqsim-picture"><source media="{NARROW_MEDIA}" '
                   f'srcset="{html.escape(narrow_url + image_name(small))}" width="{w}" height="{h}"'
                   f'{facts_attrs(self.facts["narrow"])}>{img}</picture>')
            narrow = f' data-frames-narrow="{html.escape(narrow_url)}"'
        return (
            f'<div class="{PLAYER_CLASS}" data-figure="{html.escape(self.title)}" '
            f'data-frames="{html.escape(frames_url)}"{narrow}>'
            f'<script type="application/json" class="emqsim-data">{data}</script>'
            f'<div class="emqsim-stage">{img}'
            f'<pre class="emqsim-readout" id="{html.escape(self.readout_id)}" aria-live="polite">'
            f'{html.escape(self.readouts[first[1]])}</pre></div>'
            f'<div class="emqsim-controls" role="group" aria-label="{label}"></div>{held}'
            f'{self.challenge_html()}'
            f'{self.questions_html()}'
            f'<p class="emqsim-about">Pre-rendered: {len(self.frames)} frames, drawn in advance.</p>'
            f"</div>")

    def questions_html(self) -> str:
        """Each question as one labelled group: a fieldset, its prompt the legend, native radio
        inputs, Check and Show me, and a feedback line a screen reader reads when it changes."""
        out = []
        for n, q in enumerate(self.questions, 1):
            name = f"emqsim-q-{q['id']}"
            options = "".join(
                f'<label class="emqsim-option"><input type="radio" name="{html.escape(name)}" '
                f'value="{html.escape(key)}"> {text}</label>' for key, text in q["options"])
            show = "" if q["show"] is None else \
                '<button type="button" class="emqsim-show-me">Show me</button>'
            out.append(
                f'<fieldset class="emqsim-question" data-question="{html.escape(q["id"])}">'
                f'<legend><b>Question {n}.</b> {q["prompt"]}</legend>{options}'
                f'<div class="emqsim-buttons"><button type="button" class="emqsim-check">Check</button>{show}</div>'
                f'<div class="emqsim-feedback" role="status" aria-live="polite"></div></fieldset>')
        return f'<div class="emqsim-questions">{"".join(out)}</div>' if out else ""

    def challenge_html(self) -> str:
        """The challenge line under the figure, as at the first frame."""
        c = self.challenge
        if c is None:
            return ""
        met = c["bits"][self.start] == "1"
        return (f'<p class="emqsim-challenge" role="status" aria-live="polite" data-met="{int(met)}">'
                f'{c["met"] if met else c["goal"]}</p>')


def _play(control, count: int, walked: int | None = None) -> dict | None:
    """The Play button's settings, as the notebook's Player reads them: `count` positions in all,
    `walked` (else `count`) the most one pass walks, which paces its ticks (Play.tick)."""
    p = control.play
    if p is None:
        return None
    max_step = p.max_step if p.max_step is not None else max(p.step, (count - 1) // 10, 1)
    return {"step": p.step, "max_step": max_step, "interval": p.tick(walked or count), "label": p.label}


def assemble(title: str, model, value_sets: list[dict], held: list[str],
             rendered: list[tuple], facts: dict | None = None) -> Player:
    """The player of `title` from its value sets and their rendered (PNG, readout, challenge
    met, alt text, narrow PNG) frames (the last two may be left out); the questions' answers
    and feedback from the model; `facts` of the picture sets (`render_frames`)."""
    controls = list(model.controls)
    positions: list[list] = [[] for _ in controls]
    seen: list[dict] = [{} for _ in controls]

    def index(k: int, label: str, value) -> int:
        key = (label, repr(value))
        if key not in seen[k]:
            seen[k][key] = len(positions[k])
            positions[k].append([label, _json_value(value)])
        return seen[k][key]

    images: list[bytes] = []
    narrow: list[bytes] = []
    image_at: dict[tuple, int] = {}
    readouts: list[str] = []
    readout_at: dict[str, int] = {}
    frames = []
    bits = []
    alts: list[str] = []
    alt_at: dict[str, int] = {}
    for values, (png, readout, met, *rest) in zip(value_sets, rendered, strict=True):
        alt = rest[0] if rest else readout
        small = rest[1] if len(rest) > 1 else None
        bits.append("1" if met else "0")
        where = [index(k, model.label(c.name, values), values[c.name]) for k, c in enumerate(controls)]
        pair = (png, small)
        if pair not in image_at:
            image_at[pair] = len(images)
            images.append(png)
            if small is not None:
                narrow.append(small)
        if readout not in readout_at:
            readout_at[readout] = len(readouts)
            readouts.append(readout)
        frames.append([image_at[pair], readout_at[readout], where])
        if alt != readout:
            if alt not in alt_at:
                alt_at[alt] = len(alts)
                alts.append(alt)
            frames[-1].append(alt_at[alt])
    defaults = model.defaults()
    start_key = [index(k, model.label(c.name, defaults), defaults[c.name]) for k, c in enumerate(controls)]
    start = next((n for n, f in enumerate(frames) if f[2] == start_key), 0)
    def walked(k: int) -> int:
        """The most positions of control k the player offers at once: with the controls before it
        set (02's keys walk 20 calls of one design, 56 in all)."""
        offered: dict = {}
        for f in frames:
            offered.setdefault(tuple(f[2][:k]), set()).add(f[2][k])
        return max(map(len, offered.values()))

    table = []
    for k, c in enumerate(controls):
        entry = {"name": c.name, "label": c.label or c.name, "kind": c.kind, "held": c.name in held,
                 "play": _play(c, len(positions[k]), walked(k)), "positions": positions[k], "default": _json_value(c.default)}
        if c.name in held and c.kind == "slider":
            every = [v for _, v in model.positions(c.name, defaults)]
            entry["span"] = [every.index(defaults[c.name]), len(every)]
        table.append(entry)
    at = {tuple(f[2]): n for n, f in enumerate(frames)}

    def frame_of(values: dict) -> int | None:
        """The frame drawn at `values` (the others at their defaults), None if none was."""
        full, where = model.values(None, **values), []
        for k, c in enumerate(controls):
            p = seen[k].get((model.label(c.name, full), repr(full[c.name])))
            if p is None:
                return None
            where.append(p)
        return at.get(tuple(where))

    questions = [asked(q, model, frame_of(q.show_me)) for q in model.questions]
    challenge = None
    if model.challenge is not None:
        c = model.challenge
        challenge = {"id": c.id, "goal": as_html(challenge_line(c, False)), "met": as_html(challenge_line(c, True)),
                     "mark": MET, "bits": "".join(bits)}
    return Player(title, model.readout_id, table, frames, images, readouts, start, list(held), questions, challenge,
                  alts, narrow if len(narrow) == len(images) else [], dict(facts or {}))


def asked(q, model, show: int | None) -> dict:
    """A question as the page holds it: texts as HTML, the engine's right key, every option's feedback."""
    right = q.right(model)
    return {"id": q.id, "prompt": as_html(q.prompt), "options": [[o.key, as_html(o.text)] for o in q.shown()],
            "right": right, "feedback": {o.key: ("\u2713 " if o.key == right else "\u2717 ")
                                         + as_html(feedback(q, o.key, right)) for o in q.options},
            "show": show}


def _worker_init() -> None:
    """A rendering process draws off screen, whatever display the machine has."""
    import matplotlib

    matplotlib.use("Agg")


def _chunks(items: list, size: int) -> list[list]:
    return [items[i:i + size] for i in range(0, len(items), size)] or [[]]


def players(titles, jobs: int | None = None) -> dict[str, Player]:
    """Every figure in `titles` pre-rendered, by title. With `jobs` > 1 the frames are drawn in
    that many worker processes (each title split in chunks); with 1, here."""
    from ..figures import catalogue

    titles = list(dict.fromkeys(titles))
    jobs = max(1, jobs if jobs is not None else (os.cpu_count() or 1))
    plans = {}
    for title in titles:
        model = catalogue.model(title)
        value_sets, held = model.reachable()
        plans[title] = (model, value_sets, held)
    total = sum(len(v) for _, v, _ in plans.values())
    size = max(MIN_CHUNK, math.ceil(total / (2 * jobs)))
    work = [(title, n, chunk) for title, (_, v, _) in plans.items() for n, chunk in enumerate(_chunks(v, size))]
    work.sort(key=lambda w: -len(w[2]))  # the longest first, so the pool ends together
    results: dict[tuple[str, int], tuple] = {}
    if jobs == 1 or len(work) <= 1:
        for title, n, chunk in work:
            results[title, n] = render_frames(title, chunk)
    else:
        import multiprocessing

        with ProcessPoolExecutor(max_workers=min(jobs, len(work)), initializer=_worker_init,
                                 mp_context=multiprocessing.get_context("spawn")) as pool:
            futures = {(t, n): pool.submit(render_frames, t, chunk) for t, n, chunk in work}
            for key, future in futures.items():
                results[key] = future.result()
    out = {}
    for title, (model, value_sets, held) in plans.items():
        count = len(_chunks(value_sets, size))
        rendered = [frame for n in range(count) for frame in results[title, n][0]]
        facts = {layout: {"width_in": results[title, 0][1][layout]["width_in"],
                          "min_font_pt": min(results[title, n][1][layout]["min_font_pt"] for n in range(count))}
                 for layout in results[title, 0][1]}
        out[title] = assemble(title, model, value_sets, held, rendered, facts)
    return out


__all__ = ["COLORS", "FRAME_SUFFIX", "FRAMES_URL", "NARROW_MEDIA", "NARROW_URL", "PLAYER_CLASS", "facts_attrs", "Player", "assemble", "compress", "image_name",
           "image_size", "players", "render_frames", "script"]
