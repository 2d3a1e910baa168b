"""GaussSuppression (Statistics Norway) as the exact-disclosure peer of ``cspopt bench exact``.

GaussSuppression (Langsrud 2024; R packages SSBtools and GaussSuppression) publishes the
candidate cells one by one, in the order given, each only if no primary cell becomes a
linear combination of the published cells, by Gaussian elimination over the model matrix
``x`` (``published values = t(x) %*% inner values``). It sees no a-priori bounds and
does not optimise cost. Here it runs on the very table cspopt solves: ``x`` is the
kernel basis of the table's relations (:func:`cspopt.table.kernel.kernel_basis`: every
completion is ``N z``, so ``x = N^T``), primary cells the sensitive ones, forced (never
suppressed) the cells that must be published, the candidates by decreasing cost, ties by
the number of kernel coordinates a cell holds (big aggregates published first) -- the
package's own default order (``CandidatesDefault``) with the table's costs as weights.
A value order (decreasing ``|value|``, ``CandidatesNum``) is the other order the package
offers; the peer's row is the cheaper of the two.

Needs ``Rscript`` with SSBtools on the path; :func:`gauss_missing` says why not otherwise
(the benchmark then skips the peer with that note).
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

from cspopt.table.kernel import kernel_basis

__all__ = ["gauss_missing", "run_gauss", "ORDERS"]

#: the candidate orders the peer is run with (its two built-in orders)
ORDERS = ("cost", "value")

_DRIVER = r"""
suppressPackageStartupMessages({library(Matrix); library(SSBtools)})
args <- commandArgs(trailingOnly = TRUE)
spec <- readLines(args[1])
num <- function(key) as.numeric(strsplit(sub(paste0("^", key, " ?"), "",
                                              grep(paste0("^", key, "( |$)"), spec,
                                                   value = TRUE)), " ")[[1]])
dims <- num("dims")
x <- sparseMatrix(i = num("i") + 1, j = num("j") + 1, x = num("v"), dims = dims)
t0 <- proc.time()[["elapsed"]]
s <- GaussSuppression(x, candidates = num("candidates") + 1, primary = num("primary") + 1,
                      forced = num("forced") + 1, singletonMethod = "none",
                      printInc = FALSE, unsafeAsNegative = TRUE)
t1 <- proc.time()[["elapsed"]]
writeLines(c(paste(c("secondary", sort(s[s > 0]) - 1), collapse = " "),
             paste(c("unsafe", sort(-s[s < 0]) - 1), collapse = " "),
             paste("seconds", t1 - t0)), args[2])
"""


def gauss_missing() -> str | None:
    """Why the peer cannot run here (``None`` where it can): no ``Rscript``, or R without
    the SSBtools package."""
    rscript = shutil.which("Rscript")
    if rscript is None:
        return "GaussSuppression not run: no Rscript on the path (R not installed)"
    probe = subprocess.run([rscript, "-e", "quit(status = !requireNamespace('SSBtools', "
                                           "quietly = TRUE))"], capture_output=True)
    if probe.returncode != 0:
        return "GaussSuppression not run: R has no SSBtools package"
    return None


def run_gauss(table, *, timeout: float = 3600.0) -> dict:
    """GaussSuppression's pattern on ``table`` in each of :data:`ORDERS`; the cheapest:
    ``{"suppressed": secondary cell ids, "cost", "seconds" (the whole R run, start-up
    included), "gauss_seconds" (the elimination alone), "order", "unsafe" (primary cells
    it reports unprotected)}``, or ``{"error": text}`` where R failed or timed out."""
    basis = kernel_basis(table.relation_matrix)
    if basis is None:
        return {"error": "relations that are not sums: no sparse kernel basis for x"}
    x = basis.T.tocoo()
    forced = np.flatnonzero(table.must_publish & ~table.sensitive)
    free = np.setdiff1d(np.arange(table.num_cells), np.union1d(forced, table.sensitive_cells))
    held = np.diff(basis.tocsr().indptr)  # kernel coordinates per cell: the tie-break
    keys = {"cost": np.asarray(table.costs, dtype=float), "value": np.abs(table.values)}
    best = None
    for order in ORDERS:
        candidates = free[np.lexsort((-held[free], -keys[order][free]))]
        run = _run(x, candidates, table.sensitive_cells, forced, timeout)
        if "error" in run:
            return run
        run["order"] = order
        run["cost"] = float(np.asarray(table.costs, dtype=float)[run["suppressed"]].sum())
        if best is None or run["cost"] < best["cost"]:
            best = run
    return best


def _run(x, candidates, primary, forced, timeout: float) -> dict:
    """One ``Rscript`` run of the driver."""
    def line(key, values):
        return " ".join([key, *(f"{v:.17g}" if isinstance(v, float) else str(v)
                                for v in np.asarray(values).tolist())])

    with tempfile.TemporaryDirectory() as folder:
        spec, out, driver = (Path(folder, n) for n in ("spec.txt", "out.txt", "driver.R"))
        driver.write_text(_DRIVER)
        spec.write_text("\n".join([line("dims", x.shape), line("i", x.row), line("j", x.col),
                                   line("v", x.data.astype(float)),
                                   line("candidates", candidates), line("primary", primary),
                                   line("forced", forced)]) + "\n")
        started = time.perf_counter()
        try:
            done = subprocess.run(["Rscript", str(driver), str(spec), str(out)],
                                  capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return {"error": f"GaussSuppression did not finish in {timeout:g} s"}
        seconds = time.perf_counter() - started
        if done.returncode != 0 or not out.exists():
            tail = done.stderr.strip().splitlines()[-1:] or ["no output"]
            return {"error": f"GaussSuppression failed: {tail[0]}"}
        fields = {t[0]: t[1:] for t in (s.split() for s in out.read_text().splitlines()) if t}
    return {"suppressed": [int(float(c)) for c in fields["secondary"]],
            "unsafe": [int(float(c)) for c in fields["unsafe"]],
            "gauss_seconds": float(fields["seconds"][0]), "seconds": seconds}

