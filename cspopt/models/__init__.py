"""The optimisation models: exact disclosure ((P), (P_N) of Almeida & Carvalho 2005) in
:mod:`cspopt.models.exact`, interval protection (Fischetti & Salazar-Gonzalez 2001) in
:mod:`cspopt.models.interval`, and the options both share (:mod:`cspopt.models.suppression`).
"""
