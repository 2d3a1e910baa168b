"""Pictures people look at instead of reading: the bounds of one solve against time
(:func:`plot_bounds`), and a suppression pattern as the table's grid (:func:`plot_pattern`).
Both need the ``plot`` extra (matplotlib)."""

from __future__ import annotations

import itertools
import math
import os

import numpy as np

from cspopt.errors import InputError, MissingExtraError

__all__ = ["plot_bounds", "plot_pattern", "require_matplotlib"]

#: cell colours of :func:`plot_pattern`
_COLOURS = {"published": "#ffffff", "primary": "#d62728", "secondary": "#ff9f1c",
            "empty": "#d9d9d9"}
#: at most this many slices (grids) of a table with more than two dimensions
_MAX_SLICES = 16


def require_matplotlib():
    """matplotlib, or :class:`MissingExtraError` naming the extra (callers check before a
    solve whose picture is asked for)."""
    try:
        import matplotlib
    except ImportError:
        raise MissingExtraError("plotting needs matplotlib: pip install 'cspopt[plot]'") from None
    return matplotlib


def _pyplot():
    matplotlib = require_matplotlib()
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def plot_bounds(result, path: str | os.PathLike, *, title: str | None = None) -> None:
    """Write a PNG of the lower and upper bounds in ``result.history`` against time.

    Needs the ``plot`` extra (matplotlib): :class:`MissingExtraError` otherwise."""
    plt = _pyplot()
    history = [h for h in result.history if "time" in h]
    times = [h["time"] for h in history]
    lower = [h["lower_bound"] for h in history]
    upper = [h["upper_bound"] if math.isfinite(h["upper_bound"]) else float("nan")
             for h in history]
    fig, ax = plt.subplots(figsize=(7, 4.2), dpi=120)
    ax.step(times, upper, where="post", label="upper bound (incumbent)", color="tab:red")
    ax.step(times, lower, where="post", label="lower bound", color="tab:blue")
    for h in history:
        if h.get("phase") in ("lp", "mip"):  # the heuristic's record needs no marker
            ax.axvline(h["time"], color="grey", lw=0.6, ls=":")
            ax.annotate(h["phase"].upper(), (h["time"], h["lower_bound"]), fontsize=8,
                        xytext=(3, -12), textcoords="offset points")
    ax.set_xlabel("seconds")
    ax.set_ylabel("cost of complementary suppressions")
    verdict = ("proven optimal (" + result.proof + ")" if result.proven_optimal
               else f"gap {100 * result.gap:.2f} %")
    ax.set_title(title or f"{result.method}: {verdict}", fontsize=9)
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    fig.savefig(os.fspath(path))
    plt.close(fig)


def _short(value: float) -> str:
    """A cell value in at most five characters or so: 812, 4.5k, 12k, 3.1M."""
    for scale, suffix in ((1e6, "M"), (1e3, "k")):
        if abs(value) >= 10 * scale:
            return f"{value / scale:.0f}{suffix}"
        if abs(value) >= scale:
            return f"{value / scale:.1f}{suffix}"
    return f"{value:.4g}"


def _display_order(dim) -> list[str]:
    """Codes of ``dim`` as a table shows them: each subtotal after its children, the
    total last."""
    out: list[str] = []

    def visit(code: str) -> None:
        for child in dim.children(code):
            visit(child)
        out.append(code)
    visit(dim.total)
    return out


