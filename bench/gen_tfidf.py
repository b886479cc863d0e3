#!/usr/bin/python3
"""An RCV1-shaped set from a generator that is not hogwild's own (numpy only):
documents of Zipf-distributed words with TF-IDF weights and unit-norm rows, and a
label from a sparse linear rule on the words plus label noise. The scaling
benchmark trains on it beside the sets `hogwild data gen` makes, so that what it
reports does not rest on one generator's quirks.

  gen_tfidf.py EXAMPLES FEATURES SEED > set.libsvm

Row lengths are log-normal around 75 words (RCV1: mean 76, long tail); word
popularity follows Zipf with exponent 1.1 over FEATURES words; a word's weight
in a row is (1 + log tf) * idf with idf from the popularity, then the row is
scaled to unit length. The true rule gives every word a normal weight; the
label is the sign of the row's margin plus a little noise, and 5% of labels
are flipped.
"""
import sys

import numpy as np


def main():
    n, d, seed = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    rng = np.random.default_rng(seed)
    ranks = np.arange(1, d + 1, dtype=np.float64)
    p = ranks ** -1.1
    p /= p.sum()
    perm = rng.permutation(d)  # popularity rank -> word id: hot words are not the low ids
    idf = np.log(1.0 / np.maximum(p * 75.0, 1e-12))
    idf = np.maximum(idf, 0.1)
    w = rng.normal(0.0, 1.0, size=d)
    out = sys.stdout
    chunk = 20000
    for start in range(0, n, chunk):
        m = min(chunk, n - start)
        lens = np.clip(rng.lognormal(np.log(95.0), 0.6, size=m).astype(np.int64), 3, 2000)
        allwords = rng.choice(d, size=int(lens.sum()), p=p)
        ends = np.cumsum(lens)
        lines = []
        for k in range(m):
            words = allwords[ends[k] - lens[k]:ends[k]]
            u, tf = np.unique(words, return_counts=True)
            x = (1.0 + np.log(tf)) * idf[u]
            x /= np.linalg.norm(x)
            ids = perm[u]
            margin = float(np.dot(w[ids], x))
            y = 1 if margin + rng.normal(0.0, 0.1) > 0 else -1
            if rng.random() < 0.05:
                y = -y
            order = np.argsort(ids)
            lines.append(("+1" if y > 0 else "-1") + " " +
                         " ".join(f"{i + 1}:{v:.5g}" for i, v in zip(ids[order], x[order])))
        out.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
