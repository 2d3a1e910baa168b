"""Exact disclosure: (P) for general 2-D tables and (P_N) for nonnegative integer ones
(Almeida & Carvalho 2005). :func:`build_instance` validates a table into the arrays every
method reads (:class:`ExactInstance`); :mod:`~cspopt.models.exact.compact` is the readable
Pyomo model (imported on its own: it loads Pyomo), :mod:`~cspopt.models.exact.matrix` the
same model as sparse arrays, and :class:`PathOracle` the shortest paths the Lagrangian and
the heuristics share.
"""

from cspopt.models.exact.instance import (
                                          MODELS,
                                          ExactInstance,
                                          bounds_bind,
                                          build_instance,
                                          modelled_table,
                                          preprocess,
)
from cspopt.models.exact.matrix import MatrixModel, build_matrix
from cspopt.models.exact.paths import PathOracle

__all__ = ["ExactInstance", "build_instance", "preprocess", "bounds_bind", "modelled_table",
           "MODELS", "MatrixModel", "build_matrix", "PathOracle"]
