"""Graph primitives shared by every network kernel (CAE, SOINN+/ASOINN, TCA).

A network keeps its nodes in rows ``[:K]`` of its arrays, in creation order,
and its undirected edges as neighbour lists: ``deg[k]`` neighbours of row k
in ``nbr[k, :deg[k]]``, with the edge's age (or, for algorithms without ages,
1) in the same slot of ``age``. Each edge appears in both lists. Rows never
have holes: deleting nodes compacts the arrays, keeping the survivors' order.

Everything here is compiled by :func:`cae._jit.jit` (or runs as plain Python); the functions a
step calls create no arrays (``allocates=False``: the caller passes scratch space), so calling
them costs nothing.
"""

import numpy as np

from ._jit import jit


@jit(allocates=False)
def find_slot(nbr, deg, a, b):
    """Position of ``b`` in ``a``'s neighbour list, -1 if absent."""
    for p in range(deg[a]):
        if nbr[a, p] == b:
            return p
    return -1


@jit(allocates=False)
def remove_slot(nbr, age, deg, a, p):
    """Remove slot ``p`` of ``a``'s neighbour list (the last slot moves into it)."""
    last = deg[a] - 1
    nbr[a, p] = nbr[a, last]
    age[a, p] = age[a, last]
    deg[a] = last


@jit(allocates=False)
def connect(nbr, age, deg, a, b, value):
    """Add the edge a-b with age ``value`` (it must not exist; the caller has made room).

    Returns the larger of the two new degrees, for the caller's degree bound.
    """
    nbr[a, deg[a]] = b
    age[a, deg[a]] = value
    deg[a] += 1
    nbr[b, deg[b]] = a
    age[b, deg[b]] = value
    deg[b] += 1
    return max(deg[a], deg[b])


@jit(allocates=False)
def disconnect(nbr, age, deg, a, b):
    """Delete the edge a-b from both lists; returns True if it existed."""
    p = find_slot(nbr, deg, a, b)
    if p < 0:
        return False
    remove_slot(nbr, age, deg, a, p)
    q = find_slot(nbr, deg, b, a)
    remove_slot(nbr, age, deg, b, q)
    return True


@jit(allocates=False)
def set_age(nbr, age, deg, a, b, value):
    """Set the age of the existing edge a-b on both sides."""
    age[a, find_slot(nbr, deg, a, b)] = value
    age[b, find_slot(nbr, deg, b, a)] = value


@jit
def components(nbr, deg, K, labels):
    """Connected components numbered by their smallest row; returns their count."""
    return components_into(nbr, deg, K, labels, np.empty(max(K, 1), dtype=np.int64))


@jit(allocates=False)
def components_into(nbr, deg, K, labels, stack):
    """:func:`components` with the caller's scratch ``stack`` (at least K entries)."""
    for k in range(K):
        labels[k] = -1
    n = 0
    for k in range(K):
        if labels[k] >= 0:
            continue
        labels[k] = n
        top = 0
        stack[top] = k
        top += 1
        while top > 0:
            top -= 1
            u = stack[top]
            for p in range(deg[u]):
                v = nbr[u, p]
                if labels[v] < 0:
                    labels[v] = n
                    stack[top] = v
                    top += 1
        n += 1
    return n


# ---- deleting nodes: plan the new rows, then move every per-node array -------
@jit(allocates=False)
def plan_compaction(delete, K, newrow):
    """``newrow[k]`` = the row node k moves to, or -1 if ``delete[k]``; returns the survivors."""
    n = 0
    for k in range(K):
        if delete[k]:
            newrow[k] = -1
        else:
            newrow[k] = n
            n += 1
    return n


@jit
def compact_rows(A, newrow, K):
    """Move the rows of a per-node array (1-D or 2-D) to their new places."""
    for k in range(K):
        r = newrow[k]
        if r >= 0 and r != k:
            A[r] = A[k]


@jit(allocates=False)
def compact_rows_2d(A, newrow, K):
    """:func:`compact_rows` for a 2-D array, element by element (no temporary row)."""
    for k in range(K):
        r = newrow[k]
        if r >= 0 and r != k:
            for j in range(A.shape[1]):
                A[r, j] = A[k, j]


@jit(allocates=False)
def compact_graph(nbr, age, deg, newrow, K):
    """Move the neighbour lists and renumber them; edges to deleted nodes are dropped.

    Returns the number of edge endpoints dropped (twice the edges removed
    when a deleted node still had edges; 0 when only isolated nodes go).
    """
    dropped = 0
    for k in range(K):
        r = newrow[k]
        if r < 0:
            dropped += deg[k]  # row k is still intact: only rows below k were written so far
            continue
        n = 0
        for p in range(deg[k]):
            v = newrow[nbr[k, p]]
            if v >= 0:
                nbr[r, n] = v
                age[r, n] = age[k, p]
                n += 1
            else:
                dropped += 1
        deg[r] = n
    return dropped


# ---- views of a network (plain NumPy, outside the kernels) -----------------------
def edge_list(nbr, deg, age, K):
    """The edges of a network as ``(E x 2 rows i < j, sorted; ages)`` from its neighbour lists."""
    deg = deg[:K]
    valid = np.arange(nbr.shape[1])[None, :] < deg[:, None]
    i = np.nonzero(valid)[0]
    j = nbr[:K][valid]
    a = age[:K][valid]
    keep = i < j
    i, j, a = i[keep], j[keep], a[keep]
    order = np.lexsort((j, i))
    return np.column_stack([i[order], j[order]]).astype(np.int64), a[order].astype(np.int64)


def component_labels(nbr, deg, K):
    """``(labels of the K nodes, number of components)``: connected components by smallest row."""
    labels = np.zeros(max(K, 1), dtype=np.int64)
    n = components(nbr, deg, K, labels)
    return labels[:K].copy(), int(n)
