"""Regression sets for bench/squared_start.sh: scikit-learn's diabetes and six
generated ones, each as NAME_tr.csv and NAME_te.csv (75/25, with a header) in
the directory given; prints a line a set: its name, the training labels'
standard deviation and least squares' test RMSE (LinearRegression)."""
import sys

import numpy as np
from sklearn.datasets import load_diabetes, make_friedman1, make_regression
from sklearn.linear_model import LinearRegression
from sklearn.model_selection import train_test_split


def sets():
    X, y = load_diabetes(return_X_y=True, scaled=False)
    yield "diabetes", X, y
    X, y = make_regression(n_samples=3000, n_features=20, n_informative=10, noise=20, random_state=3)
    yield "mkreg", X, y
    X, y = make_friedman1(n_samples=3000, noise=1, random_state=4)
    yield "friedman", X, y
    yield "friedman/10", X, y / 10
    yield "friedman/100", X, y / 100
    rng = np.random.default_rng(5)  # labels 2000 +- 3.5 (years)
    X = rng.normal(size=(3000, 8)) * [1, 2, 3, 1, 1, 5, 1, 1] + [0, 0, 10, 0, 0, 3, 0, 0]
    yield "years", X, 2000 + X @ rng.normal(size=8) + rng.normal(size=3000) * 2
    X, y = make_regression(n_samples=3000, n_features=30, n_informative=30, noise=5, random_state=6,
                           effective_rank=5)
    yield "price", X, y * 1000 + 5e4  # prices 50,000 +- 5,400


def main():
    out = sys.argv[1]
    for name, X, y in sets():
        k = name.replace("/", "")
        Xa, Xb, ya, yb = train_test_split(X, y, test_size=0.25, random_state=0)
        for part, XX, yy in (("tr", Xa, ya), ("te", Xb, yb)):
            with open(f"{out}/{k}_{part}.csv", "w") as f:
                f.write(",".join([f"f{i}" for i in range(X.shape[1])] + ["target"]) + "\n")
                for r, t in zip(XX, yy):
                    f.write(",".join("%.6g" % v for v in r) + ",%.6g\n" % t)
        m = LinearRegression().fit(Xa, ya)
        print(k, "%.4g" % ya.std(), "%.4f" % np.sqrt(np.mean((m.predict(Xb) - yb) ** 2)))


main()
