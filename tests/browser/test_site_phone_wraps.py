"""Wraps and cuts on a 390x844 phone (issue 30, the last reads): which_policy's table broke the
inline code `buffer-one` in two; 02's slider value "09:00 register" wrapped against its label; 02's
design drop-down cut its choice at the arrow. A table's short inline code is one unbroken chip, no
page is wider than the phone, a slider's value is one line clear of its label, and a drop-down's
choices show whole."""

from __future__ import annotations

import pytest

pytest.importorskip("playwright.sync_api", reason="browser tests skipped: no playwright package")

from emqsim.site.pages import SHORT_NAME  # noqa: E402
from test_site_book import PHONE, WITH_PLAYERS, book_page, ready  # noqa: E402,F401
from test_site_student import _BROKEN_WORDS_JS, THEMES, open_page  # noqa: E402

# the distinct line tops of an element's text
_LINES_JS = """e => { const r = document.createRange(); r.selectNodeContents(e);
  return new Set([...r.getClientRects()].filter(x => x.width > 0 && x.height > 0).map(x => Math.round(x.top))).size; }"""


@pytest.mark.parametrize("stem", ["which_policy", "05_overlap", "ref_scripts", "ref_peers_missed_slots",
                                  "course_pages_checked"])
def test_a_tables_inline_code_is_never_broken(static_site, book_page, stem):
    """No short name in a table cell's inline code spans two line boxes at 390 px, and the page is
    no wider than the phone."""
    page = book_page
    open_page(page, static_site, stem, PHONE)
    codes = page.locator(".bd-article table td code, .bd-article table th code")
    assert codes.count() > 0, stem
    broken = [c.text_content() for c in codes.all()
              if len(c.text_content()) <= SHORT_NAME and " " not in c.text_content() and c.evaluate(_LINES_JS) > 1]
    assert broken == [], (stem, broken)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], stem
    assert page.errors == [] and page.outside == []


# each slider's value: its lines and whether its box overlaps its row's label
_VALUES_JS = """(root, lines) => [...root.querySelectorAll('.emqsim-control')].flatMap(row => {
  const v = row.querySelector('output.emqsim-value'), l = row.querySelector(':scope > .emqsim-label');
  if (!v || !l || !v.textContent.trim()) return [];
  const a = v.getBoundingClientRect(), b = l.getBoundingClientRect();
  const over = a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  return [{text: v.textContent, lines: lines(v), over}]; })"""


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("stem", ["02_one_row_rewritten", "05_overlap"])
def test_a_slider_value_is_one_line_clear_of_its_label(static_site, book_page, stem, theme):
    """02's "09:00 register" wrapped to two lines in a box of its own beside the slider, climbing up
    against the slider's label (the last read). Every slider of 02 and 05 (whose pile-up times,
    "09:20 take (waited)", are the widest) swept through its positions: each value shown is one
    line and its box does not overlap its label's (test_site_student's control rows test holds the
    rest: Play, slider and value on one line, nothing past the row's edge)."""
    page = book_page
    players = open_page(page, static_site, stem, PHONE, theme)
    bad = []
    for n in range(players.count()):
        player = ready(page, n)
        sliders = player.locator("input.emqsim-slider:not([disabled])")
        for k in range(sliders.count()):
            slider = sliders.nth(k)
            for v in range(int(slider.get_attribute("max")) + 1):
                slider.evaluate("(e, v) => { e.value = String(v); e.dispatchEvent(new Event('input')); }", v)
                got = player.evaluate(f"root => ({_VALUES_JS})(root, {_LINES_JS})")
                bad += [(player.get_attribute("data-figure"), g) for g in got if g["lines"] > 1 or g["over"]]
    assert bad[:5] == [], (stem, theme, len(bad))
    assert page.errors == [] and page.outside == []


#: what a drop-down's box keeps beside its text: Chromium's inner padding and its arrow
ARROW_PX = 24

# each drop-down's widest choice in its own font, and the width its box leaves for it
_CHOICES_JS = """() => [...document.querySelectorAll('select.emqsim-choice')].map(s => {
  const c = getComputedStyle(s), pen = document.createElement('canvas').getContext('2d');
  pen.font = c.font;
  const widest = Math.max(...[...s.options].map(o => pen.measureText(o.text).width));
  return {name: s.dataset.name, widest, room: s.clientWidth - parseFloat(c.paddingLeft) - parseFloat(c.paddingRight),
          font: c.fontSize}; })"""


@pytest.mark.parametrize("theme", THEMES)
def test_a_drop_downs_choices_show_whole(static_site, book_page, theme):
    """02's design drop-down showed "the pump design (this course's model of EchoMQ)" cut at the
    arrow on a phone (399 px of text in a 343 px box): on every page, each drop-down's widest
    choice fits its box beside the arrow, in type of 11 CSS px at least."""
    page = book_page
    cut, seen = [], 0
    for path in WITH_PLAYERS:
        open_page(page, static_site, path.stem, PHONE, theme)
        for n in range(page.locator(".emqsim-player").count()):
            ready(page, n)
        for got in page.evaluate(_CHOICES_JS):
            seen += 1
            if got["widest"] > got["room"] - ARROW_PX or float(got["font"].rstrip("px")) < 11:
                cut.append((path.stem, got))
    assert seen > 0
    assert cut == [], cut
    assert page.errors == [] and page.outside == []


