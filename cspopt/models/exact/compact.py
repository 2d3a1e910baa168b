"""Pyomo models (P) and (P_N) of Almeida & Carvalho (2005) §§3.1, 4.1.

Readable definitions for methodologists to inspect and extend: each component's ``doc``
names its equation. The same model as sparse arrays is :mod:`cspopt.models.exact.matrix`
(the fast route); the tests hold both to the same LP bounds and optima.

Index sets: ``X`` candidate cells (those that may be suppressed), ``K`` protected sensitive
cells (positions), ``A`` arcs of the network form, ``YA``/``WA`` the (k, arc) pairs of the
``y``/``w`` paths, ``K2`` cells with the choice ``alpha^k``.
"""

from __future__ import annotations

import pyomo.environ as pyo

from cspopt.models.exact.instance import ExactInstance, build_instance

__all__ = ["build_p_model", "build_pn_model", "build_model_from_instance"]


def declare_var_x(m: pyo.ConcreteModel, inst: ExactInstance, *, relax: bool) -> None:
    """``x_ij`` (2)/(27): 1 when cell ``(i, j)`` is a complementary suppression."""
    m.X = pyo.Set(initialize=inst.candidates.tolist(), ordered=True,
                  doc="cells that may be suppressed: C minus S_1 and must-publish cells")
    m.x = pyo.Var(m.X, within=pyo.UnitInterval if relax else pyo.Binary,
                  doc="(2)/(27) x_ij = 1 if cell (i,j) is in S_2")


def declare_var_paths(m: pyo.ConcreteModel, inst: ExactInstance, *, relax: bool) -> None:
    """Path variables ``y^k`` (9)/(28), ``w^k`` (29) and the choice ``alpha^k`` (26)."""
    domain = pyo.UnitInterval if relax else pyo.Binary
    m.K = pyo.Set(initialize=range(inst.protected_cells.size), ordered=True,
                  doc="protected (unsafe) sensitive cells k")
    m.A = pyo.Set(initialize=range(inst.num_arcs), ordered=True, doc="arcs of G (P) or H (P_N)")
    y_pairs = [(k, int(a)) for k in m.K if inst.needs_up[k] for a in inst.path_arcs(k)]
    w_pairs = [(k, int(a)) for k in m.K if inst.needs_down[k] for a in inst.path_arcs(k)]
    m.YA = pyo.Set(initialize=y_pairs, dimen=2, doc="arcs of the path from j_k to i_k")
    m.WA = pyo.Set(initialize=w_pairs, dimen=2, doc="arcs of the path from i_k to j_k")
    m.K2 = pyo.Set(initialize=[k for k in m.K if inst.needs_up[k] and inst.needs_down[k]],
                   doc="K_2: sensitive cells that may be protected either way")
    m.y = pyo.Var(m.YA, within=domain, doc="(9)/(28) y^k_a = 1 if arc a is on the j_k -> i_k path")
    m.w = pyo.Var(m.WA, within=domain, doc="(29) w^k_a = 1 if arc a is on the i_k -> j_k path")
    m.alpha = pyo.Var(m.K2, within=domain, doc="(26) alpha^k = 1 if the j_k -> i_k path is used")


def declare_objective(m: pyo.ConcreteModel, inst: ExactInstance) -> None:
    """(1)/(11): minimise the information loss ``sum xi_ij x_ij``."""
    m.obj = pyo.Objective(expr=sum(float(inst.weights[c]) * m.x[c] for c in m.X),
                          sense=pyo.minimize, doc="(1)/(11) total weight of S_2")


def _supply(m, inst: ExactInstance, k: int, up: bool):
    """Right-hand side of the path-end rows: 1, alpha^k (12)-(13) or 1 - alpha^k (30)-(31)."""
    if inst.needs_up[k] and inst.needs_down[k]:
        return m.alpha[k] if up else 1 - m.alpha[k]
    return 1


def declare_eq_path_ends(m: pyo.ConcreteModel, inst: ExactInstance) -> None:
    """Path ends: the net flow out of the source and into the sink equals the supply.

    (3)-(4) for (P); (12)-(13) and (30)-(31) for ``K_2``; (14)-(15) for ``K_1``. The paper
    counts only the arcs leaving ``j_k`` and entering ``i_k``. Because sensitive cells have no
    coupling constraint, that lets a 2-cycle on another sensitive cell's two arcs at each end
    satisfy (3)-(4) with no ``j_k -> i_k`` path at all. cspopt's audit found such patterns,
    so the rows subtract the arcs entering the source and leaving the sink.
    """
    tail, head = inst.arc_tail, inst.arc_head

    def ends(var, up):
        def rule(_, k, end):
            source, sink = inst.source_sink(k, up)
            arcs = inst.path_arcs(k)
            node = source if end == "source" else sink
            outward = arcs[tail[arcs] == node] if end == "source" else arcs[head[arcs] == node]
            inward = arcs[head[arcs] == node] if end == "source" else arcs[tail[arcs] == node]
            return (sum(var[k, int(a)] for a in outward) - sum(var[k, int(a)] for a in inward)
                    == _supply(m, inst, k, up))
        return rule

    ks_up = [k for k in m.K if inst.needs_up[k]]
    ks_down = [k for k in m.K if inst.needs_down[k]]
    m.y_ends = pyo.Constraint(ks_up, ["source", "sink"], rule=ends(m.y, True),
                              doc="(3)-(4)/(12)-(13)/(14)-(15) y path leaves j_k, enters i_k")
    m.w_ends = pyo.Constraint(ks_down, ["source", "sink"], rule=ends(m.w, False),
                              doc="(30)-(31) w path leaves i_k, enters j_k")


