"""(P) and (P_N) as sparse matrices: the fast route to a solver.

Builds exactly the model of :mod:`cspopt.models.exact.compact` (same variables, same rows) with
NumPy/SciPy in one pass, so that a solver receives it in one call (``Highs.passModel``). Handing
the Pyomo model over is 60-90x slower at 1e6 variables. The tests hold both routes to the same
LP bounds and optima.

Columns: ``x`` (one per candidate cell), then per protected cell ``k`` its ``y^k`` block, its
``w^k`` block and ``alpha^k``, as present. Rows per path: source (3)/(12)/(14)/(30), sink
(4)/(13)/(15)/(31), both as *net* flow (see :mod:`cspopt.models.exact.compact`), conservation
(5)-(6)/(16)-(17)/(21)-(22); then per protected cell the coupling (10)/(32)/(33) for every
candidate cell its paths can use.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from cspopt.backends.program import LinearProgram
from cspopt.errors import InputError
from cspopt.models.exact.instance import ExactInstance
from cspopt.models.suppression import candidate_mask

__all__ = ["MatrixModel", "PathBlock", "build_matrix"]


@dataclass(frozen=True)
class PathBlock:
    """One path's variables: ``arcs[i]`` is column ``offset + i``."""

    position: int  # index into instance.protected_cells
    up: bool  # y^k (increase) or w^k (decrease)
    arcs: np.ndarray
    offset: int


@dataclass(frozen=True)
class MatrixModel(LinearProgram):
    """(P) or (P_N) as a :class:`~cspopt.backends.program.LinearProgram`, with what decodes
    its solutions: the instance, the path blocks and the alpha columns."""

    instance: ExactInstance
    relax: bool
    blocks: tuple[PathBlock, ...]
    alpha_col: np.ndarray  # per protected cell, -1 when it has no alpha

    @property
    def num_x(self) -> int:
        return self.instance.candidates.size

    def suppressed(self, solution: np.ndarray) -> np.ndarray:
        """Secondary suppressions (cell ids) of a solution vector."""
        return self.instance.candidates[np.asarray(solution[: self.num_x]) > 0.5]

    def start_vector(self, suppressed) -> np.ndarray:
        """A full feasible solution from a pattern: ``x`` plus one path per protected cell.

        Raises :class:`InputError` when the pattern does not protect a modelled cell, and
        :class:`PatternError` when it suppresses a cell outside the model.
        """
        inst = self.instance
        chosen = candidate_mask(inst.table, inst.candidates, suppressed, "the start pattern")
        x = np.zeros(self.cost.size)
        x[: self.num_x] = chosen  # x comes first, in candidate order
        usable = np.zeros(inst.table.num_cells, bool)
        usable[inst.candidates[chosen]] = True
        usable[inst.table.sensitive_cells] = True
        for p, k in enumerate(inst.protected_cells.tolist()):
            chosen = None
            for block in (b for b in self.blocks if b.position == p):
                arcs = block.arcs[usable[inst.arc_cell[block.arcs]]]
                path = _bfs_path(inst, arcs, *inst.source_sink(p, block.up))
                if path is not None:
                    chosen = (block, path)
                    break
            if chosen is None:
                raise InputError(f"the start pattern does not protect {inst.table.describe(k)}")
            block, path = chosen
            lookup = {a: i for i, a in enumerate(block.arcs.tolist())}
            x[[block.offset + lookup[a] for a in path]] = 1.0
            if self.alpha_col[p] >= 0:
                x[self.alpha_col[p]] = 1.0 if block.up else 0.0
        return x


def _bfs_path(inst: ExactInstance, arcs: np.ndarray, source: int, sink: int):
    out: dict[int, list[int]] = {}
    for a in arcs.tolist():
        out.setdefault(int(inst.arc_tail[a]), []).append(a)
    parent = {source: None}
    queue = deque([source])
    while queue:
        v = queue.popleft()
        if v == sink:
            path = []
            while parent[v] is not None:
                a = parent[v]
                path.append(a)
                v = int(inst.arc_tail[a])
            return path[::-1]
        for a in out.get(v, ()):
            u = int(inst.arc_head[a])
            if u not in parent:
                parent[u] = a
                queue.append(u)
    return None


