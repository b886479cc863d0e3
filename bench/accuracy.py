#!/usr/bin/python3
"""Default-flag accuracy of hogwild beside scikit-learn's defaults and liblinear.

Run with Debian's python3 (it has scikit-learn): /usr/bin/python3 bench/accuracy.py
Writes bench/results/accuracy.md (the table, the machine's CPU, the commit).

Every set is split (or comes split) into a training and a test file, written as
CSV, LIBSVM or idx into $WORK (/tmp/hogwild-accuracy by default; never into
the repository), imported with `hogwild data import`, and trained with:
  hogwild linear  `hogwild train --data TR --save M` (no other flag: the loss
                  follows the task, --normalize auto);
  hogwild mlp     the same with `--model mlp --layers 100` (the hidden width of
                  MLPClassifier's default);
  sklearn LR      LogisticRegression() on the same raw features;
  sklearn MLP     MLPClassifier(random_state=0) on the same raw features;
  liblinear       liblinear-train -s 0 (L2 logistic regression, C = 1) on the
                  LIBSVM form, when liblinear-tools is installed.
Test accuracy in %; "1cls" marks a run whose test predictions are one class.

Options: --only NAME[,NAME] (sets), --hog-flags "..." / --mlp-flags "..."
(extra hogwild flags, for exploring; the committed table uses none), --out FILE
("-": stdout only), --quick (skips Fashion-MNIST).
"""
import argparse
import gzip
import json
import os
import platform
import shutil
import struct
import subprocess
import sys
import time
import warnings

import numpy as np
from sklearn import datasets
from sklearn.datasets import dump_svmlight_file, load_svmlight_file
from sklearn.feature_extraction.text import TfidfTransformer
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.neural_network import MLPClassifier

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HOG = os.environ.get("HOG_BIN", os.path.join(ROOT, "hogwild"))
WORK = os.environ.get("WORK", "/tmp/hogwild-accuracy")
SHARED = os.path.join(ROOT, "..", "shared", "data")
if not os.path.isdir(SHARED):
    SHARED = "/work/shared/data"
FASHION = "/usr/share/datasets/fashion-mnist"
FASHION_TRAIN = 10000  # training examples kept (of 60,000): sklearn's MLP on all would take too long


def split(X, y, seed=0):
    return train_test_split(X, y, test_size=0.2, random_state=seed, stratify=y)


def raw_scales(rng, d):
    """Column factors 10^U(0, 4): raw measurement scales of 1 to 10^4."""
    return 10.0 ** rng.uniform(0, 4, d)


def gen_binary_raw(seed):
    X, y = datasets.make_classification(n_samples=3000, n_features=20, n_informative=10, n_redundant=4,
                                        class_sep=1.0, random_state=seed)
    rng = np.random.default_rng(seed)
    X = (X - X.min(axis=0)) * raw_scales(rng, X.shape[1])  # positive, raw scales
    return split(X, y)


def gen_multi_raw(seed):
    X, y = datasets.make_classification(n_samples=4000, n_features=30, n_informative=15, n_redundant=5,
                                        n_classes=5, n_clusters_per_class=1, random_state=seed)
    rng = np.random.default_rng(seed)
    X = X * raw_scales(rng, X.shape[1])  # signed, raw scales
    return split(X, y)


def gen_counts(seed, tfidf=False):
    """Bag of words: 4 topics, 500 words, documents of 20..200 words."""
    rng = np.random.default_rng(seed)
    V, K, n = 500, 4, 4000
    topics = rng.dirichlet(np.full(V, 0.05), K)
    y = rng.integers(0, K, n)
    lens = rng.integers(10, 60, n)
    X = np.stack([rng.multinomial(lens[i], 0.2 * topics[y[i]] + 0.8 * topics.mean(0)) for i in range(n)]).astype(float)
    if tfidf:
        X = TfidfTransformer().fit_transform(X).toarray()
    return split(X, y)


def gen_reg_raw(seed):
    X, y = datasets.make_regression(n_samples=3000, n_features=15, n_informative=10, noise=10.0, random_state=seed)
    rng = np.random.default_rng(seed)
    X = X * raw_scales(rng, X.shape[1])
    return train_test_split(X, y, test_size=0.2, random_state=0)