#: the widest printout line a 390 px phone shows whole: ref_bullmq_design's designs table (48
#: characters a row) and 05's snapped slots wrapped every row at 47 (h68r)
PRINTOUT_CHARS = 52

# how many characters of a printout's monospace type one line of its box holds
_CHARS_JS = """e => { const s = getComputedStyle(e); const c = document.createElement('canvas').getContext('2d');
  c.font = s.fontSize + ' ' + s.fontFamily;
  const w = e.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight);
  return {chars: Math.floor(w / c.measureText('0123456789').width * 10), size: parseFloat(s.fontSize)}; }"""


@pytest.mark.parametrize("stem", ["00_start_here", "05_overlap", "ref_bullmq_design"])
def test_a_printout_line_of_52_characters_is_one_line_on_a_phone(static_site, book_page, stem):
    """On a phone a printout's box holds a line of `PRINTOUT_CHARS` characters whole, in type no
    smaller than 11 px (the figures' floor is 10), so the designs table and 05's slots read as
    tables; longer lines still wrap inside the box, every column kept."""
    page = book_page
    open_page(page, static_site, stem, PHONE)
    boxes = page.locator(".bd-article div.cell_output div.output pre:not(.emqsim-readout)")
    assert boxes.count() > 0, stem
    got = [b.evaluate(_CHARS_JS) for b in boxes.all()]
    assert min(g["chars"] for g in got) >= PRINTOUT_CHARS, (stem, got)
    assert min(g["size"] for g in got) >= 11, (stem, got)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], stem


# each closed fold's gap to what follows it, in px, and the paragraph gap of the page
_FOLD_GAP_JS = """() => [...document.querySelectorAll('.bd-article details')].filter(d => !d.open &&
  d.nextElementSibling).map(d => Math.round(d.nextElementSibling.getBoundingClientRect().top
  - d.getBoundingClientRect().bottom))"""


@pytest.mark.parametrize("stem", ["00_start_here", "04_missed_slots", "05_overlap"])
def test_a_closed_fold_stands_apart_from_the_sentence_after_it(static_site, book_page, stem):
    """A closed fold's summary stood flush on the next sentence, and a reader read the two as one
    line of prose (h69r): every closed fold keeps at least 12 px under it on a phone."""
    page = book_page
    open_page(page, static_site, stem, PHONE)
    gaps = page.evaluate(_FOLD_GAP_JS)
    assert gaps and min(gaps) >= 12, (stem, gaps)


# the words of the prose's inline code that wrap across two lines: test_site_student's count for
# table cells, asked of the code in paragraphs and list items
_PROSE_CODE_BROKEN_JS = _BROKEN_WORDS_JS.replace("'article table td, article table th'",
                                                 "'article p code, article li code'")
assert _PROSE_CODE_BROKEN_JS != _BROKEN_WORDS_JS


@pytest.mark.parametrize("stem", ["ref_storage", "ref_release_rules", "ref_missed_slots"])
def test_a_code_name_in_the_prose_keeps_its_words_whole_on_a_phone(static_site, book_page, stem):
    """ref_storage broke storeJobScheduler inside "Scheduler", ref_release_rules a name inside "lua"
    on a 390 px phone (h70r): a code name in the prose breaks only at its joints."""
    page = book_page
    open_page(page, static_site, stem, PHONE)
    assert page.evaluate(_PROSE_CODE_BROKEN_JS) == [], stem
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], stem


@pytest.mark.parametrize("stem", ["glossary_policies"])
def test_a_one_word_heading_is_one_line_on_a_phone(static_site, book_page, stem):
    """glossary_policies' "misfire_grace_time" stood over a blank second line on a phone, its
    hover-only "#" link wrapped under it (h70r): a heading of one word that fits is one line. The
    word is the heading's whole text but its link: a long name's break opportunities split it in
    text nodes ("starting", "Deadline", ...), and its first alone fits."""
    page = book_page
    open_page(page, static_site, stem, PHONE)
    tall = page.evaluate("""() => [...document.querySelectorAll('.bd-article h2')].filter(h => {
        const s = getComputedStyle(h), c = document.createElement('canvas').getContext('2d');
        c.font = s.fontWeight + ' ' + s.fontSize + ' ' + s.fontFamily;
        const word = [...h.childNodes].filter(n => !(n.classList && n.classList.contains('headerlink')))
          .map(n => n.textContent).join('').trim();
        return !word.includes(' ') && c.measureText(word).width < h.clientWidth
          && h.getBoundingClientRect().height > 1.5 * parseFloat(s.lineHeight);
      }).map(h => h.textContent)""")
    assert tall == [], (stem, tall)
