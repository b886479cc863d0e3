#!/usr/bin/python3
"""bench/average.sh's peers at their default settings on one split: scikit-learn's
SGDClassifier(loss='log_loss') for the given epochs (one partial_fit per epoch on
a shuffled copy, so every epoch's test accuracy is seen) and liblinear -s 0.
Prints one markdown table row per tool: set, tool, final accuracy %, final log
loss, best epoch accuracy %, seconds."""
import subprocess, sys, time
import numpy as np
from sklearn.datasets import load_svmlight_file
from sklearn.linear_model import SGDClassifier
from sklearn.metrics import log_loss

train, test, dim, epochs, name = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
Xtr, ytr = load_svmlight_file(train, n_features=dim)
Xte, yte = load_svmlight_file(test, n_features=dim)
ytr = np.where(ytr > 0, 1, -1)
yte = np.where(yte > 0, 1, -1)
n = Xtr.shape[0]
clf = SGDClassifier(loss="log_loss", random_state=1)
rng = np.random.default_rng(1)
spent, accs = 0.0, []
for e in range(epochs):
    order = rng.permutation(n)
    Xe, ye = Xtr[order], ytr[order]  # the shuffle is not timed
    t0 = time.perf_counter()
    clf.partial_fit(Xe, ye, classes=[-1, 1])
    spent += time.perf_counter() - t0
    accs.append(float((clf.predict(Xte) == yte).mean()))
ll = log_loss(yte, clf.predict_proba(Xte), labels=[-1, 1])
print(f"| {name} | sklearn SGDClassifier | {100*accs[-1]:.2f} | {ll:.4f} | {100*max(accs):.2f} | {spent:.2f} |")

model, pred = "/tmp/hogwild-average.liblinear", "/tmp/hogwild-average.pred"
t0 = time.perf_counter()
subprocess.run(["liblinear-train", "-s", "0", "-q", train, model], check=True)
spent = time.perf_counter() - t0
subprocess.run(["liblinear-predict", "-b", "1", test, model, pred], check=True, capture_output=True)
lines = open(pred).read().split("\n")
cols = [int(float(c)) for c in lines[0].split()[1:]]  # "labels 1 -1"
p = np.array([[float(v) for v in l.split()[1:]] for l in lines[1:] if l.strip()])
yhat = np.array([int(float(l.split()[0])) for l in lines[1:] if l.strip()])
ppos = p[:, cols.index(1)]
acc = float((np.where(yhat > 0, 1, -1) == yte).mean())
ll = log_loss(yte, np.stack([1 - ppos, ppos], axis=1), labels=[-1, 1])
print(f"| {name} | liblinear -s 0 | {100*acc:.2f} | {ll:.4f} | - | {spent:.2f} |")
