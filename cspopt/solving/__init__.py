"""Solving: the front door (:func:`solve`, :func:`bound`, :func:`certify`), the options it
takes (declared once in :mod:`cspopt.options`), and the methods behind it: the
certified exact pipeline, the compact MIPs of both protections, and the branch-and-cut.
"""

from cspopt.solving.api import bound, certify, solve
from cspopt.solving.branch_and_cut import solve_branch_and_cut
from cspopt.solving.cutset import solve_cutset
from cspopt.solving.exact_mip import choose_model, solve_exact
from cspopt.solving.interval_mip import solve_interval

__all__ = ["solve", "bound", "certify", "solve_exact", "solve_interval", "solve_branch_and_cut",
           "solve_cutset", "choose_model"]