def declare_eq_conservation(m: pyo.ConcreteModel, inst: ExactInstance) -> None:
    """(5)-(6)/(16)-(17) for ``y``, (21)-(22) for ``w``: flow conservation at inner nodes."""
    tail, head = inst.arc_tail, inst.arc_head
    nodes = range(inst.num_nodes)

    def build(var, needs, up):
        index = []
        for k in m.K:
            if not needs[k]:
                continue
            source, sink = inst.source_sink(k, up)
            index.extend((k, v) for v in nodes if v not in (source, sink))
        arcs_of = {k: inst.path_arcs(k) for k in m.K if needs[k]}
        into = {k: {} for k in arcs_of}
        out = {k: {} for k in arcs_of}
        for k, arcs in arcs_of.items():
            for a in arcs.tolist():
                into[k].setdefault(int(head[a]), []).append(a)
                out[k].setdefault(int(tail[a]), []).append(a)

        def rule(_, k, v):
            return (sum(var[k, a] for a in into[k].get(v, ()))
                    - sum(var[k, a] for a in out[k].get(v, ())) == 0)
        return index, rule

    index, rule = build(m.y, inst.needs_up, True)
    m.y_conservation = pyo.Constraint(pyo.Set(initialize=index, dimen=2), rule=rule,
                                      doc="(5)-(6)/(16)-(17) conservation of the y paths")
    index, rule = build(m.w, inst.needs_down, False)
    m.w_conservation = pyo.Constraint(pyo.Set(initialize=index, dimen=2), rule=rule,
                                      doc="(21)-(22) conservation of the w paths")


def declare_ineq_coupling(m: pyo.ConcreteModel, inst: ExactInstance) -> None:
    """Aggregated coupling (10) for (P), lifted coupling (32)-(33) for (P_N).

    ``sum_{arcs a of cell c} (y^k_a + w^k_a) <= x_c`` for every candidate cell ``c`` the paths
    of ``k`` can use.
    """
    pairs = []
    terms: dict[tuple[int, int], list] = {}
    for k in m.K:
        for a in inst.path_arcs(k).tolist():
            c = int(inst.arc_cell[a])
            if inst.x_index[c] < 0:
                continue
            key = (k, c)
            if key not in terms:
                terms[key] = []
                pairs.append(key)
            if inst.needs_up[k]:
                terms[key].append(m.y[k, a])
            if inst.needs_down[k]:
                terms[key].append(m.w[k, a])
    m.coupling = pyo.Constraint(pyo.Set(initialize=pairs, dimen=2),
                                rule=lambda _, k, c: sum(terms[k, c]) <= m.x[c],
                                doc="(10)/(32)/(33) a used arc's cell is suppressed")


def build_model_from_instance(inst: ExactInstance, *, relax: bool = False) -> pyo.ConcreteModel:
    """Assemble the Pyomo model of a prebuilt instance."""
    m = pyo.ConcreteModel(name=f"({inst.model}) {inst.table.name}".strip(),
                          doc="Almeida & Carvalho (2005) " +
                          ("(P) eqs (1)-(10)" if inst.model == "P" else
                           "(P_N) eqs (11)-(17), (21)-(22), (26)-(33)"))
    declare_var_x(m, inst, relax=relax)
    declare_var_paths(m, inst, relax=relax)
    declare_objective(m, inst)
    declare_eq_path_ends(m, inst)
    declare_eq_conservation(m, inst)
    declare_ineq_coupling(m, inst)
    m.instance = inst  # the arrays the model was built from, for decoding
    return m


def build_p_model(table, *, relax: bool = False, **options) -> pyo.ConcreteModel:
    """(P) for general tables, Almeida & Carvalho (2005) eqs (1)-(9) with coupling (10).

    One directed path per sensitive cell from ``j_k`` to ``i_k`` avoiding the cell's own arcs.
    The LP relaxation (``relax=True``) equals the Lagrangian dual bound of (P_lambda) (§3.2).
    ``options`` go to :func:`~cspopt.models.exact.instance.build_instance`.
    """
    return build_model_from_instance(build_instance(table, "P", **options), relax=relax)


def build_pn_model(table, *, relax: bool = False, **options) -> pyo.ConcreteModel:
    """(P_N) for nonnegative integer tables, Almeida & Carvalho (2005) §4.1.

    Eqs (11)-(17), (30)-(31), (21)-(22), lifted coupling (32)-(33), on the arc set ``F`` of graph
    ``H`` (zero cells have no decreasing arc). ``K_1`` cells need the ``j_k -> i_k`` path;
    ``K_2`` cells choose a direction with ``alpha^k``.
    """
    return build_model_from_instance(build_instance(table, "PN", **options), relax=relax)
