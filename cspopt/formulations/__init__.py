"""Exact-disclosure formulations (P) and (P_N) of Almeida & Carvalho (2005)."""

from cspopt.formulations.instance import ExactInstance, build_instance, preprocess
from cspopt.formulations.matrix import MatrixModel, build_matrix
from cspopt.formulations.solve import choose_model, solve_exact

__all__ = ["ExactInstance", "build_instance", "preprocess", "MatrixModel", "build_matrix",
           "solve_exact", "choose_model"]
