"""Lower bounds: the Lagrangian dual of (P)/(P_N) (Almeida & Carvalho 2005 §3.2, §4.2) with
its maximisers and cut packing, the capacity LP of interval protection (Fischetti &
Salazar-Gonzalez 2001) with one sensitive cell's own MIP beside it, and the line bound of
Kelly et al. (1992) and Castro (2007). Every bound returned is valid for the model's optimum.
"""

from cspopt.bounds.capacity import capacity_bound, capacity_lp
from cspopt.bounds.cut_packing import CutPool
from cspopt.bounds.dual import STEP_RULES, cutting_plane, subgradient
from cspopt.bounds.lagrangian import (
                                      LagrangianState,
                                      Multipliers,
                                      dual_ascent,
                                      end_multipliers,
                                      evaluate,
                                      initial_multipliers,
                                      project_capped,
                                      tight_multipliers,
)
from cspopt.bounds.lines import line_bound
from cspopt.bounds.single_cell import SingleCellBound, dominant_cell, single_cell_bound
from cspopt.bounds.star_cuts import StarBound, star_bound

__all__ = ["capacity_bound", "capacity_lp", "CutPool", "subgradient", "cutting_plane",
           "STEP_RULES", "LagrangianState", "Multipliers", "dual_ascent", "end_multipliers",
           "evaluate", "initial_multipliers", "project_capped", "tight_multipliers",
           "line_bound", "SingleCellBound", "dominant_cell", "single_cell_bound",
           "StarBound", "star_bound"]
