/* The reference for the mf MPI tests (tests/cli.sh): matrix factorization on R
 * ranks written as a plain loop in double precision, independent of the
 * trainer's code (no vectors, no layout, no engine), from the ratings text that
 * the test imports.
 *
 * What it computes, as the issue states it: users dealt over the ranks (rank r
 * takes users [U r / R, U (r + 1) / R) in order of first appearance, which is
 * how `data import -f ratings` numbers them) and the ratings of its users in
 * file order; at step t every rank takes the t-th rating of its list, starting
 * from the same item factors and biases; each rank's user rows are its own;
 * then the items' side (factors, biases, AdaGrad sums) is replaced by the mean
 * over the ranks (a rank with no rating left keeps the mean, and still counts).
 * One thread a rank, no shuffle, a constant step: what `train --mode serial
 * --no-shuffle --schedule constant --sync-every 1 --threads 1` does. With R = 1
 * it is plain serial SGD (or per-row AdaGrad, LIBMF's).
 *
 * The update (model/mf.h): e = r - (mu + b_u + b_i + p.q); p += lr (e q - l2 p),
 * q += lr (e p - l2 q) from the old p and q; b += lr (e - l2 b). AdaGrad: the
 * step lr / sqrt(G) with G from before the rating, G of a row += the mean over
 * its k coordinates of the squared gradient, G of a bias += its squared gradient;
 * every G starts at 1. mu is the mean training rating. Factors start as the
 * trainer's do: uniform in (0, 1/sqrt(k)) from splitmix64 streams of (seed, row)
 * (train/mf_train.c), so the two can be held against each other.
 *
 * Prints the prediction of every rating of the file, one a line, in file order.
 *   cc -O2 -o ref tests/mf_mpi_ref.c -lm
 *   ./ref R K LR L2 EPOCHS SEED BIASES(0|1) ADAGRAD(0|1) ratings.txt
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXN 100000
#define MAXID 10000

static uint64_t mix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static long ru[MAXN], ri[MAXN];
static float rr[MAXN];
static long umap[MAXID], imap[MAXID];

static void *alloc0(size_t n)
{
	void *p = calloc(n ? n : 1, 1);
	if (!p) {
		fprintf(stderr, "mf_mpi_ref: out of memory\n");
		exit(1);
	}
	return p;
}

/* Rows of a side: initial factors, as the trainer makes them, for rated rows. */
static void init_rows(double *X, long rows, int k, const long *cnt, uint64_t seed, int side)
{
	const float scale = (float)(1.0 / sqrt((double)k));
	for (long r = 0; r < rows; r++) {
		if (!cnt[r])
			continue;
		uint64_t s = (seed * 2 + (uint64_t)side) * 0xD1B54A32D192ED03ull ^ (uint64_t)r;
		for (int d = 0; d < k; d++)
			X[r * k + d] = ((float)(mix64(&s) >> 40) + 0.5f) * 0x1p-24f * scale;
	}
}

