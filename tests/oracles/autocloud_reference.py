"""A literal, slow, test-only transcription of the AutoCloud reference code.

Written from ``BrunuXCosta/AutoCloud`` (commit 8ece63c84fb3248b051786a4e89d675758e5e4c1), files
``Cloud.m`` and ``AutoCloud.m`` (unsupervised ``addPoint`` with the Euclidean measure and
``autoMerge`` on), keeping the reference's structure: a list of cloud objects, an intersection
list and a full intersection matrix rebuilt by the B / C / L formulas of ``mergeClouds``, the
merge loop restarting at i = 1 after every merge. Indices are 0-based here.

Nothing here is shared with ``cae.algorithms._autocloud_kernel``: ``tests/unit/test_autocloud.py``
runs both on the same streams and compares them after every step. Floating-point arithmetic is
IEEE (NumPy float64 with warnings off), as in MATLAB: 0/0 is NaN, x/0 is +-Inf. MATLAB's
``max`` ignores NaN (``np.fmax`` / ``np.nanmax``). ``norm(v)^2`` is taken as
``sqrt(sum(v.^2))^2`` with the squares summed in index order, and ``sum(tauList)``
likewise (``np.cumsum``); the kernel makes the same choices.
"""

import numpy as np

F = np.float64


def _sumsq(v):
    s = F(0)
    for e in v.tolist():  # in index order, as the kernel adds
        s += e * e
    return s


def _norm(v):
    return np.sqrt(_sumsq(v))


class Cloud:
    """Cloud.m without the covariance matrix (only the Mahalanobis measure reads it)."""

    def __init__(self, x=None):
        self.n = F(0)
        self.var = F(0)
        self.mu = None
        if x is not None:
            self.mu = np.array(x, dtype=F)
            self.n = F(1)

    def update_cloud(self, mu, var, n):
        self.mu, self.var, self.n = mu, var, n
        return self

    def add_point(self, x):
        if self.n == 0:
            self.n, self.mu, self.var = F(1), np.array(x, dtype=F), F(0)
        else:
            self.n = self.n + 1
            self.mu = ((self.n - 1) / self.n) * self.mu + (1 / self.n) * x
            self.var = ((self.n - 1) / self.n) * self.var + (1 / self.n) * _norm(x - self.mu) ** 2
        return self

    def calculate_zeta(self, x):
        if self.n == 0:
            return F(np.inf)
        n_ = self.n + 1
        mu_ = ((n_ - 1) / n_) * self.mu + (1 / n_) * x
        var_ = ((n_ - 1) / n_) * self.var + (1 / n_) * _norm(x - mu_) ** 2
        ksi = np.fmax((1 / n_) + _sumsq(mu_ - x) / (n_ * var_), F(0.0001))
        return ksi / 2

    def copy(self):
        c = Cloud()
        c.n, c.var, c.mu = self.n, self.var, None if self.mu is None else self.mu.copy()
        return c


