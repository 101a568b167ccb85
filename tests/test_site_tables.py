"""The names in the site's tables break at their joints, never inside a word (issue 30: on a
phone course_pages_checked's seed file names held a column wide enough to push the next one out
of sight; tests/browser/test_site_still_and_calm.py measures the tables in a browser)."""

from __future__ import annotations

from emqsim.site.pages import breakable

CELL = '<td><p><code class="docutils literal notranslate"><span class="pre">{}</span></code> {}</p></td>'


def test_code_in_a_cell_breaks_after_its_joints_and_between_camel_humps():
    page = CELL.format("../shared/seeds/004_8b6a.txt", "a.b/c")
    assert breakable(page) == CELL.format("../<wbr>shared/<wbr>seeds/<wbr>004_<wbr>8b6a.<wbr>txt", "a.b/c")
    page = CELL.format("includes/getJobSchedulerEveryNextMillis.lua", "")
    assert "get<wbr>Job<wbr>Scheduler<wbr>Every<wbr>Next<wbr>Millis.<wbr>lua" in breakable(page)


def test_a_long_code_name_in_prose_breaks_at_its_joints_and_words_are_left_alone():
    """ref_storage broke storeJobScheduler inside "Scheduler" on a phone (h70r): a code name in
    prose longer than `SHORT_NAME` breaks at its joints as in a table; a short one, and words, are
    left alone."""
    prose = '<p><span class="pre">{}</span></p>'
    assert breakable(prose.format("storeJobScheduler.lua")) == prose.format("store<wbr>Job<wbr>Scheduler.<wbr>lua")
    assert breakable(prose.format("buffer-one")) == prose.format("buffer-one")
    words = CELL.format("allow", "getJobScheduler")     # a word, and camel case outside code
    assert breakable(words) == words


def test_a_short_name_is_one_chip_without_breaks():
    """which_policy's `buffer-one` broke in two on a phone (issue 30): a name of at most
    `SHORT_NAME` characters gets no break opportunity and the class that keeps it on one line."""
    assert breakable(CELL.format("buffer-one", "")) == CELL.format("buffer-one", "").replace(
        '<span class="pre">', '<span class="pre emqsim-whole">')
    long = breakable(CELL.format("concurrencyPolicy", ""))
    assert "concurrency<wbr>Policy" in long and "emqsim-whole" not in long


SOURCES = ('<section id="sources">\n<h2>Sources</h2>\n<ul class="simple">\n<li><p>APScheduler 3.11.3 run live;\n'
           '{}</p></li>\n</ul>\n</section>')


def test_a_test_id_in_sources_breaks_at_its_joints():
    """08's Sources on a phone broke `test_apscheduler_defaults_drop_...` mid-word ("test_aps /
    cheduler"; issue 30, h68r): a test's id, plain text there, gets a break opportunity after
    each `/`, `_`, `.` and `::`, so the line breaks between its words."""
    page = SOURCES.format("tests/test_peer_apscheduler.py::test_engine_lane_matches")
    assert breakable(page) == SOURCES.format(
        "tests/<wbr>test_<wbr>peer_<wbr>apscheduler.<wbr>py::<wbr>test_<wbr>engine_<wbr>lane_<wbr>matches")
    # outside Sources, and inside a tag's attribute, nothing changes
    prose = '<p>tests/test_peer_hangfire.py</p><section id="sources"><a href="tests/test_peer_java.py">x</a></section>'
    assert breakable(prose) == prose


def test_a_code_name_in_sources_breaks_at_its_joints():
    """08's Sources on a phone broke `src/Hangfire.Core/RecurringJobEntity.cs` as
    "RecurringJobEntity.c / s" (h69r): code in a Sources line breaks at its joints, as in a table."""
    code = '<code class="docutils literal notranslate"><span class="pre">{}</span></code>'
    page = SOURCES.format(code.format("src/Hangfire.Core/RecurringJobEntity.cs"))
    assert breakable(page) == SOURCES.format(code.format(
        "src/<wbr>Hangfire.<wbr>Core/<wbr>Recurring<wbr>Job<wbr>Entity.<wbr>cs"))


def test_a_long_name_in_a_heading_breaks_at_its_joints():
    """On a phone glossary_policies' heading read "startingDeadlineSec|onds" (h71r): a heading's
    long name breaks between its humps and after its joints; its short words are left alone."""
    page = '<h2>startingDeadlineSeconds<a class="headerlink" href="#startingdeadlineseconds" title="x">#</a></h2>'
    assert breakable(page) == page.replace("startingDeadlineSeconds", "starting<wbr>Deadline<wbr>Seconds", 1)
    page = '<h2>misfire_grace_time and the next run</h2>'
    assert breakable(page) == '<h2>misfire_<wbr>grace_<wbr>time and the next run</h2>'
    short = '<h3>2. Snap and epoch</h3>'
    assert breakable(short) == short


def test_highlighted_code_breaks_after_its_punctuation_and_in_a_path():
    """On a phone 04's code broke "readout" before its last letter and ref_scripts' Lua path inside
    "advance" (h71r): code breaks after a dot, a bracket or a comma, and inside a string after a
    slash, never in a name."""
    code = ('<div class="highlight"><pre><span></span><span class="nb">print</span><span class="p">(</span>'
            '<span class="n">m</span><span class="o">.</span><span class="n">readout</span><span class="p">)</span>'
            '<span class="p">,</span> <span class="s2">"lua/advance-2.lua"</span>\n</pre></div>')
    want = ('<div class="highlight"><pre><span></span><span class="nb">print</span><span class="p">(</span><wbr>'
            '<span class="n">m</span><span class="o">.</span><wbr><span class="n">readout</span><span class="p">)</span>'
            '<span class="p">,</span><wbr> <span class="s2">"lua/<wbr>advance-2.lua"</span>\n</pre></div>')
    assert breakable(code) == want
    outside = '<p><span class="o">.</span></p>'      # not in a code block: left alone
    assert breakable(outside) == outside