int main(int argc, char **argv)
{
	if (argc != 10) {
		fprintf(stderr, "usage: mf_mpi_ref R K LR L2 EPOCHS SEED BIASES ADAGRAD ratings.txt\n");
		return 2;
	}
	const int R = atoi(argv[1]), k = atoi(argv[2]), epochs = atoi(argv[5]), bias = atoi(argv[7]),
	          ada = atoi(argv[8]);
	const double lr = atof(argv[3]), l2 = atof(argv[4]);
	const uint64_t seed = strtoull(argv[6], NULL, 10);
	FILE *f = fopen(argv[9], "r");
	if (!f || R < 1 || k < 1) {
		fprintf(stderr, "mf_mpi_ref: bad arguments or %s unreadable\n", argv[9]);
		return 2;
	}
	/* ids renumbered in order of first appearance */
	long n = 0, U = 0, I = 0, u, i;
	float r;
	memset(umap, -1, sizeof umap);
	memset(imap, -1, sizeof imap);
	while (n < MAXN && fscanf(f, "%ld %ld %f", &u, &i, &r) == 3) {
		if (u < 0 || u >= MAXID || i < 0 || i >= MAXID) {
			fprintf(stderr, "mf_mpi_ref: ids must be 0..%d\n", MAXID - 1);
			return 2;
		}
		if (umap[u] < 0)
			umap[u] = U++;
		if (imap[i] < 0)
			imap[i] = I++;
		ru[n] = umap[u], ri[n] = imap[i], rr[n] = r;
		n++;
	}
	fclose(f);
	long *ucnt = alloc0(U * sizeof *ucnt), *icnt = alloc0(I * sizeof *icnt);
	double sum = 0;
	for (long j = 0; j < n; j++)
		ucnt[ru[j]]++, icnt[ri[j]]++, sum += rr[j];
	const double mu = bias ? (double)(float)(sum / (double)n) : 0;

	double *P = alloc0(U * k * sizeof *P), *Q = alloc0(I * k * sizeof *Q);
	double *bu = alloc0(U * sizeof *bu), *bi = alloc0(I * sizeof *bi);
	double *gu = alloc0(U * sizeof *gu), *gi = alloc0(I * sizeof *gi);
	double *gbu = alloc0(U * sizeof *gbu), *gbi = alloc0(I * sizeof *gbi);
	init_rows(P, U, k, ucnt, seed, 0);
	init_rows(Q, I, k, icnt, seed, 1);
	for (long x = 0; x < U; x++)
		gu[x] = gbu[x] = 1;
	for (long x = 0; x < I; x++)
		gi[x] = gbi[x] = 1;

	/* each rank's list of ratings */
	long **list = alloc0(R * sizeof *list), *len = alloc0(R * sizeof *len), mx = 0;
	for (int q = 0; q < R; q++) {
		const long lo = U * q / R, hi = U * (q + 1) / R;
		list[q] = alloc0(n * sizeof **list);
		for (long j = 0; j < n; j++)
			if (ru[j] >= lo && ru[j] < hi)
				list[q][len[q]++] = j;
		mx = len[q] > mx ? len[q] : mx;
	}
	/* the items' side each rank ends a step with, and their sum */
	double *q_new = alloc0(k * sizeof *q_new), *dq = alloc0((size_t)I * k * sizeof *dq);
	double *dbi = alloc0(I * sizeof *dbi), *dgi = alloc0(I * sizeof *dgi), *dgbi = alloc0(I * sizeof *dgbi);
	for (int ep = 0; ep < epochs; ep++) {
		for (long t = 0; t < mx; t++) {
			memset(dq, 0, (size_t)I * k * sizeof *dq);
			memset(dbi, 0, I * sizeof *dbi);
			memset(dgi, 0, I * sizeof *dgi);
			memset(dgbi, 0, I * sizeof *dgbi);
			for (int q = 0; q < R; q++) {
				if (t >= len[q])
					continue;
				const long j = list[q][t], a = ru[j], b = ri[j];
				double *p = P + a * k, *qq = Q + b * k;
				double pred = 0;
				for (int d = 0; d < k; d++)
					pred += p[d] * qq[d];
				if (bias)
					pred += mu + bu[a] + bi[b];
				const double e = rr[j] - pred;
				const double sp = ada ? lr / sqrt(gu[a]) : lr, sq = ada ? lr / sqrt(gi[b]) : lr;
				double Gp = 0, Gq = 0;
				for (int d = 0; d < k; d++) {
					const double gp = l2 * p[d] - e * qq[d], gq = l2 * qq[d] - e * p[d];
					Gp += gp * gp, Gq += gq * gq;
					q_new[d] = qq[d] - sq * gq;
					p[d] -= sp * gp; /* the user's row: this rank's own */
				}
				for (int d = 0; d < k; d++)
					dq[b * k + d] += q_new[d] - qq[d];
				if (ada) {
					gu[a] += Gp / k;
					dgi[b] += Gq / k;
				}
				if (bias) {
					const double gb_u = l2 * bu[a] - e, gb_i = l2 * bi[b] - e;
					bu[a] -= (ada ? lr / sqrt(gbu[a]) : lr) * gb_u;
					dbi[b] -= (ada ? lr / sqrt(gbi[b]) : lr) * gb_i;
					if (ada) {
						gbu[a] += gb_u * gb_u;
						dgbi[b] += gb_i * gb_i;
					}
				}
			}
			/* the mean over the ranks: the common start plus the mean change */
			for (long x = 0; x < (long)I * k; x++)
				Q[x] += dq[x] / R;
			for (long x = 0; x < I; x++) {
				bi[x] += dbi[x] / R;
				gi[x] += dgi[x] / R;
				gbi[x] += dgbi[x] / R;
			}
		}
	}
	for (long j = 0; j < n; j++) {
		double pred = bias ? mu + bu[ru[j]] + bi[ri[j]] : 0;
		for (int d = 0; d < k; d++)
			pred += P[ru[j] * k + d] * Q[ri[j] * k + d];
		printf("%.9g\n", pred);
	}
	return 0;
}