def build_matrix(inst: ExactInstance, *, relax: bool = False,
                 objective_floor: float | None = None) -> MatrixModel:
    """The (P)/(P_N) model of ``inst`` as sparse arrays (``relax`` drops integrality).

    ``objective_floor`` adds the row ``sum xi x >= floor``: a valid lower bound, such as
    the Lagrangian one, handed to the MIP (Almeida & Carvalho 2005 §5, last paragraph).
    """
    nx = inst.candidates.size
    rows, cols, vals = [], [], []
    row_lower, row_upper = [], []
    blocks: list[PathBlock] = []
    alpha_col = np.full(inst.protected_cells.size, -1, dtype=np.int64)
    num_cols = nx
    num_rows = 0
    nodes = np.arange(inst.num_nodes)

    def add(r, c, v):
        rows.append(np.asarray(r, np.int64))
        cols.append(np.asarray(c, np.int64))
        vals.append(np.broadcast_to(np.asarray(v, float), np.shape(r)).copy())

    for p in range(inst.protected_cells.size):
        arcs = inst.path_arcs(p)
        both = inst.needs_up[p] and inst.needs_down[p]
        path_blocks = []
        for up in (True, False):
            if not (inst.needs_up[p] if up else inst.needs_down[p]):
                continue
            block = PathBlock(p, up, arcs, num_cols)
            num_cols += arcs.size
            path_blocks.append(block)
        blocks.extend(path_blocks)
        if both:
            alpha_col[p] = num_cols
            num_cols += 1
        for block in path_blocks:
            source, sink = inst.source_sink(p, block.up)
            colidx = block.offset + np.arange(arcs.size)
            tails, heads = inst.arc_tail[arcs], inst.arc_head[arcs]
            # net flow out of the source / into the sink equals the supply: 1, alpha (y of
            # K_2) or 1 - alpha (w of K_2). Counting arcs back into the source (out of the
            # sink) matters: sensitive cells have no coupling, so a 2-cycle on another
            # sensitive cell's two arcs would otherwise satisfy (3)-(4) with no path at all.
            for leaving, entering in ((tails == source, heads == source),
                                      (heads == sink, tails == sink)):
                add(np.full(leaving.sum(), num_rows), colidx[leaving], 1.0)
                add(np.full(entering.sum(), num_rows), colidx[entering], -1.0)
                if both:
                    add([num_rows], [alpha_col[p]], -1.0 if block.up else 1.0)
                    rhs = 0.0 if block.up else 1.0
                else:
                    rhs = 1.0
                row_lower.append(rhs)
                row_upper.append(rhs)
                num_rows += 1
            inner = nodes[(nodes != source) & (nodes != sink)]
            node_row = np.full(inst.num_nodes, -1, dtype=np.int64)
            node_row[inner] = num_rows + np.arange(inner.size)
            into, outof = node_row[heads], node_row[tails]
            add(into[into >= 0], colidx[into >= 0], 1.0)
            add(outof[outof >= 0], colidx[outof >= 0], -1.0)
            row_lower.extend([0.0] * inner.size)
            row_upper.extend([0.0] * inner.size)
            num_rows += inner.size
        # coupling: sum of this cell's path arcs of cell c <= x_c, for candidate cells c
        xpos = inst.x_index[inst.arc_cell[arcs]]
        coupled = np.unique(xpos[xpos >= 0])
        if coupled.size:
            crow = np.full(nx, -1, dtype=np.int64)
            crow[coupled] = num_rows + np.arange(coupled.size)
            for block in path_blocks:
                sel = xpos >= 0
                add(crow[xpos[sel]], block.offset + np.flatnonzero(sel), 1.0)
            add(crow[coupled], coupled, -1.0)
            row_lower.extend([-np.inf] * coupled.size)
            row_upper.extend([0.0] * coupled.size)
            num_rows += coupled.size
    if objective_floor is not None and nx:
        add(np.full(nx, num_rows), np.arange(nx), inst.weights[inst.candidates])
        row_lower.append(float(objective_floor))
        row_upper.append(np.inf)
        num_rows += 1
    matrix = sp.csr_matrix(
        (np.concatenate(vals) if vals else np.zeros(0),
         (np.concatenate(rows) if rows else np.zeros(0, np.int64),
          np.concatenate(cols) if cols else np.zeros(0, np.int64))),
        shape=(num_rows, num_cols))
    cost = np.zeros(num_cols)
    cost[:nx] = inst.weights[inst.candidates]
    integer = np.zeros(num_cols, bool) if relax else np.ones(num_cols, bool)
    return MatrixModel(cost, matrix, np.array(row_lower), np.array(row_upper),
                       np.zeros(num_cols), np.ones(num_cols), integer, instance=inst,
                       relax=relax, blocks=tuple(blocks), alpha_col=alpha_col)

