"""Seeded business-survey microdata for tests, examples and benchmarks.

The design of Smith et al. (2012) §VII for realistic magnitude tables: the number of
respondents of each bottom-level cell is Poisson, and each respondent's contribution is
``-1 / log r`` with ``r`` uniform on (0, 1) (heavy-tailed: a few dominant respondents, as in
business surveys), here scaled and rounded to whole units. Cells with no respondent are
empty; cells with one or two are common at small means.
"""

from __future__ import annotations

import numpy as np

__all__ = ["business_survey"]


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
