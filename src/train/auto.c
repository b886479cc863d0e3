/* --mode auto: which update mode is fastest depends on the data (how often
 * workers touch one coordinate), the model and the machine (cores, caches,
 * sockets), so measure instead of guessing -- the adaptation the KungFu work
 * argues for, inside one machine.
 *
 * The probe: a random sample of the training set (PROBE_EXAMPLES, a few
 * thousand per thread), two epochs of every mode the model takes, each REPS
 * times, with the run's own options and thread count; serial gives the
 * reference loss. A mode qualifies when its progressive training loss of the
 * second epoch is within 1% of serial's; the fastest qualifying one (examples
 * per second, medians) wins, serial included. What was measured goes into a
 * sentence for the user (hog_train_result.mode_why).
 */
#include "train/auto.h"
#include "sys/err.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

#define PROBE_PER_THREAD 8192
#define PROBE_MIN 16384
/* The probe of a sparse set holds at least 4 times the model's width in
 * nonzeros: on the 2 M-feature set (72 nonzeros a row, 270,000 rows) a
 * 16,384-example sample ran serial and buffered at the same pace (0.007
 * s/epoch each at 2 threads, three runs), so auto chose serial, where the full
 * set runs buffered 1.3-2.7x faster (bench/results/default-mode.md; 1.2x in
 * two other runs of 4 epochs, replica as fast); on 135,000 examples buffered
 * ran 2.1-2.4x serial. 111,000 examples there (auto then chose replica, 2.04x
 * on the probe, buffered 1.79x), and 33 s of probing instead of 18: each of
 * the 24 probe runs sets up a model of 2 M features. The RCV1-shaped set's
 * 47,237 features still take the 16,384 of before.
 *
 * 64 times, not 4: on a set of 400,000 features (data gen --seed 4, 300,000
 * rows of 71 nonzeros, 90/10) the 22,424-example sample of 4 chose serial in 3
 * of 3 runs at 2 threads (replica 0.73-0.76x, buffered 0.91-0.96x on it),
 * where the full set ran replica 1.3-1.4x serial and buffered 0.9-1.1x with a
 * test set (averaging every epoch; AMD EPYC VM, bench/results/
 * scaling-amd-mid-491a269.md): the epoch's two sweeps of replica's copy
 * weighed as much as its updates. At 16 (89,696 examples) it chose buffered,
 * 2 of 2 (1.58x; replica 1.25x); at 64 (the whole set, 269,763) replica, 2 of
 * 2 (1.04x and 1.80x), in 26-28 s of probing. The 2 M-feature set is probed
 * whole from 16 on (36-37 s, buffered as before); the RCV1-shaped set's probe
 * grows from 16,384 examples to 42,469 (4.0 -> 5.5 s, replica either way, its
 * probe 2.13x serial against 1.34x: nearer the full run's 2.4-2.6x). */
#define PROBE_WIDTH 64
#define PROBE_EPOCHS 2
#define REPS 3

static void sort3(double *v, int n)
{
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
			double t = v[j];
			v[j] = v[j - 1];
			v[j - 1] = t;
		}
}

/* REPS short runs of one mode on the sample: median throughput and loss. */
static int probe_mode(const hog_data *s, const hog_train_opts *base, int mode, eng_probe *p, hog_err *err)
{
	double v[REPS], l[REPS];
	hog_train_opts o = *base;
	o.mode = mode;
	o.epochs = PROBE_EPOCHS;
	o.checkpoint = o.resume = o.save = NULL;
	o.on_epoch = NULL;
	o.on_progress = NULL;
	o.on_note = NULL; /* (replica's node replicas: said once, by the run itself) */
	o.measure_delay = 0;
	o.diagnostics = 0;
	o.round_examples = 0;
	p->mode = mode;
	p->diverged = 0;
	for (int r = 0; r < REPS; r++) {
		hog_train_result res;
		int rc = hog_train(s, NULL, &o, NULL, &res, err);
		if (rc == HOG_EDIVERGED || rc == HOG_ECONFIG) { /* cannot take the step size, or these
		                                                    options (buffered with adarevision ...) */
			p->ex_per_s = 0;
			p->loss = INFINITY;
			p->diverged = rc == HOG_EDIVERGED;
			return 0;
		}
		if (rc)
			return rc;
		/* the second epoch's pace: the first pays for what a full run pays once
		 * (the private copies' and queues' pages touched first, the caches
		 * filled), which on a sample small against the model (2 M features) had
		 * put serial ahead of buffered, twice serial's speed in the full run */
		v[r] = res.last.seconds > 0 ? (double)res.last.examples / res.last.seconds : 0;
		l[r] = res.last.train_loss;
		p->threads = res.threads;
	}
	sort3(v, REPS);
	sort3(l, REPS);
	p->ex_per_s = v[REPS / 2];
	p->loss = l[REPS / 2];
	return 0;
}

