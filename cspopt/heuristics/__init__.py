"""Heuristics: safe patterns (upper bounds) without a proof. The path heuristic with
delete-and-check and exclusion search (exact disclosure, Almeida & Carvalho 2005 §5) and the
incremental attacker (interval protection, Smith et al. 2012), also guided by an LP point,
and, for interval protection on network tables, Castro's (2007) shortest-paths heuristic,
the SP heuristic, the hypercube method, PBP and the genetic algorithm GenSup (Almeida,
Schütz & Carvalho 2008 §3-4); the hypercube method on any grid of dimensions (GHMITER's n-D
form, Repsilber 1994, :mod:`cspopt.heuristics.hypercube_grid`); on any table, Smith et al.'s (2012) self-adaptive GA over the
incremental attacker's order and their local searches over it; on any table, single-cell
MIPs against an attacker whose moves are capped at the requirement, cell by cell
(Fischetti & Salazar-Gonzalez 2001's compact model, :mod:`cspopt.heuristics.capped`).
Every pattern a caller returns passes the audit first.
"""

from cspopt.heuristics.capped import capped_sequential
from cspopt.heuristics.castro import castro_heuristic
from cspopt.heuristics.cell_arcs import PathsOutcome
from cspopt.heuristics.gensup import gensup_heuristic
from cspopt.heuristics.hypercube import hypercube_heuristic
from cspopt.heuristics.hypercube_grid import grid_totals, hypercube_grid
from cspopt.heuristics.incremental import incremental_attacker, lp_guided_attacker
from cspopt.heuristics.path import exclusion_search, path_heuristic
from cspopt.heuristics.pbp import pbp_heuristic
from cspopt.heuristics.shortest_paths import sp_heuristic
from cspopt.heuristics.smith_ga import local_search, smith_ga

__all__ = ["path_heuristic", "exclusion_search", "incremental_attacker", "lp_guided_attacker",
           "castro_heuristic", "sp_heuristic", "hypercube_heuristic", "hypercube_grid",
           "grid_totals",
           "pbp_heuristic", "gensup_heuristic", "smith_ga", "local_search", "capped_sequential",
           "PathsOutcome"]
