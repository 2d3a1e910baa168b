"""Solver back-ends, one module per engine: :mod:`~cspopt.backends.highs` (the embedded
default: LPs, the compact MIPs, the attacker LPs), :mod:`~cspopt.backends.scip`
(branch-and-cut, which needs SCIP's constraint-handler callbacks),
:mod:`~cspopt.backends.pyomo` (the readable models' route) and
:mod:`~cspopt.backends.console` (keeping C-level solver output off the result's stdout).
"""