def plot_pattern(table, suppressed, path: str | os.PathLike, *, empty=None,
                 title: str | None = None, values: bool | None = None,
                 views: list[list[str]] | None = None) -> None:
    """Write a PNG of the pattern ``suppressed`` (cell ids, sensitive cells included or
    not) on the labelled ``table``: a grid of its last two dimensions with primaries,
    secondaries and ``empty`` cells (a mask) coloured and totals and subtotals set apart
    by heavier lines; a table of more dimensions as one grid per combination of the
    others' codes (the first 16 in all). ``views``: lists of dimension names to draw
    instead, each the same way with every other dimension at its total (linked tables:
    one view per table). ``values``: write each cell's value (default: grids up to 25 x
    25). Needs labels (tables built from codes, microdata or arrays)."""
    if table.labels is None or not table.dimensions or len(table.dimensions) < 2:
        raise InputError("the pattern picture needs a table labelled by two or more "
                         "dimensions (built from codes, microdata or an array)")
    plt = _pyplot()
    from matplotlib.patches import Patch

    status = np.full(table.num_cells, "published", dtype=object)
    if empty is not None:
        status[np.asarray(empty, dtype=bool)] = "empty"
    status[np.asarray(list(suppressed), dtype=np.int64)] = "secondary"
    status[table.sensitive] = "primary"
    where = {label: c for c, label in enumerate(table.labels)}
    by_name = {d.name: d for d in table.dimensions}
    panels = []  # (rows dimension, columns dimension, {dimension name: fixed code})
    for view in views or [[d.name for d in table.dimensions]]:
        unknown = [name for name in view if name not in by_name]
        if unknown or len(view) < 2:
            raise InputError(f"a view needs two or more of the table's dimensions, got {view}")
        *outer, rows_name, cols_name = view
        fixed = {d.name: d.total for d in table.dimensions if d.name not in view}
        for codes in itertools.product(*(_display_order(by_name[o]) for o in outer)):
            panels.append((by_name[rows_name], by_name[cols_name],
                           dict(fixed, **dict(zip(outer, codes))), dict(zip(outer, codes))))
    panels = panels[:_MAX_SLICES]
    largest = max(max(len(r.codes), len(c.codes)) for r, c, _, _ in panels)
    show_values = values if values is not None else largest <= 26
    per_row = min(len(panels), 4)
    nrows = (len(panels) + per_row - 1) // per_row
    width = max(max(3.0, 0.45 * len(c.codes) + 1.5) for _, c, _, _ in panels)
    height = max(max(2.5, 0.3 * len(r.codes) + 1.2) for r, _, _, _ in panels)
    fig, axes = plt.subplots(nrows, per_row, figsize=(width * per_row, height * nrows),
                             dpi=110, squeeze=False)
    colour = {k: tuple(int(v[i:i + 2], 16) / 255 for i in (1, 3, 5))
              for k, v in _COLOURS.items()}
    for ax, (rows_dim, cols_dim, fixed, shown) in zip(axes.flat, panels):
        rows, cols = _display_order(rows_dim), _display_order(cols_dim)
        grid = np.ones((len(rows), len(cols), 3))
        for i, r in enumerate(rows):
            for j, c in enumerate(cols):
                codes = dict(fixed, **{rows_dim.name: r, cols_dim.name: c})
                cell = where.get(tuple(codes[d.name] for d in table.dimensions))
                if cell is None:
                    continue
                grid[i, j] = colour[status[cell]]
                if show_values:
                    ax.text(j, i, _short(table.values[cell]), ha="center", va="center",
                            fontsize=6)
        ax.imshow(grid, aspect="auto", interpolation="nearest")
        for k, code in enumerate(rows):
            if not rows_dim.is_leaf(code):
                ax.axhline(k - 0.5, color="black", lw=1.2)
        for k, code in enumerate(cols):
            if not cols_dim.is_leaf(code):
                ax.axvline(k - 0.5, color="black", lw=1.2)
        ax.set_xticks(range(len(cols)), cols, rotation=90, fontsize=6)
        ax.set_yticks(range(len(rows)), rows, fontsize=6)
        ax.set_xticks(np.arange(-0.5, len(cols)), minor=True)
        ax.set_yticks(np.arange(-0.5, len(rows)), minor=True)
        ax.grid(which="minor", color="#bbbbbb", lw=0.4)
        ax.tick_params(which="minor", length=0)
        ax.set_xlabel(cols_dim.name, fontsize=7)
        ax.set_ylabel(rows_dim.name, fontsize=7)
        if shown:
            ax.set_title(", ".join(f"{name} = {code}" for name, code in shown.items()),
                         fontsize=7)
    for ax in list(axes.flat)[len(panels):]:
        ax.axis("off")
    counts = {k: int((status == k).sum()) for k in _COLOURS}
    fig.legend(handles=[Patch(facecolor=_COLOURS[k], edgecolor="grey",
                              label=f"{k} ({counts[k]})") for k in _COLOURS],
               loc="lower center", ncol=4, fontsize=7, frameon=False)
    fig.suptitle(title or table.name or "suppression pattern", fontsize=9)
    fig.tight_layout(rect=(0, 0.06, 1, 0.97))
    fig.savefig(os.fspath(path))
    plt.close(fig)