def regression(only):
    """RMSE of `hogwild train --data TR` (squared loss from the task) beside LinearRegression()."""
    rows = []
    for name, what, load in (
            ("diabetes", "sklearn diabetes: 10 standardized columns, disease progression 25..346 "
             "(imported with --task regression: its integer labels read as 347 classes otherwise)",
             lambda: train_test_split(*datasets.load_diabetes(return_X_y=True), test_size=0.2, random_state=0)),
            ("gen-reg-raw", "generated: 15 columns x 10^U(0,4), linear target + noise sd 10", lambda: gen_reg_raw(5))):
        if only and name not in only:
            continue
        Xtr, Xte, ytr, yte = load()
        tr, te, model = (os.path.join(WORK, name + s) for s in (".tr.lmdb", ".te.lmdb", ".bin"))
        for X, y, csv, out in ((Xtr, ytr, "-train.csv", tr), (Xte, yte, "-test.csv", te)):
            with open(os.path.join(WORK, name + csv), "w") as f:
                for xi, yi in zip(X, y):
                    f.write("%.9g," % yi + ",".join("%.9g" % v for v in xi) + "\n")
            if os.path.exists(out):
                os.unlink(out)
            run([HOG, "data", "import", "--quiet", "--task", "regression", "-f", "csv", os.path.join(WORK, name + csv), out])
        if os.path.exists(model):
            os.unlink(model)
        run([HOG, "train", "--data", tr, "--quiet", "--save", model])
        ev = json.loads(run([HOG, "eval", "--model", model, "--data", te, "--json"]).stdout)
        p = LinearRegression().fit(Xtr, ytr).predict(Xte)
        sk = float(np.sqrt(((p - yte) ** 2).mean()))
        base = float(np.sqrt(((ytr.mean() - yte) ** 2).mean()))
        rows.append((name, what, len(ytr), len(yte), ev["rmse"], sk, base))
        print("%-15s hogwild rmse %.3f  LinearRegression %.3f  (the mean: %.3f)" % (name, ev["rmse"], sk, base), flush=True)
    return rows


def sk_set(loader):
    X, y = loader(return_X_y=True)
    return split(X, y)


def write_csv(path, X, y):
    with open(path, "w") as f:
        for xi, yi in zip(X, y):
            f.write("%d," % yi + ",".join("%.9g" % v for v in xi) + "\n")


def write_idx(prefix, X, y):
    n, d = X.shape
    side = int(round(d ** 0.5))
    with open(prefix + "-images", "wb") as f:
        f.write(struct.pack(">IIII", 0x803, n, side, side))
        f.write(X.astype(np.uint8).tobytes())
    with open(prefix + "-labels", "wb") as f:
        f.write(struct.pack(">II", 0x801, n))
        f.write(y.astype(np.uint8).tobytes())


def read_idx(path):
    with gzip.open(path, "rb") as f:
        magic = struct.unpack(">I", f.read(4))[0]
        dims = struct.unpack(">" + "I" * (magic & 0xFF), f.read(4 * (magic & 0xFF)))
        return np.frombuffer(f.read(), dtype=np.uint8).reshape(dims[0], -1)


def run(cmd, check=True):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if check and r.returncode:
        sys.exit("failed (%d): %s\n%s%s" % (r.returncode, " ".join(cmd), r.stdout, r.stderr))
    return r


def one_class(pred):
    return len(set(np.asarray(pred).ravel().tolist())) == 1


def hog_run(name, tr, te, flags, tag):
    model = os.path.join(WORK, "%s-%s.bin" % (name, tag))
    if os.path.exists(model):
        os.unlink(model)
    t = time.time()
    r = run([HOG, "train", "--data", tr, "--quiet", "--save", model] + flags)
    secs = time.time() - t
    r2 = run([HOG, "eval", "--model", model, "--data", te, "--json", "--confusion"], check=False)
    if r2.returncode:  # not a multiclass model
        r2 = run([HOG, "eval", "--model", model, "--data", te, "--json"])
    ev = json.loads(r2.stdout)
    if ev.get("confusion"):
        cols = np.array(ev["confusion"]).sum(axis=0)
        single = int((cols > 0).sum()) == 1
    else:
        single = ev.get("auc") is not None and abs(ev["auc"] - 0.5) < 1e-9
    notes = [l.split(" (")[0].replace("hogwild: ", "") for l in r.stderr.splitlines()
             if "normalize:" in l or "loss:" in l]
    return 100 * ev["accuracy"], single, secs, notes


