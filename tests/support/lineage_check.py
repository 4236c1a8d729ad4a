"""The Lineage lesson's numbers read back from its CSV with pandas, by the tests' own rules (not the module's): what
each quoted number should be, and which quotes read a mean out of a column whose seeds spread wider than the mean."""

from __future__ import annotations

import re

import numpy as np

#: a number as a sentence writes it ("1,846", "0.952", "4%", "6.5"), not part of a word ("s1", "K = 2K", "§4.7")
NUMBER = re.compile(r"(?<![\w.§])\d+(?:,\d{3})*(?:\.\d+)?%?")
SCORES = ("nmi", "ari")


def column(df, q):
    """The seeds' values of the quote's column (NaN left out), indexed by seed."""
    rows = df[(df["setting"] == q.setting) & (df["stream"] == q.stream)].set_index("seed")
    return rows[q.field].dropna().astype(float)


def value(df, q):
    v = column(df, q)
    if q.stat == "seed":
        return float(v.loc[q.seed])
    if q.stat == "all":
        assert v.max() == v.min(), f"{q}: the seeds differ ({v.min()}–{v.max()}), no one value for all"
        return float(v.iloc[0])
    return float({"mean": v.mean, "median": v.median, "min": v.min, "max": v.max}[q.stat]())


def expected(df, q):
    """The number a quote should show, as a reader reads it: scores with 3 digits, a share as a percentage, a
    count's mean with one decimal, any other count whole (or .5, a median of an even number of seeds)."""
    x = value(df, q)
    if q.field in SCORES:
        return f"{x:.3f}"
    if q.field == "on_noise":
        return f"{x:.0%}"
    if q.stat == "mean" or not x.is_integer():
        return f"{x:,.1f}"
    return f"{x:,.0f}"


def check_quotes(df, text, quotes):
    """Every quote is in the text and is its CSV's number; returns how many were checked."""
    for q in quotes:
        assert q.text in text, (q, text)
        assert q.text == expected(df, q), (q, expected(df, q))
    return len(quotes)


def wide_means(df, quotes):
    """The quotes that read a mean out of a column whose seeds spread (max − min) wider than the mean."""
    out = []
    for q in quotes:
        if q.stat != "mean":
            continue
        v = column(df, q)
        if float(v.max() - v.min()) > abs(float(v.mean())):
            out.append((q, float(v.min()), float(v.max()), float(v.mean())))
    return out


def other_numbers(text, quotes, allowed):
    """The numbers in ``text`` that are neither a quote (each used once), nor a seed a quote names, nor in
    ``allowed``."""
    rest = NUMBER.findall(text)
    for q in quotes:
        if q.text in rest:
            rest.remove(q.text)
    seeds = {str(q.seed) for q in quotes if q.stat == "seed"}
    return sorted(set(rest) - set(allowed) - seeds)


def numbers(text):
    return set(NUMBER.findall(text))


def spread_of(df, setting, stream, field):
    v = df[(df["setting"] == setting) & (df["stream"] == stream)][field].dropna().to_numpy(float)
    return float(np.ptp(v)) if len(v) else 0.0
