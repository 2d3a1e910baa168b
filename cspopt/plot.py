"""Bound-versus-time plot of one solve: how people judge a bounding method."""

from __future__ import annotations

import math
import os

from cspopt.errors import MissingExtraError

__all__ = ["plot_bounds"]


def plot_bounds(result, path: str | os.PathLike, *, title: str | None = None) -> None:
    """Write a PNG of the lower and upper bounds in ``result.history`` against time.

    Needs the ``plot`` extra (matplotlib): :class:`MissingExtraError` otherwise."""
    try:
        import matplotlib
    except ImportError:
        raise MissingExtraError("plotting needs matplotlib: pip install 'cspopt[plot]'") from None

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

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
