#!/usr/bin/python3
"""bcn_dbscan against scikit-learn's DBSCAN(algorithm='kd_tree') on 2-D
blobs plus uniform noise (bench/dbscan_bench.sh): per size, the C time and
peak memory (bench/dbscan_bench.c), sklearn's time and peak memory (in a
process of its own), and whether the labels are identical. One JSON object
per line."""
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

MIN_SAMPLES = 10
TARGET_NEIGHBOURS = 15


def points(n, seed):
    rng = np.random.RandomState(seed)
    k = 20
    centers = rng.uniform(0, 100, (k, 2))
    sd = rng.uniform(0.5, 4, k)
    which = rng.randint(0, k, n)
    x = centers[which] + rng.normal(size=(n, 2)) * sd[which, None]
    noise = rng.rand(n) < 0.1
    x[noise] = rng.uniform(-10, 110, (int(noise.sum()), 2))
    return np.ascontiguousarray(x)


def choose_eps(x, seed):
    """eps: the median distance to the TARGET_NEIGHBOURS-th neighbour of a
    sample; gives the mean neighbour count of the whole too."""
    from sklearn.neighbors import KDTree
    rng = np.random.RandomState(seed + 1)
    sample = x[rng.choice(len(x), min(len(x), 2000), replace=False)]
    tree = KDTree(x)
    d, _ = tree.query(sample, k=min(len(x), TARGET_NEIGHBOURS))
    eps = float(np.median(d[:, -1]))
    mean = float(tree.query_radius(sample, eps, count_only=True).mean())
    return eps, mean


def peak_kb():
    # VmHWM: unlike ru_maxrss, not inherited across execve from the parent
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return -1


def sklearn_child(path, eps, out):
    from sklearn.cluster import DBSCAN
    x = np.load(path)
    t0 = time.perf_counter()
    lab = DBSCAN(eps=eps, min_samples=MIN_SAMPLES, algorithm="kd_tree").fit(x).labels_
    t = time.perf_counter() - t0
    np.save(out, lab.astype(np.int32))
    print(json.dumps({"s": t, "peak_kb": peak_kb()}))


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--sklearn":
        sklearn_child(sys.argv[2], float(sys.argv[3]), sys.argv[4])
        return
    bench = sys.argv[1]
    sizes = [int(float(s)) for s in (sys.argv[2] if len(sys.argv) > 2 else "1e4,1e5,1e6").split(",")]
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            x = points(n, 7 + n)
            eps, mean = choose_eps(x, 7 + n)
            raw, npy = os.path.join(tmp, "x.bin"), os.path.join(tmp, "x.npy")
            with open(raw, "wb") as f:
                f.write(np.array([n, 2], dtype=np.uint64).tobytes())
                f.write(x.tobytes())
            np.save(npy, x)
            c = json.loads(subprocess.run(
                [bench, raw, os.path.join(tmp, "c.lab"), repr(eps), str(MIN_SAMPLES), "3"],
                check=True, capture_output=True, text=True).stdout)
            sk = json.loads(subprocess.run(
                [sys.executable, __file__, "--sklearn", npy, repr(eps),
                 os.path.join(tmp, "sk.npy")],
                check=True, capture_output=True, text=True).stdout)
            cl = np.fromfile(os.path.join(tmp, "c.lab"), dtype=np.int32)
            sl = np.load(os.path.join(tmp, "sk.npy"))
            print(json.dumps({
                "bench": "dbscan", "n": n, "dim": 2, "eps": eps,
                "min_samples": MIN_SAMPLES, "mean_neighbours": round(mean, 1),
                "clusters": c["clusters"], "noise": int((cl == -1).sum()),
                "c_s": c["c_s"], "sklearn_s": round(sk["s"], 3),
                "speedup": round(sk["s"] / c["c_s"], 1),
                "identical": bool(len(cl) == len(sl) and (cl == sl).all()),
                "c_peak_kb": c["c_peak_kb"], "c_dbscan_kb": c["c_dbscan_kb"],
                "sklearn_peak_kb": sk["peak_kb"]}), flush=True)


if __name__ == "__main__":
    main()
