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
