"""The shared walks of tests/figure_walk.py walk every time they are asked: a check that
walked a figure after another check had walked it once must still see every position."""

from itertools import islice

from emqsim.figures import catalogue
from tests.figure_walk import every_frame

TITLE = "07 cron across daylight saving"


def test_every_frame_starts_from_the_first_position_each_time_it_is_asked():
    first, _ = catalogue.model(TITLE).reachable()
    for _ in range(2):
        walked = [values for values, _, _ in islice(every_frame(TITLE, "narrow"), 2)]
        assert walked == first[:2]
