"""The one clock of a call (cspopt.budget.Budget): shares never pass their parent's end, an
unlimited call stays unlimited, phases add up in the call's timings. Checked on the budget's
own numbers, never against the wall clock's speed."""

import math

from cspopt.budget import Budget


def test_shares_are_of_the_calls_limit_and_never_past_the_parents_end():
    call = Budget(100.0)
    search = call.opening(0.8)
    assert search.end == call.started + 80.0 and search.limit == 100.0
    assert search.share(0.3).end <= search.end
    assert search.share(0.9).end == search.end  # 90 s from now is past the search's end
    assert call.reserve(5.0).end == call.started + 95.0
    assert search.within(1.0).end <= search.end
    assert search.within(None).end == search.end
    assert call.fraction(0.25) == 25.0 and call.fraction(0.01, floor=2.0) == 2.0


def test_an_unlimited_call_has_unlimited_parts():
    call = Budget()
    for part in (call.share(0.5), call.opening(0.5), call.reserve(5.0), call.within(None)):
        assert part.end is None and not part.expired()
        assert part.remaining() == math.inf and part.time_limit() is None
    assert call.fraction(0.5) is None
    assert call.within(3.0).end is not None  # an explicit cap still holds


def test_an_ended_budget_is_expired_and_leaves_no_time():
    past = Budget.ending_at(0.0)
    assert past.expired() and past.time_limit() == 0.0 and past.remaining() < 0
    assert past.share(0.5).expired() and past.within(10.0).expired()


def test_phases_add_up_in_the_calls_timings():
    call = Budget(10.0)
    part = call.share(0.5)
    with part.phase("root"):
        pass
    with call.phase("root"):
        pass
    with call.phase("tree"):
        pass
    assert set(call.timings) == {"root", "tree"} and part.timings is call.timings
    assert all(seconds >= 0.0 for seconds in call.timings.values())