int eng_auto_qualifies(const eng_probe *p, const eng_probe *ref)
{
	return p->loss <= ref->loss * 1.01 + 1e-9; /* (NaN and INFINITY never do, but beside an infinite serial) */
}

int eng_auto_choose(const eng_probe *p, int np, int *qualified)
{
	int best = 0;
	*qualified = 0;
	for (int i = 1; i < np; i++) {
		int ok = eng_auto_qualifies(&p[i], &p[0]);
		*qualified += ok;
		if (ok && p[i].ex_per_s > p[best].ex_per_s)
			best = i;
	}
	return best;
}

int eng_auto_mode(const hog_data *tr, const hog_train_opts *o, unsigned modes, int cores, enum hog_mode *out,
                  char *why, size_t whylen, hog_err *err)
{
	const int T = o->threads ? o->threads : cores;
	*out = HOG_MODE_SERIAL;
	if (T <= 1) {
		snprintf(why, whylen, "auto: serial (one thread: no mode to compare)");
		return 0;
	}
	uint64_t n = (uint64_t)T * PROBE_PER_THREAD;
	n = n < PROBE_MIN ? PROBE_MIN : n;
	/* a sparse set's probe holds PROBE_WIDTH times the model's width in
	 * nonzeros: what an epoch costs whatever its length (its start and end
	 * sweep the model) must not outweigh the updates */
	if (tr->offsets && tr->n && tr->nnz) {
		const uint64_t w = (uint64_t)((double)PROBE_WIDTH * (double)tr->dim / ((double)tr->nnz / (double)tr->n));
		n = w > n ? w : n;
	}
	hog_data *s;
	int rc = hog_data_sample(tr, n, o->seed ^ 0xA070ull, &s, err);
	if (rc)
		return rc;
	eng_probe p[HOG_MODE_ALL], *ref = &p[0];
	int np = 0;
	if (!(rc = probe_mode(s, o, HOG_MODE_SERIAL, &p[np++], err)))
		for (int m = HOG_MODE_SERIAL + 1; m < HOG_MODE_ALL && !rc; m++)
			if (m != HOG_MODE_AUTO && (modes >> m & 1u))
				rc = probe_mode(s, o, m, &p[np++], err);
	hog_data_free(s);
	if (rc)
		return hog_err_prefix(err, "--mode auto: probing the modes");
	int qualified, diverged = 0;
	const eng_probe *best = &p[eng_auto_choose(p, np, &qualified)];
	*out = (enum hog_mode)best->mode;
	for (int i = 0; i < np; i++)
		diverged += p[i].diverged;
	if (diverged == np) { /* (the run itself diverges too, and says where) */
		snprintf(why, whylen, "auto: serial (the probe diverged in every mode: no mode to compare at these options)");
		return 0;
	}
	int at = snprintf(why, whylen, "auto: %s (%.3g examples/s on a %llu-example probe, %.2fx serial; loss %.4g, "
	                  "serial's %.4g); %d of %d parallel modes reached serial's loss within 1%%:",
	                  hog_mode_name(*out), best->ex_per_s, (unsigned long long)(n < tr->n ? n : tr->n),
	                  ref->ex_per_s > 0 ? best->ex_per_s / ref->ex_per_s : 0, best->loss, ref->loss, qualified, np - 1);
	for (int i = 1; i < np && at > 0 && (size_t)at < whylen; i++)
		at += p[i].diverged ? snprintf(why + at, whylen - at, " %s diverged", hog_mode_name(p[i].mode))
		      : snprintf(why + at, whylen - at, " %s %.2fx%s", hog_mode_name(p[i].mode),
		                 ref->ex_per_s > 0 ? p[i].ex_per_s / ref->ex_per_s : 0,
		                 eng_auto_qualifies(&p[i], ref) ? "" : "(loss)");
	return 0;
}
