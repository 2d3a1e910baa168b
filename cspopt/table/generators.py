"""Seeded random instances reproducing the test designs of the source papers.

Every generator takes the internal size ``m x n`` (the paper tables list ``m+1`` and ``n+1``,
totals included), a ``seed`` and a cost preset, and returns a :class:`~cspopt.Table` with
marginals. The same seed gives the same table (``numpy.random.default_rng``, PCG64).

========== ===============================================================================
kind        design
========== ===============================================================================
class1      GenSup class I (Almeida, Schutz & Carvalho 2008 §6.1; Fischetti & Salazar 1999)
class2      GenSup class II (ibid.; the rules of Kelly, Golden & Assad 1992)
ac-set1     Almeida & Carvalho (2005) §5, first data set (after Fischetti-Salazar/Benedetti)
ac-set2     Almeida & Carvalho (2005) §5, second data set (Kelly et al. at 25 % density)
smith       Smith, Clark, Staggemeier & Serpell (2012) Table II factors
hier        2-D table whose row dimension is a two-level hierarchy (Castro 2007 Fig. 5)
========== ===============================================================================
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from cspopt.errors import InputError
from cspopt.table import Table
from cspopt.table.structure import Dimension

__all__ = ["generate", "KINDS", "gensup_class1", "gensup_class2", "almeida_carvalho_set1",
           "almeida_carvalho_set2", "smith_factors", "hierarchical_2d"]


def _check_size(m: int, n: int) -> None:
    if int(m) < 1 or int(n) < 1:
        raise InputError(f"a table needs at least one internal row and column, got {m} x {n}")


def _full(internal: np.ndarray) -> np.ndarray:
    """The ``(m+1) x (n+1)`` grid with marginals of ``internal``."""
    m, n = internal.shape
    full = np.zeros((m + 1, n + 1), dtype=internal.dtype)
    full[:m, :n] = internal
    full[m, :n] = internal.sum(axis=0)
    full[:m, n] = internal.sum(axis=1)
    full[m, n] = internal.sum()
    return full


def _from_grid(internal, sensitive, lower, upper, *, zeros_published: bool, costs, name):
    full = _full(internal)
    return Table.from_array(
        internal, sensitive=sensitive, must_publish=(full == 0) & ~sensitive if zeros_published
        else None, lower_protection=np.where(sensitive, lower, 0.0),
        upper_protection=np.where(sensitive, upper, 0.0), costs=costs, name=name)


def gensup_class1(m: int, n: int, *, seed: int = 0, costs: str = "value") -> Table:
    """GenSup class I (Almeida, Schutz & Carvalho 2008 §6.1).

    Internal values uniform integers in ``[0, 499]``; every internal cell with value in
    ``[1, 4]`` is sensitive with upper protection ``a`` and lower protection ``a - 1``; zero
    cells may not be suppressed; cost = value. (These rules go back to Fischetti & Salazar
    1999, on the advice of ISTAT.)
    """
    return _small_values_sensitive(m, n, seed, costs, 499, "class1")


def _small_values_sensitive(m, n, seed, costs, max_value, kind) -> Table:
    """Values U{0..max_value}; internal cells valued 1-4 sensitive, upl = a, lpl = a - 1."""
    _check_size(m, n)
    rng = np.random.default_rng(seed)
    internal = rng.integers(0, max_value + 1, size=(m, n))
    full = _full(internal)
    sens = np.zeros_like(full, dtype=bool)
    sens[:m, :n] = (internal >= 1) & (internal <= 4)
    return _from_grid(internal, sens, full - 1.0, full.astype(float), zeros_published=True,
                      costs=costs, name=f"{kind}-{m}x{n}-s{seed}")


def _kelly(m: int, n: int, seed: int, costs, p_internal: float, p_marginal: float, *,
           exact_counts: bool, zeros_published: bool, kind: str) -> Table:
    """Kelly et al.'s rules: values U{0..1000}, sensitive nonzero internal/marginal cells with
    the given rates (as exact counts or Bernoulli draws), protection ``ceil(0.15 a)``."""
    _check_size(m, n)
    rng = np.random.default_rng(seed)
    internal = rng.integers(0, 1001, size=(m, n))
    full = _full(internal)
    is_marginal = np.zeros_like(full, dtype=bool)
    is_marginal[m, :] = True
    is_marginal[:, n] = True
    sens = np.zeros_like(full, dtype=bool)
    for region, p in ((~is_marginal, p_internal), (is_marginal, p_marginal)):
        candidates = np.flatnonzero(region & (full > 0))
        if exact_counts:
            k = min(candidates.size, int(round(p * np.count_nonzero(region))))
            sens.flat[rng.choice(candidates, size=k, replace=False)] = True
        else:
            sens.flat[candidates[rng.random(candidates.size) < p]] = True
    protection = np.ceil(0.15 * full)
    return _from_grid(internal, sens, protection, protection, zeros_published=zeros_published,
                      costs=costs, name=f"{kind}-{m}x{n}-s{seed}")


def gensup_class2(m: int, n: int, *, seed: int = 0, costs: str = "value") -> Table:
    """GenSup class II (Almeida, Schutz & Carvalho 2008 §6.1; Kelly et al. 1992).

    Internal values uniform integers in ``[0, 1000]``; internal cells are sensitive with
    probability 0.2 and marginal cells (grand total included) with probability 0.1; lower and
    upper protection are ``ceil(0.15 a)``; zero cells may not be suppressed; cost = value.
    Choice: only nonzero cells are drawn as sensitive (a zero cell with 15 % protection needs
    none, and may not be suppressed).
    """
    return _kelly(m, n, seed, costs, 0.2, 0.1, exact_counts=False, zeros_published=True,
                  kind="class2")


def almeida_carvalho_set1(m: int, n: int, *, seed: int = 0, costs: str = "value",
                          max_value: int = 99) -> Table:
    """First data set of Almeida & Carvalho (2005) §5 (Table 2).

    The paper reproduces Fischetti & Salazar (1999)'s tables and states only that zero cells
    may not be suppressed. GenSup §6.1 gives that design's rule: cells with values in
    ``[1, 4]`` are sensitive. Choice: internal values are uniform integers in
    ``[0, max_value]`` with ``max_value = 99``, because the ``[0, 499]`` range of GenSup's class I
    gives 0.8 % sensitive cells while Table 2 reports about 4 % (``p`` = 7.6 of 171 internal
    cells at 20x10, 1602.2 of 39601 at 200x200); ``1..4`` out of ``0..99`` gives 4 %.
    Protection levels as class I (for interval use); cost = value.
    """
    return _small_values_sensitive(m, n, seed, costs, max_value, "ac-set1")


def almeida_carvalho_set2(m: int, n: int, *, seed: int = 0, costs: str = "value") -> Table:
    """Second data set of Almeida & Carvalho (2005) §5 (Tables 3-4).

    Kelly et al.'s rules (as GenSup class II: values in ``[0, 1000]``, protection
    ``ceil(0.15 a)``) with the density of sensitive cells cut to 25 %: 5 % of the internal and
    2.5 % of the marginal cells. Choice: exactly ``round(0.05 m n)`` internal and
    ``round(0.025 (m + n + 1))`` marginal cells, drawn among the nonzero ones, because Table 3
    reports the same ``p`` for all ten tables of most sizes (24.0 at 50x10, 49.0 at 50x20).
    Zero cells may be suppressed: this set is solved with (P_N).
    """
    return _kelly(m, n, seed, costs, 0.05, 0.025, exact_counts=True, zeros_published=False,
                  kind="ac-set2")


def smith_factors(m: int, n: int, *, seed: int = 0, costs: str = "value",
                  sensitive: float = 0.10, zeros: float = 0.25,
                  protection: float = 0.10) -> Table:
    """A magnitude table for the factor design of Smith et al. (2012) Table II.

    Factors: rows, columns, fraction of sensitive cells (0.10 or 0.02) and fraction of zero
    cells (0.25 or 0.05); the paper's tables came from ONS's unpublished generator. Choice:
    nonzero internal values ``ceil(LogNormal(log 1000, 1.5))`` (skewed, like business
    magnitudes), zero cells with probability ``zeros`` (published, as tau-ARGUS treats empty
    cells), sensitive nonzero internal cells with probability ``sensitive``, lower and upper
    protection ``ceil(protection * a)``.
    """
    _check_size(m, n)
    for name, frac in (("sensitive", sensitive), ("zeros", zeros), ("protection", protection)):
        if not 0 <= frac <= 1:
            raise InputError(f"{name} must be a fraction in [0, 1], got {frac}")
    rng = np.random.default_rng(seed)
    internal = np.ceil(rng.lognormal(math.log(1000), 1.5, size=(m, n))).astype(np.int64)
    internal[rng.random((m, n)) < zeros] = 0
    full = _full(internal)
    sens = np.zeros_like(full, dtype=bool)
    sens[:m, :n] = (internal > 0) & (rng.random((m, n)) < sensitive)
    prot = np.ceil(protection * full)
    return _from_grid(internal, sens, prot, prot, zeros_published=True, costs=costs,
                      name=f"smith-{m}x{n}-s{seed}")


def hierarchical_2d(m: int, n: int, *, seed: int = 0, costs: str = "value",
                    groups: int | None = None) -> Table:
    """A 2-D table whose row dimension is a two-level hierarchy (Castro 2007 Fig. 5).

    The ``m`` leaf rows are split into ``groups`` consecutive groups (default
    ``ceil(sqrt(m))``), each with a subtotal row; the total is the sum of the subtotals. Values
    and protection as GenSup class II with 10 % sensitive internal cells; zero cells published.
    Cells are ordered row-major with each subtotal row before its leaves and the totals first.
    """
    _check_size(m, n)
    groups = groups or max(1, math.ceil(math.sqrt(m)))
    if not 1 <= groups <= m:
        raise InputError(f"groups must be between 1 and {m}, got {groups}")
    rng = np.random.default_rng(seed)
    internal = rng.integers(0, 1001, size=(m, n))
    bounds = np.linspace(0, m, groups + 1).round().astype(int)
    row_codes, parent, row_sums = ["T"], {}, [internal.sum(axis=0)]
    leaf_rows = []
    for g in range(groups):
        code = f"G{g + 1}"
        row_codes.append(code)
        parent[code] = "T"
        row_sums.append(internal[bounds[g]:bounds[g + 1]].sum(axis=0))
        for r in range(bounds[g], bounds[g + 1]):
            leaf = f"R{r + 1}"
            row_codes.append(leaf)
            parent[leaf] = code
            row_sums.append(internal[r])
            leaf_rows.append(len(row_sums) - 1)
    rows = Dimension("row", tuple(row_codes), parent)
    cols = Dimension.flat("col", ["T"] + [f"C{j + 1}" for j in range(n)], total="T")
    grid = np.array([np.concatenate([[s.sum()], s]) for s in row_sums])
    labels = [(r, c) for r in rows.codes for c in cols.codes]
    sens = np.zeros_like(grid, dtype=bool)
    leaf_mask = np.zeros(len(row_codes), dtype=bool)
    leaf_mask[leaf_rows] = True
    sens[leaf_mask, 1:] = (grid[leaf_mask, 1:] > 0) & (rng.random((m, n)) < 0.1)
    prot = np.where(sens, np.ceil(0.15 * grid), 0.0)
    status = np.where(sens, "u", np.where(grid == 0, "z", "s")).reshape(-1)
    return Table.from_labels(labels, grid.reshape(-1), (rows, cols), status=status,
                             lower_protection=prot.reshape(-1), upper_protection=prot.reshape(-1),
                             apriori_upper=math.ceil(1.5 * grid[0, 0]), costs=costs,
                             name=f"hier-{m}x{n}-s{seed}")


KINDS: dict[str, Callable[..., Table]] = {
    "class1": gensup_class1,
    "class2": gensup_class2,
    "ac-set1": almeida_carvalho_set1,
    "ac-set2": almeida_carvalho_set2,
    "smith": smith_factors,
    "hier": hierarchical_2d,
}


def generate(kind: str, m: int, n: int, *, seed: int = 0, costs: str = "value",
             **options) -> Table:
    """Dispatch to the generator named ``kind`` (see :data:`KINDS`)."""
    if kind not in KINDS:
        raise InputError(f"unknown generator {kind!r}; choose from {sorted(KINDS)}")
    return KINDS[kind](m, n, seed=seed, costs=costs, **options)