class AutoCloudReference:
    def __init__(self, m=1.0):
        self.k = 0
        self.m = F(m)
        self.cloud_list = [Cloud()]
        self.intersection_list = np.zeros(1)
        self.intersection_matrix = np.zeros((1, 1))
        self.cont_merge = 0
        # what the tests read about the last step
        self.last_y = -1
        self.last_merges = []

    def calculate_threshold(self, s):
        return (self.m**2 + 1) / (2 * s)

    def add_point(self, x):
        with np.errstate(all="ignore"):
            return self._add_point(np.asarray(x, dtype=F))

    def _add_point(self, x):
        self.last_merges = []
        self.k += 1
        self.intersection_list = np.zeros(len(self.cloud_list))
        if self.k == 1:
            self.cloud_list[0] = Cloud(x)
            self.intersection_list[0] = 0
            self.intersection_matrix[0, 0] = 0
            self.membership_list = np.array([1.0])
        elif self.k == 2:
            self.cloud_list[0] = self.cloud_list[0].copy().add_point(x)
            self.membership_list = np.array([1.0])
        else:
            create_cloud = True
            C = len(self.cloud_list)
            tau_list = np.zeros(C)
            for i in range(C):
                c1 = self.cloud_list[i]
                zeta = c1.calculate_zeta(x)
                tau_list[i] = 1 - zeta
                if zeta < np.inf and zeta <= self.calculate_threshold(c1.n):
                    self.cloud_list[i] = self.cloud_list[i].copy().add_point(x)
                    self.intersection_list[i] = 1
                    create_cloud = False
                else:
                    self.intersection_list[i] = 0
            if create_cloud:
                self.cloud_list.append(Cloud(x))
                n = len(self.cloud_list)
                il = np.zeros(n)
                il[: len(self.intersection_list)] = self.intersection_list
                il[n - 1] = 1
                self.intersection_list = il
                im = np.zeros((n, n))
                a = self.intersection_matrix
                im[: a.shape[0], : a.shape[1]] = a
                self.intersection_matrix = im
            self.membership_list = tau_list / np.cumsum(tau_list)[-1]
        ml = self.membership_list
        if np.all(np.isnan(ml)):
            y = -1  # MATLAB: find(ml == NaN, 1) is empty
        else:
            y = int(np.flatnonzero(ml == np.nanmax(ml))[0])
        self.last_y = y
        self.merge_clouds()
        return y, ml

    def merge_clouds(self):
        i = 0
        while i < len(self.cloud_list) - 1:
            merge = False
            for j in range(i + 1, len(self.cloud_list)):
                if self.intersection_list[i] == 1 and self.intersection_list[j] == 1:
                    self.intersection_matrix[i, j] = self.intersection_matrix[i, j] + 1
                ci, cj = self.cloud_list[i], self.cloud_list[j]
                n_i, n_j, mu_i, mu_j, var_i, var_j = ci.n, cj.n, ci.mu, cj.mu, ci.var, cj.var
                nint = self.intersection_matrix[i, j]
                if nint > (n_i - nint) or nint > (n_j - nint):
                    n = n_i + n_j - nint
                    mu = ((n_i * mu_i) + (n_j * mu_j)) / (n_i + n_j)
                    var = ((n_i - 1) * var_i + (n_j - 1) * var_j) / (n_i + n_j - 2)
                    new = Cloud().update_cloud(mu, var, n)
                    cl = self.cloud_list
                    self.cloud_list = cl[:i] + [new] + cl[i + 1 : j] + cl[j + 1 :]
                    il = self.intersection_list
                    self.intersection_list = np.concatenate([il[:i], [1.0], il[i + 1 : j], il[j + 1 :]])
                    A = self.intersection_matrix
                    B = np.vstack([A[:i, :], np.zeros((1, A.shape[1])), A[i + 1 : j, :], A[j + 1 :, :]])
                    B = np.hstack([B[:, :i], np.zeros((B.shape[0], 1)), B[:, i + 1 : j], B[:, j + 1 :]])
                    Cv = (A[:, i] + A[:, j]) * ((A[:, i] * A[:, j]) != 0)
                    Cv = np.concatenate([Cv[:j], Cv[j + 1 :]])
                    L = (A[i, :] + A[j, :]) * ((A[i, :] * A[j, :]) != 0)
                    L = np.concatenate([L[:j], L[j + 1 :]])
                    B[:, i] = Cv
                    B[i, :] = L
                    B[i, i + 1 : j] = A[i, i + 1 : j] + A[i + 1 : j, j]
                    self.intersection_matrix = B
                    merge = True
                    self.cont_merge += 1
                    self.last_merges.append((i, j, nint))
                    break
            if merge:
                i = 0
            else:
                i += 1

    # ---- what the tests compare
    def centers(self):
        return np.array([c.mu for c in self.cloud_list])

    def variances(self):
        return np.array([c.var for c in self.cloud_list])

    def supports(self):
        return np.array([c.n for c in self.cloud_list])

    def predict(self, X):
        """The label of each row: the first cloud of highest membership, as addPoint computes it for k >= 3."""
        out = np.zeros(len(X), dtype=np.int64)
        with np.errstate(all="ignore"):
            for r, x in enumerate(np.asarray(X, dtype=F)):
                tau = np.array([1 - c.calculate_zeta(x) for c in self.cloud_list])
                ml = tau / np.cumsum(tau)[-1]
                out[r] = 0 if np.all(np.isnan(ml)) else int(np.flatnonzero(ml == np.nanmax(ml))[0])
        return out
