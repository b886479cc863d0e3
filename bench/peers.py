#!/usr/bin/python3
"""Side by side with peer tools on the same data and machine: scikit-learn's
SGDClassifier (logistic loss, the same epochs, one epoch at a time with
partial_fit so the time to each accuracy is seen) and liblinear (-s 0, L2
logistic regression, to convergence). Prints one JSON object per line:
{tool, threads, epoch, seconds, accuracy}. Data loading is not timed for
scikit-learn; liblinear's time includes reading its text input (it has no
separate timing), which is stated in the results."""
import json, subprocess, sys, time
import numpy as np
from sklearn.datasets import load_svmlight_file
from sklearn.linear_model import SGDClassifier

train, test, dim, epochs = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
Xtr, ytr = load_svmlight_file(train, n_features=dim)
Xte, yte = load_svmlight_file(test, n_features=dim)
ytr = np.where(ytr > 0, 1, -1)
yte = np.where(yte > 0, 1, -1)
n = Xtr.shape[0]
# alpha = 1/n is liblinear's C = 1 in scikit-learn's per-example scale
clf = SGDClassifier(loss="log_loss", alpha=1.0 / n, learning_rate="optimal", random_state=1)
rng = np.random.default_rng(1)
spent = 0.0
for e in range(1, epochs + 1):
    order = rng.permutation(n)
    Xe, ye = Xtr[order], ytr[order]  # the shuffle is not timed
    t0 = time.perf_counter()
    clf.partial_fit(Xe, ye, classes=[-1, 1])
    spent += time.perf_counter() - t0
    acc = float((clf.predict(Xte) == yte).mean())
    print(json.dumps({"tool": "sklearn SGDClassifier", "threads": 1, "epoch": e, "seconds": spent, "accuracy": acc}), flush=True)

t0 = time.perf_counter()
subprocess.run(["liblinear-train", "-s", "0", "-c", "1", "-q", train, "/tmp/hogwild-peers.liblinear"], check=True)
spent = time.perf_counter() - t0
out = subprocess.run(["liblinear-predict", test, "/tmp/hogwild-peers.liblinear", "/tmp/hogwild-peers.pred"],
                     check=True, capture_output=True, text=True).stdout
acc = float(out.split("=")[1].split("%")[0]) / 100
print(json.dumps({"tool": "liblinear -s 0", "threads": 1, "epoch": 0, "seconds": spent, "accuracy": acc}), flush=True)