def liblinear(name, Xtr, ytr, Xte, yte):
    if not shutil.which("liblinear-train"):
        return None
    a, b, m, p = (os.path.join(WORK, name + s) for s in (".ll-tr", ".ll-te", ".ll-model", ".ll-pred"))
    dump_svmlight_file(Xtr, ytr, a, zero_based=False)
    dump_svmlight_file(Xte, yte, b, zero_based=False)
    run(["liblinear-train", "-q", "-s", "0", a, m])
    out = run(["liblinear-predict", b, m, p]).stdout
    pred = np.loadtxt(p)
    return float(out.split("=")[1].split("%")[0]), one_class(pred)


def sk_runs(Xtr, ytr, Xte, yte):
    res = []
    for est in (LogisticRegression(), MLPClassifier(random_state=0)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # ConvergenceWarning: the defaults are what is measured
            est.fit(Xtr, ytr)
        pred = est.predict(Xte)
        res.append((100 * float((pred == yte).mean()), one_class(pred)))
    return res


def cell(v):
    if v is None:
        return "-"
    acc, single = v[0], v[1]
    return "%.2f%s" % (acc, " 1cls" if single else "")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="")
    ap.add_argument("--hog-flags", default="")
    ap.add_argument("--mlp-flags", default="")
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "results", "accuracy.md"))
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    os.makedirs(WORK, exist_ok=True)

    sets = [  # name, what, loader
        ("digits", "sklearn digits: 8x8 pixels 0..16, 10 classes", lambda: sk_set(datasets.load_digits)),
        ("breast-cancer", "sklearn breast cancer: 30 raw measurements (up to 4,254), binary",
         lambda: sk_set(datasets.load_breast_cancer)),
        ("wine", "sklearn wine: 13 raw measurements (up to 1,680), 3 classes", lambda: sk_set(datasets.load_wine)),
        ("iris", "sklearn iris: 4 measurements in cm, 3 classes", lambda: sk_set(datasets.load_iris)),
        ("gen-binary-raw", "generated: 20 columns x 10^U(0,4), binary", lambda: gen_binary_raw(7)),
        ("gen-multi-raw", "generated: 30 signed columns x 10^U(0,4), 5 classes", lambda: gen_multi_raw(8)),
        ("gen-counts", "generated bag of words: counts of 500 words in documents of 10..59 words, 4 topics mixed 20:80 with the average", lambda: gen_counts(9)),
        ("gen-tfidf", "the same as TF-IDF (unit-norm rows)", lambda: gen_counts(9, True)),
        ("a9a", "a9a -> a9a.t (shared): 123 binary features", None),
    ]
    if not args.quick and os.path.isdir(FASHION):
        sets.append(("fashion-mnist", "Fashion-MNIST: 28x28 pixels 0..255, 10 classes; first %d of the "
                     "training set, the whole test set" % FASHION_TRAIN, None))
    only = set(filter(None, args.only.split(",")))
    rows = []
    for name, what, load in sets:
        if only and name not in only:
            continue
        tr, te = (os.path.join(WORK, name + s) for s in (".tr.lmdb", ".te.lmdb"))
        for p in (tr, te):
            if os.path.exists(p):
                os.unlink(p)
        imp = [HOG, "data", "import", "--quiet"]
        if name == "a9a":
            if not os.path.exists(os.path.join(SHARED, "a9a")):
                continue
            run(imp + ["-f", "libsvm", "--dim", "123", os.path.join(SHARED, "a9a"), tr])
            run(imp + ["-f", "libsvm", "--dim", "123", os.path.join(SHARED, "a9a.t"), te])
            Xtr, ytr = load_svmlight_file(os.path.join(SHARED, "a9a"), n_features=123)
            Xte, yte = load_svmlight_file(os.path.join(SHARED, "a9a.t"), n_features=123)
        elif name == "fashion-mnist":
            Xtr = read_idx(FASHION + "/train-images-idx3-ubyte.gz")[:FASHION_TRAIN]
            ytr = read_idx(FASHION + "/train-labels-idx1-ubyte.gz").ravel()[:FASHION_TRAIN]
            Xte = read_idx(FASHION + "/t10k-images-idx3-ubyte.gz")
            yte = read_idx(FASHION + "/t10k-labels-idx1-ubyte.gz").ravel()
            for X, y, p, out in ((Xtr, ytr, "fm-train", tr), (Xte, yte, "fm-test", te)):
                write_idx(os.path.join(WORK, p), X, y)
                run(imp + ["-f", "idx", os.path.join(WORK, p + "-images"), os.path.join(WORK, p + "-labels"), out])
            Xtr, Xte = Xtr.astype(float), Xte.astype(float)
        else:
            Xtr, Xte, ytr, yte = load()
            write_csv(os.path.join(WORK, name + "-train.csv"), Xtr, ytr)
            write_csv(os.path.join(WORK, name + "-test.csv"), Xte, yte)
            run(imp + ["-f", "csv", os.path.join(WORK, name + "-train.csv"), tr])
            run(imp + ["-f", "csv", os.path.join(WORK, name + "-test.csv"), te])
        lin = hog_run(name, tr, te, args.hog_flags.split(), "linear")
        mlp = hog_run(name, tr, te, ["--model", "mlp", "--layers", "100"] + args.mlp_flags.split(), "mlp")
        lr, skm = sk_runs(Xtr, ytr, Xte, yte)
        ll = liblinear(name, Xtr, ytr, Xte, yte)
        rows.append((name, what, Xtr.shape[0], Xte.shape[0], lin, mlp, lr, skm, ll))
        print("%-15s lin %s  mlp %s  LR %s  MLP %s  liblinear %s  (%s | %s)" % (
            name, cell(lin), cell(mlp), cell(lr), cell(skm), cell(ll), "; ".join(lin[3]), "; ".join(mlp[3])),
            flush=True)
    reg = regression(only)
    if args.out == "-" or only:
        return
    write_md(args.out, rows, reg)


