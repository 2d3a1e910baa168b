"""Seeded business-survey microdata for tests, examples and benchmarks.

The design of Smith et al. (2012) §VII for realistic magnitude tables: the number of
respondents of each bottom-level cell is Poisson, and each respondent's contribution is
``-1 / log r`` with ``r`` uniform on (0, 1) (heavy-tailed: a few dominant respondents, as in
business surveys), here scaled and rounded to whole units. Cells with no respondent are
empty; cells with one or two are common at small means.
"""

from __future__ import annotations

import numpy as np

__all__ = ["business_survey", "hierarchical_survey"]


def business_survey(*, regions: int = 4, provinces: int = 3, activities: int = 6,
                    mean_respondents: float = 3.0, scale: float = 100.0,
                    seed: int = 0) -> tuple[dict[str, list], dict[str, str]]:
    """Microdata over ``region`` (a two-level hierarchy: ``regions`` regions of
    ``provinces`` provinces each, codes ``R1``, ``R1.1``, ...) and ``activity`` (flat,
    codes ``A1`` ...), with a ``turnover`` response and an ``employees`` count.

    Returns the columns (a dict: ``pandas.DataFrame(columns)`` if wanted) and the province
    -> region parent map (the hierarchy to pass to :func:`cspopt.microdata.protect`).
    """
    rng = np.random.default_rng(seed)
    columns: dict[str, list] = {"id": [], "province": [], "activity": [], "turnover": [],
                                "employees": []}
    parent = {}
    for r in range(1, regions + 1):
        for p in range(1, provinces + 1):
            province = f"R{r}.{p}"
            parent[province], parent[f"R{r}"] = f"R{r}", "Total"
            for a in range(1, activities + 1):
                for _ in range(int(rng.poisson(mean_respondents))):
                    size = -1.0 / np.log(rng.uniform(1e-12, 1.0))
                    columns["id"].append(len(columns["id"]) + 1)
                    columns["province"].append(province)
                    columns["activity"].append(f"A{a}")
                    columns["turnover"].append(float(max(1.0, round(scale * size))))
                    columns["employees"].append(int(1 + rng.poisson(2 * size)))
    return columns, parent


def hierarchical_survey(levels: dict[str, tuple[int, ...]], *, records: int,
                        concentration: float = 1.2, scale: float = 100.0,
                        seed: int = 0) -> tuple[dict[str, list], dict[str, dict[str, str]]]:
    """Microdata over several dimensions, each a hierarchy of given branching per level.

    ``levels`` maps a dimension's name to its branching factors, top level first: e.g.
    ``{"region": (4, 4), "activity": (5, 4), "size": (11,)}`` gives 4 regions of 4
    provinces, 5 sections of 4 divisions, and 11 flat size classes (codes ``region1``,
    ``region1.2``, ...). ``records`` respondents fall on bottom-level cells with
    Zipf-like weights (cell ``k`` of a random order weighted ``1 / k**(concentration -
    1)``, so that, as in business surveys, a few cells are dense and many hold one or two
    respondents); each contributes ``-1 / log r`` (Smith et al. 2012 §VII), scaled and
    rounded to whole units, in a ``turnover`` column.

    Returns the columns and, per dimension with more than one level, its parent map (the
    hierarchies to pass to :func:`cspopt.microdata.protect`).
    """
    rng = np.random.default_rng(seed)
    leaves, hierarchies = {}, {}
    for name, branching in levels.items():
        codes, parent = [name], {}
        for fan in branching:
            below = []
            for code in codes:
                for k in range(1, fan + 1):
                    child = f"{code}{k}" if code == name else f"{code}.{k}"
                    parent[child] = code if code != name else "Total"
                    below.append(child)
            codes = below
        leaves[name] = codes
        if len(branching) > 1:
            hierarchies[name] = parent
    sizes = [len(codes) for codes in leaves.values()]
    cells = int(np.prod(sizes))
    weights = 1.0 / np.arange(1, cells + 1) ** max(concentration - 1.0, 0.0)
    chosen = rng.permutation(cells)[rng.choice(cells, size=records, p=weights / weights.sum())]
    coordinates = np.unravel_index(chosen, sizes)
    columns: dict[str, list] = {"id": list(range(1, records + 1))}
    for (name, codes), at in zip(leaves.items(), coordinates):
        columns[name] = [codes[i] for i in at.tolist()]
    size = -1.0 / np.log(rng.uniform(1e-12, 1.0, size=records))
    columns["turnover"] = np.maximum(1.0, np.round(scale * size)).tolist()
    return columns, hierarchies
