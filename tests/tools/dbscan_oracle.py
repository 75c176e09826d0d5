#!/usr/bin/python3
"""The scikit-learn oracle of bcn_dbscan (tests/integration/dbscan_sklearn.sh).

Generates seeded cases (uniform data, gaussian blobs, integer grids with
integer eps so that many distances are exactly eps, duplicates, collinear
points, grids with far-away points, all scaled by powers of two or by
0.1, in 1 to 4 dimensions),
runs sklearn.cluster.DBSCAN(algorithm='kd_tree') on each and the C program
tests/tools/dbscan_oracle.c on all of them in one call, and compares the
labels point for point. Exits 1 showing the first differing case."""
import argparse
import subprocess
import sys
import time

import numpy as np
from sklearn.cluster import DBSCAN


def size(rng, cap):
    return int(min(cap, max(1, round(np.exp(rng.uniform(0, np.log(cap)))))))


def gen_uniform(rng, n, d):
    x = rng.uniform(-1, 1, (n, d)) * 10 ** rng.uniform(-2, 3)
    span = np.ptp(x) if n > 1 else 1.0
    return x, float(span * 10 ** rng.uniform(-2.5, -0.5) + 1e-12)


def gen_blobs(rng, n, d):
    k = rng.randint(1, 8)
    centers = rng.uniform(-10, 10, (k, d))
    sd = 10 ** rng.uniform(-1.5, 0.3, k)
    which = rng.randint(0, k, n)
    x = centers[which] + rng.normal(size=(n, d)) * sd[which, None]
    noise = rng.rand(n) < rng.uniform(0, 0.3)
    x[noise] = rng.uniform(-15, 15, (int(noise.sum()), d))
    return x, float(10 ** rng.uniform(-1.5, 0.5))


def gen_grid(rng, n, d):
    side = max(2, int(round((n / rng.uniform(0.3, 3)) ** (1 / d))))
    x = rng.randint(0, side, (n, d)).astype(float)
    # integer eps, and the square roots of sums of squares (the diagonals)
    return x, float(rng.choice([1, 1, 2, 2, 3, 5, 10, np.sqrt(2), np.sqrt(5),
                                2 * np.sqrt(2), np.sqrt(3)]))


def gen_dups(rng, n, d):
    m = rng.randint(1, max(2, n // 3) + 1)
    base = rng.randint(0, 6, (m, d)).astype(float)
    return base[rng.randint(0, m, n)], float(rng.choice([0.5, 1, 2, 3]))


def gen_line(rng, n, d):
    direc = rng.randint(-3, 4, d).astype(float)
    if not direc.any():
        direc[0] = 1.0
    t = rng.randint(0, max(2, n), n).astype(float)
    x = t[:, None] * direc[None, :] + rng.randint(-2, 3, d)
    return x, float(np.sqrt((direc ** 2).sum())) * rng.choice([1, 2, 3]) \
        if rng.rand() < 0.5 else float(np.abs(direc).max() * rng.choice([1, 2]))


def gen_far(rng, n, d):
    # a grid with some points far away: the cell coordinates get large
    # (coarser cells) or too large (the sorted fallback)
    x, eps = gen_grid(rng, n, d)
    far = rng.rand(n) < 0.3
    x[far] += rng.choice([-1, 1], (int(far.sum()), d)) * rng.choice([1e10, 1e12, 2.0 ** 50, 1e17])
    return x, eps


KINDS = [("far", gen_far), ("uniform", gen_uniform), ("blobs", gen_blobs), ("grid", gen_grid),
         ("grid", gen_grid), ("dups", gen_dups), ("line", gen_line)]


def make_case(rng, nmax):
    kind, gen = KINDS[rng.randint(len(KINDS))]
    d = int(rng.choice([1, 2, 2, 3, 3, 4]))
    n = size(rng, nmax)
    x, eps = gen(rng, n, d)
    scale = rng.choice(["none", "pow2", "tenth"])
    if scale == "pow2":
        f = 2.0 ** rng.randint(-30, 31)
        x, eps = x * f, eps * f
    elif scale == "tenth":
        # coordinates and eps both a tenth: the ties become inexact, the
        # rounding of the squares decides them
        x, eps = x * 0.1, eps * 0.1
    ms = int(rng.choice([1, 2, 3, 4, 5, 6, 8, 10, 15, 20, 40]))
    return dict(kind=f"{kind}/{scale}", x=np.ascontiguousarray(x), eps=eps,
                min_samples=ms)


def encode(cases):
    out = [str(len(cases))]
    for c in cases:
        n, d = c["x"].shape
        out.append(f"{n} {d} {c['eps']!r} {c['min_samples']}")
        out.append(" ".join(map(repr, c["x"].ravel().tolist())))
    return "\n".join(out) + "\n"


def show(i, c, want, got):
    diff = np.nonzero(want != got)[0]
    print(f"FAIL: case {i} ({c['kind']}): n={c['x'].shape[0]} dim={c['x'].shape[1]} "
          f"eps={c['eps']!r} min_samples={c['min_samples']}: "
          f"{len(diff)} labels differ", file=sys.stderr)
    for j in diff[:10]:
        print(f"  point {j} {c['x'][j].tolist()}: sklearn {want[j]}, C {got[j]}",
              file=sys.stderr)
    if c["x"].shape[0] <= 40:
        print("  points: " + repr(c["x"].tolist()), file=sys.stderr)
        print("  sklearn: " + repr(want.tolist()), file=sys.stderr)
        print("  C:       " + repr(got.tolist()), file=sys.stderr)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--oracle", required=True, help="the dbscan_oracle binary")
    ap.add_argument("--cases", type=int, default=8000)
    ap.add_argument("--nmax", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=20261124)
    a = ap.parse_args()
    rng = np.random.RandomState(a.seed)
    t0 = time.time()
    cases = [make_case(rng, a.nmax) for _ in range(a.cases)]
    r = subprocess.run([a.oracle], input=encode(cases), capture_output=True,
                       text=True, check=False)
    if r.returncode:
        sys.exit(f"FAIL: {a.oracle} exited {r.returncode}: {r.stderr}")
    t_c = time.time() - t0
    lines = r.stdout.splitlines()
    if len(lines) != len(cases):
        sys.exit(f"FAIL: {len(lines)} answers for {len(cases)} cases")
    points = 0
    for i, (c, line) in enumerate(zip(cases, lines)):
        f = line.split()
        if f[0] != "0":
            sys.exit(f"FAIL: case {i} ({c['kind']}): bcn_dbscan returned {f[0]}")
        got = np.array(f[2:], dtype=np.int64)
        want = DBSCAN(eps=c["eps"], min_samples=c["min_samples"],
                      algorithm="kd_tree").fit(c["x"]).labels_
        if len(got) != len(want) or (got != want).any() or \
                int(f[1]) != len(set(want.tolist()) - {-1}):
            show(i, c, want, got if len(got) == len(want) else np.full(len(want), -9))
            sys.exit(1)
        points += len(want)
    print(f"dbscan_sklearn: {len(cases)} cases, {points} points: labels equal "
          f"to sklearn {__import__('sklearn').__version__} "
          f"(C and I/O {t_c:.1f} s, total {time.time() - t0:.1f} s)")


if __name__ == "__main__":
    main()