def write_md(path, rows, reg):
    keep = ""  # the hand-written notes from "## Why these defaults" on are kept
    if os.path.exists(path):
        old = open(path).read()
        if "\n## Why these defaults" in old:
            keep = old[old.index("\n## Why these defaults"):]
    commit = run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"]).stdout.strip()
    dirty = run(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no"]).stdout.strip()
    cpu = [l.split(":", 1)[1].strip() for l in run(["lscpu"]).stdout.splitlines() if l.startswith("Model name")]
    import sklearn
    with open(path, "w") as f:
        f.write("# Default-flag accuracy beside scikit-learn and liblinear\n\n")
        f.write("One run of `/usr/bin/python3 bench/accuracy.py` (one seed per set; test accuracy in %%). "
                "Commit %s%s, %s, %d cores seen, Python %s, scikit-learn %s.\n\n" % (
                    commit, " (with uncommitted changes)" if dirty else "", cpu[0] if cpu else platform.machine(),
                    os.cpu_count(), platform.python_version(), sklearn.__version__))
        f.write("hogwild runs take no flag but the model's: `train --data TR` (linear; the loss follows the "
                "set's task: softmax for multiclass) and `train --data TR --model mlp --layers 100` (sgd with momentum 0.9 by default); "
                "--normalize auto scales every feature by 1/max|x| when some value of the training set is beyond [-1, 1], and --epochs auto gives a set of n < 13,108 examples 262144/n epochs (at most 1000). scikit-learn: "
                "LogisticRegression() and MLPClassifier(random_state=0) on the same raw features. "
                "liblinear: `liblinear-train -s 0` (L2 logistic regression, C = 1). "
                "`1cls`: every test prediction is one class.\n\n")
        f.write("| set | train / test | hogwild linear | sklearn LR | liblinear | hogwild mlp | sklearn MLP |\n")
        f.write("|---|---|---|---|---|---|---|\n")
        for name, what, ntr, nte, lin, mlp, lr, skm, ll in rows:
            f.write("| %s | %d / %d | %s | %s | %s | %s | %s |\n" % (
                name, ntr, nte, cell(lin), cell(lr), cell(ll), cell(mlp), cell(skm)))
        f.write("\nThe sets:\n\n")
        for name, what, *_ in rows:
            f.write("- %s: %s\n" % (name, what))
        f.write("\nRegression, test RMSE: `hogwild train --data TR` (squared loss from the task) beside "
                "scikit-learn's LinearRegression() and the training mean:\n\n")
        f.write("| set | train / test | hogwild linear | sklearn LinearRegression | the mean |\n|---|---|---|---|---|\n")
        for name, what, ntr, nte, h, sk, base in reg:
            f.write("| %s | %d / %d | %.3f | %.3f | %.3f |\n" % (name, ntr, nte, h, sk, base))
        f.write("\n")
        for name, what, *_ in reg:
            f.write("- %s: %s\n" % (name, what))
        f.write(keep)


if __name__ == "__main__":
    main()
