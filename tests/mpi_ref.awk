# The reference for the MPI tests (tests/cli.sh): data-parallel SGD written as a
# plain loop, from LIBSVM text (hogwild data export). R ranks, each holding the
# contiguous slice [n*r/R, n*(r+1)/R) of the examples in file order; at step t
# every rank takes the t-th example of its slice from the same model, and the
# ranks' models are then averaged (a rank with no example left keeps the model
# unchanged, and still counts in the mean). Logistic loss, constant step LR,
# no regularization, EPOCHS passes. With R=1 this is plain serial SGD.
# Prints the margin b + w.x of every example, one a line, in file order.
#   awk -v R=2 -v LR=0.2 -v EPOCHS=2 -f mpi_ref.awk data.txt
{
	i = NR - 1
	y[i] = $1 + 0
	k[i] = NF - 1
	for (j = 2; j <= NF; j++) {
		split($j, a, ":")
		id[i, j - 2] = a[1]
		x[i, j - 2] = a[2] + 0
	}
}
END {
	n = NR
	mx = 0
	for (r = 0; r < R; r++) {
		lo[r] = int(n * r / R)
		hi[r] = int(n * (r + 1) / R)
		if (hi[r] - lo[r] > mx) mx = hi[r] - lo[r]
	}
	b = 0
	for (ep = 0; ep < EPOCHS; ep++) {
		for (t = 0; t < mx; t++) {
			split("", dw)
			db = 0
			for (r = 0; r < R; r++) {
				i = lo[r] + t
				if (i >= hi[r]) continue
				m = b
				for (j = 0; j < k[i]; j++) m += w[id[i, j]] * x[i, j]
				g = -y[i] / (1 + exp(y[i] * m))
				db -= LR * g
				for (j = 0; j < k[i]; j++) dw[id[i, j]] -= LR * g * x[i, j]
			}
			b += db / R
			for (v in dw) w[v] += dw[v] / R
		}
	}
	for (i = 0; i < n; i++) {
		m = b
		for (j = 0; j < k[i]; j++) m += w[id[i, j]] * x[i, j]
		printf "%.9g\n", m
	}
}
