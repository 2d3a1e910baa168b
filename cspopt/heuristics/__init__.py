"""Heuristics: safe patterns (upper bounds) without a proof. The path heuristic with
delete-and-check and exclusion search (exact disclosure, Almeida & Carvalho 2005 §5) and the
incremental attacker (interval protection, Smith et al. 2012), also guided by an LP point,
and Castro's (2007) shortest-paths heuristic for interval protection on network tables.
Every pattern a caller returns passes the audit first.
"""

from cspopt.heuristics.castro import PathsOutcome, castro_heuristic
from cspopt.heuristics.incremental import incremental_attacker, lp_guided_attacker
from cspopt.heuristics.path import exclusion_search, path_heuristic

__all__ = ["path_heuristic", "exclusion_search", "incremental_attacker", "lp_guided_attacker",
           "castro_heuristic", "PathsOutcome"]
