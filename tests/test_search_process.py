"""The neighbourhood searches in a second process (:mod:`cspopt.solving.search_process`):
what the child sends protects the table and is never below the optimum, a solve with it
returns an audited pattern, the child ends with the solve, and its failure ends nothing."""

import logging
import time

import numpy as np
import pytest
from oracles import brute_force_interval, tiny_interval_tables

import cspopt.solving.interval_phases as phases
from cspopt import audit
from cspopt.bounds.capacity import capacity_lp
from cspopt.budget import Budget
from cspopt.heuristics.incremental import lp_guided_attacker
from cspopt.io import read_table
from cspopt.models.interval import CapacityOracle, build_interval_instance
from cspopt.solving import solve_branch_and_cut
from cspopt.solving.search_process import SearchJob, SearchProcess


def _job(inst, incumbent, seconds, separation="auto", root_lp=True, support=True):
    root_y = (capacity_lp(inst, CapacityOracle(inst), budget=Budget(20))[1] if root_lp
              else incumbent)
    now = time.time()
    return SearchJob(instance=inst, incumbent=incumbent, root_y=root_y, patterns=(incumbent,),
                     lower_bound=0.0, separation=separation, solve=solve_branch_and_cut,
                     balls_until=now + seconds / 2,
                     until=now + seconds, support=support)


def _finished(searcher, seconds):
    ends = time.perf_counter() + seconds
    while searcher.running and time.perf_counter() < ends:
        time.sleep(0.05)
    return not searcher.running


def _protects_above(table, inst, found, optimum):
    weights = inst.weights[inst.candidates]
    for y in found:
        assert audit(table, inst.candidates[y > 0.5], requirement="interval",
                     cells="sensitive").protected
        assert weights @ y >= optimum - 1e-9


def test_the_search_process_sends_protecting_patterns_never_below_the_optimum():
    """Its neighbourhood searches, and its patterns guided by an LP point the parent sends
    (tiny tables, brute force)."""
    searched = guided = 0
    for table in tiny_interval_tables(seed=8, count=30):
        inst = build_interval_instance(table, preprocessing=False)
        if not inst.protected.size or inst.candidates.size < 4:
            continue
        if not audit(table, inst.candidates, requirement="interval",
                     cells="sensitive").protected:
            continue
        optimum = brute_force_interval(table)
        weights = inst.weights[inst.candidates]
        start = np.ones(inst.candidates.size)  # suppressing every candidate protects
        with SearchProcess(_job(inst, start, 5)) as searcher:
            assert _finished(searcher, 30)  # it waits for LP points after its searches
            found = searcher.patterns()
        costs = [float(weights @ y) for y in found]
        assert costs == sorted(costs, reverse=True) and all(c < weights @ start for c in costs)
        _protects_above(table, inst, found, optimum)
        searched += bool(found)
        if not guided:
            job = _job(inst, start, 15, support=False)
            with SearchProcess(job) as searcher:
                searcher.send_point(job.root_y)
                ends = time.perf_counter() + 15
                while not (found := searcher.patterns()) and time.perf_counter() < ends:
                    time.sleep(0.05)
            _protects_above(table, inst, found, optimum)
            guided += len(found)
        if searched >= 3 and guided:
            break
    assert searched >= 3 and guided


def test_a_stopped_or_failing_search_process_ends_and_ends_nothing(shared_instances, caplog):
    table = read_table(shared_instances / "csplib" / "hier13x7x7d.jj")
    inst = build_interval_instance(table)
    start = np.ones(inst.candidates.size)
    searcher = SearchProcess(_job(inst, start, 600, root_lp=False))  # far from done
    time.sleep(2)
    searcher.stop()
    assert not searcher.running and searcher.seconds >= 2
    with caplog.at_level(logging.WARNING), SearchProcess(
            _job(inst, start, 60, "bogus", root_lp=False)) as s:
        assert _finished(s, 60)
        assert s.patterns() == []
    assert "the search process failed: InputError" in caplog.text


@pytest.mark.slow
def test_a_solve_with_the_search_process_returns_an_audited_pattern(shared_instances,
                                                                     monkeypatch):
    """hier13x7x7d, 20 s: the searches run beside the tree (the time limit at which they do
    lowered to 20 s), every incumbent they send is checked, and the pattern passes the
    audit."""
    monkeypatch.setattr(phases, "SEARCH_PROCESS_FROM", 20.0)
    table = read_table(shared_instances / "csplib" / "hier13x7x7d.jj")
    result = solve_branch_and_cut(table, time_limit=20, processes=2)
    assert "search_process" in result.timings and "balls" not in result.timings
    assert result.audit.protected and result.lower_bound <= result.objective


@pytest.mark.slow
def test_a_search_process_that_cannot_start_leaves_the_searches_in_turn(shared_instances,
                                                                         monkeypatch, caplog):
    """No child (here: starting one fails): the root's LP-guided pattern (and the searches,
    where the root converged) run in this process, and the pattern passes the audit."""
    def refuse(job):
        raise OSError("no processes here")

    guided = []

    def counted(*args, **options):
        guided.append(1)
        return lp_guided_attacker(*args, **options)

    monkeypatch.setattr(phases, "SEARCH_PROCESS_FROM", 10.0)
    monkeypatch.setattr(phases, "SearchProcess", refuse)
    monkeypatch.setattr(phases, "lp_guided_attacker", counted)
    table = read_table(shared_instances / "csplib" / "hier13x7x7d.jj")
    with caplog.at_level(logging.WARNING):
        result = solve_branch_and_cut(table, time_limit=10, processes=2)
    assert "no search process (no processes here)" in caplog.text
    assert "search_process" not in result.timings and guided  # the root's guided pattern
    assert result.audit.protected and result.lower_bound <= result.objective


def test_no_search_process_is_started_inside_a_dask_worker():
    """A task of a Dask worker (a release's table, a subtable) gets one process: the cluster
    shares the cores out already; outside a worker, the cores this process may run on."""
    from cspopt.parallel import Workers
    from cspopt.solving.search_process import available_processes
    assert available_processes() >= 1
    with Workers(workers=2) as pool:
        assert pool.map(available_processes, [(), ()]) == [1, 1]
