/* The compare report: an 80-column table on stdout, CSV, JSON, and plots drawn by
 * gnuplot (optional: without it, one line says how to get them). */
#include "cli/compare.h"
#include "cli/cli.h"
#include "model/linear.h"
#include "sys/file.h"
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static double speedup(const cmp_report *r, const cmp_cell *c)
{
	return c->epoch_s > 0 ? r->cells[0].epoch_s / c->epoch_s : NAN;
}

static void fmt_num(char *buf, size_t n, const char *fmt, double v)
{
	cli_fmt_num(buf, n, fmt, v);
}

/* What the work column counts for this model (hog_epoch_stats.unit: "nnz",
 * "ratings", "flop"), from the first run that finished an epoch. */
static const char *report_unit(const cmp_report *r)
{
	for (int i = 0; i < r->ncells; i++)
		for (int k = 0; k < r->cells[i].nruns; k++)
			if (r->cells[i].runs[k].nepochs && r->cells[i].runs[k].epochs[0].unit)
				return r->cells[i].runs[k].epochs[0].unit;
	return "nnz";
}

/* A CSV field: the number, or nothing when there is none (NaN, Inf). */
static void csv_num(FILE *f, const char *fmt, double v)
{
	fputc(',', f);
	if (isfinite(v))
		fprintf(f, fmt, v);
}

/* The loss a cell is judged by: test when there is a test set, else train. */
static double cell_loss(const cmp_report *r, const cmp_cell *c)
{
	return r->test ? c->test_loss : c->train_loss;
}

/* A cell's workers in words: "2 threads", "1 thread x 2 ranks". */
static const char *workers(const cmp_cell *c, char *buf, size_t n)
{
	snprintf(buf, n, "%d thread%s", c->threads, c->threads == 1 ? "" : "s");
	if (c->ranks > 1)
		snprintf(buf + strlen(buf), n - strlen(buf), " x %d ranks", c->ranks);
	return buf;
}

/* What the table says, in words, from this run's own figures: the parallel
 * cell (more than one worker: threads, or MPI ranks) that reached the target
 * loss (the "to target" column's: serial's + 1%, or --target-loss) soonest, as
 * that column has it (a cell's epochs faster than serial's may need more of
 * them: the fastest epochs were named once, above a table whose "to target"
 * said otherwise), a faster cell that did not get there sooner, whether the
 * mode alone on one thread was as fast (the gain is then the mode's, not the
 * threads'), and where plain lock-free stands against it and why. Epochs too
 * short to time are said to be. */
static void print_verdict(const cmp_report *r, FILE *f)
{
	if (r->ncells < 2 || !r->cells[0].done)
		return;
	const cmp_cell *ser = &r->cells[0], *best = NULL, *plain = NULL, *one = NULL, *quick = NULL;
	const double ref = cell_loss(r, ser);
	char wb[48], tb[2][32];
	for (int i = 1; i < r->ncells; i++) {
		const cmp_cell *c = &r->cells[i];
		if (!c->done || c->threads * c->ranks < 2)
			continue;
		if (c->mode == HOG_MODE_LOCKFREE && (!plain || c->threads > plain->threads))
			plain = c;
		if (isfinite(c->time_to_target) &&
		    (!best || c->time_to_target < best->time_to_target ||
		     (c->time_to_target == best->time_to_target && c->epoch_s < best->epoch_s)))
			best = c;
		if (!quick || c->epoch_s < quick->epoch_s)
			quick = c;
	}
	fprintf(f, "\nverdict (this run):\n ");
	if (ser->epoch_s < 0.01) /* (the table's s/epoch reads 0.00x) */
		fprintf(f, " (epochs of %.1f ms: timings this short are mostly noise; a larger set or\n  more epochs gives a "
		        "verdict to trust)\n ", 1e3 * ser->epoch_s);
	if (!best) {
		fprintf(f, " no parallel cell reached the target %s loss %.5f (serial's %.5f).\n", r->test ? "test" : "train",
		        r->target, ref);
		return;
	}
	const double st = ser->time_to_target, gain = isfinite(st) ? st / best->time_to_target : INFINITY;
	fmt_num(tb[0], sizeof tb[0], "%.3g s", best->time_to_target);
	fmt_num(tb[1], sizeof tb[1], "%.3g s", st);
	if (gain <= 1.0)
		fprintf(f, " no parallel mode reached the target loss sooner than serial (best: %s,\n  %s, in %s against "
		        "serial's %s, its epochs %.2fx serial's speed).\n", hog_mode_name(best->mode),
		        workers(best, wb, sizeof wb), tb[0], tb[1], speedup(r, best));
	else if (isfinite(gain))
		fprintf(f, " fastest to the target loss: %s with %s, %.2fx serial (%s against %s;\n  %.3f s an epoch, "
		        "%s loss %.5f vs %.5f).\n", hog_mode_name(best->mode), workers(best, wb, sizeof wb), gain, tb[0],
		        tb[1], best->epoch_s, r->test ? "test" : "train", cell_loss(r, best), ref);
	else
		fprintf(f, " fastest to the target loss: %s with %s, in %s (serial's runs never reached it;\n  %.3f s an "
		        "epoch, %s loss %.5f vs %.5f).\n", hog_mode_name(best->mode), workers(best, wb, sizeof wb), tb[0],
		        best->epoch_s, r->test ? "test" : "train", cell_loss(r, best), ref);
	if (quick != best && speedup(r, quick) > speedup(r, best) && speedup(r, quick) > 1.0) {
		fprintf(f, "  %s with %s ran its epochs %.2fx serial's speed, ", hog_mode_name(quick->mode),
		        workers(quick, wb, sizeof wb), speedup(r, quick));
		fmt_num(tb[0], sizeof tb[0], "%.3g s", quick->time_to_target);
		if (isfinite(quick->time_to_target))
			fprintf(f, "but took %s to reach\n  the target loss.\n", tb[0]);
		else
			fprintf(f, "but did not reach the\n  target loss (%s loss %.5f).\n", r->test ? "test" : "train",
			        cell_loss(r, quick));
	}
	for (int i = 1; i < r->ncells && best->threads * best->ranks > 1; i++)
		if (r->cells[i].done && r->cells[i].mode == best->mode && r->cells[i].threads * r->cells[i].ranks == 1)
			one = &r->cells[i];
	if (one && gain > 1.0 && speedup(r, best) > 1.0 && speedup(r, one) >= speedup(r, best))
		fprintf(f, "  %s on one thread ran %.2fx serial itself: the gain is the mode's, not its\n  "
		        "workers'.\n", hog_mode_name(one->mode), speedup(r, one));
	const int mf = r->train && r->train->meta.kind == HOG_KIND_RATINGS, mlp = r->plan->base.model == HOG_MODEL_MLP;
	if (!plain || plain == best || !isfinite(speedup(r, plain)))
		return;
	fprintf(f, "  plain lockfree with %d threads: epochs %.2fx serial's speed.", plain->threads, speedup(r, plain));
	if (speedup(r, plain) >= speedup(r, best)) {
		fputc('\n', f);
		return;
	}
	/* why it lags; the modes that do not pay that named only where this run's
	 * table shows them faster at as many threads and at the target (the mlp's
	 * buffered, advised once above a row of it that never got there) */
	const enum hog_mode alt[2] = { mf ? HOG_MODE_GRID : HOG_MODE_BUFFERED, mf || mlp ? HOG_MODE_BUFFERED
	                                                                             : HOG_MODE_REPLICA };
	int shown[2] = { 0, 0 };
	for (int i = 1; i < r->ncells; i++) {
		const cmp_cell *c = &r->cells[i];
		for (int k = 0; k < 2; k++)
			shown[k] |= c->done && c->mode == alt[k] && c->threads == plain->threads && c->ranks == plain->ranks &&
			            isfinite(c->time_to_target) && speedup(r, c) > speedup(r, plain);
	}
	fputs(mf ? "\n  Its workers write the same hot rows (the most rated items' factors),\n"
	           "  whose cache lines then move between cores on nearly every update"
	      : mlp ? "\n  Its workers write the same weights on every step, whose cache lines\n"
	              "  then move between cores"
	            : "\n  Its workers write the same hot coordinates (the bias, the most frequent\n"
	              "  features), whose cache lines then move between cores on nearly every\n  update", f);
	if (mf && shown[0])
		fputs(";\n  grid, whose workers take blocks of users and items no other worker\n  touches at once, does not "
		      "pay that", f);
	else if (mlp && shown[0])
		fputs(";\n  buffered, which keeps each worker's changes and adds them in at\n  intervals, pays less", f);
	else if (!mf && !mlp && (shown[0] || shown[1]))
		fprintf(f, ";\n  %s, which keep%s those coordinates per worker, do%s not pay that",
		        shown[0] && shown[1] ? "buffered and replica" : shown[0] ? "buffered" : "replica",
		        shown[0] && shown[1] ? "" : "s", shown[0] && shown[1] ? "" : "es");
	fputs(".\n", f);
}

void cmp_print_table(const cmp_report *r, FILE *f)
{
	const cmp_plan *p = r->plan;
	const hog_train_opts *o = &p->base;
	const double lr = r->lr;
	/* the quality column: accuracy for binary and multiclass labels, RMSE for real ones */
	const int binary = r->test && (r->test->meta.task == HOG_TASK_BINARY || r->test->meta.task == HOG_TASK_MULTICLASS);
	/* short lines: the demo is read in an 80-column terminal */
	if (r->train && r->train->meta.kind == HOG_KIND_RATINGS)
		fprintf(f, "data:  %s\n       %llu ratings, %llu users x %llu items\n", r->data ? r->data : "-",
		        (unsigned long long)r->train->n, (unsigned long long)r->train->meta.users,
		        (unsigned long long)r->train->meta.items);
	else
		fprintf(f, "data:  %s\n       %llu examples, %llu nonzeros\n", r->data ? r->data : "-",
		        (unsigned long long)(r->train ? r->train->n : 0), (unsigned long long)(r->train ? r->train->nnz : 0));
	fprintf(f, "model: %s, %s loss, %s, lr %.4g%s, %d epoch%s, seed %llu\n", hog_model_kind_name(o->model),
	        hog_loss_name(r->loss),
	        hog_rule_name(o->rule), lr, o->lr > 0 ? "" : " (auto)", o->epochs, o->epochs == 1 ? "" : "s",
	        (unsigned long long)o->seed);
	if (p->repeat > 1)
		fprintf(f, "runs:  %d per cell (times are medians%s); target loss %.5f\n\n", p->repeat,
		        p->repeat_auto ? "; a serial run trains in under 0.5 s, so every cell is run again in rounds: "
		                         "--repeat sets the count" : "", r->target);
	else
		fprintf(f, "runs:  1 per cell (--repeat N: medians of N); target loss %.5f\n\n", r->target);
	/* the work column in the model's unit; the squared loss is half the MSE */
	char rate[32];
	snprintf(rate, sizeof rate, "M%s/s", report_unit(r));
	const int rw = strlen(rate) > 7 ? (int)strlen(rate) : 7;
	const char *lname = r->loss == HOG_LOSS_SQUARED ? "mse/2" : "loss";
	int mw = 8; /* the mode column: as wide as its longest name ("deterministic") */
	for (int i = 0; i < r->ncells; i++)
		mw = (int)strlen(hog_mode_name(r->cells[i].mode)) > mw ? (int)strlen(hog_mode_name(r->cells[i].mode)) : mw;
	fprintf(f, "%-*s %3s %8s %7s %6s %*s %8s %8s %6s %8s\n", mw, "mode", "thr", "s/epoch", "speedup", "Mex/s", rw,
	        rate, "train", r->test ? "test" : "", r->test ? binary ? "acc%" : "rmse" : "", "to target");
	fprintf(f, "%-*s %3s %8s %7s %6s %*s %8s %8s %6s %8s\n", mw, "", "", "", "", "", rw, "/thread", lname,
	        r->test ? lname : "", "", "");
	for (int i = 0; i < r->ncells; i++) {
		const cmp_cell *c = &r->cells[i];
		char ep[16], sp[16], ex[16], nz[16], trl[16], tl[16], acc[16], tt[16];
		if (!c->done) {
			fprintf(f, "%-*s %3d  diverged in every run", mw, hog_mode_name(c->mode), c->threads);
			fprintf(f, c->ranks > 1 ? "  x%d ranks\n" : "\n", c->ranks);
			continue;
		}
		fmt_num(ep, sizeof ep, "%.3f", c->epoch_s);
		fmt_num(sp, sizeof sp, "%.2fx", speedup(r, c));
		fmt_num(ex, sizeof ex, "%.2f", c->epoch_s > 0 ? c->examples / c->epoch_s / 1e6 : NAN);
		fmt_num(nz, sizeof nz, "%.1f", c->epoch_s > 0 ? c->nnz / c->epoch_s / (c->threads * c->ranks) / 1e6 : NAN);
		fmt_num(trl, sizeof trl, "%.5f", c->train_loss);
		fmt_num(tl, sizeof tl, "%.5f", c->test_loss);
		if (binary)
			fmt_num(acc, sizeof acc, "%.2f", 100 * c->test_acc);
		else
			fmt_num(acc, sizeof acc, "%.4f", c->test_rmse);
		fmt_num(tt, sizeof tt, "%.2fs", c->time_to_target);
		char rk[64] = ""; /* compare --ranks: rows of several MPI ranks say how many */
		if (c->ranks > 1)
			snprintf(rk, sizeof rk, "  x%d ranks", c->ranks);
		if (c->ndiverged) /* (the others' figures) */
			snprintf(rk + strlen(rk), sizeof rk - strlen(rk), "  %d of %d runs diverged", c->ndiverged,
			         r->plan->repeat);
		fprintf(f, "%-*s %3d %8s %7s %6s %*s %8s %8s %6s %8s%s\n", mw, hog_mode_name(c->mode), c->threads, ep, sp, ex,
		        rw, nz, trl, r->test ? tl : "", r->test ? acc : "", isfinite(c->time_to_target) ? tt : "never", rk);
	}
	/* staleness and lost updates: where more than one thread races */
	int any = 0;
	for (int i = 1; i < r->ncells; i++)
		if (r->cells[i].threads > 1 && r->cells[i].done)
			any = 1;
	if (any && r->plan->base.model == HOG_MODEL_MLP) /* (a table of "-" said nothing) */
		fprintf(f, "\nstaleness: not sampled for the mlp (--measure-delay is the linear model's and mf's)\n");
	else if (any) {
		fprintf(f, "\nstaleness: updates landing between a worker's read and its write (sampled),\n"
		        "and the share of bias changes lost to races (last epoch):\n");
		fprintf(f, "%-*s %3s %10s %8s %8s %12s\n", mw, "mode", "thr", "mean", "p99", "max", "bias lost");
		for (int i = 1; i < r->ncells; i++) {
			const cmp_cell *c = &r->cells[i];
			if (c->threads < 2 || !c->done)
				continue;
			char lost[24], dm[24], dp[24], dx[24];
			fmt_num(lost, sizeof lost, "%.4f%%", 100 * c->bias_lost);
			fmt_num(dm, sizeof dm, "%.2f", c->delay_mean);
			fmt_num(dp, sizeof dp, "%.0f", c->delay_p99);
			fmt_num(dx, sizeof dx, "%.0f", c->delay_max);
			fprintf(f, "%-*s %3d %10s %8s %8s %12s\n", mw, hog_mode_name(c->mode), c->threads, dm, dp, dx, lost);
		}
		for (int i = 1; i < r->ncells; i++)
			if (r->cells[i].mode == HOG_MODE_REPLICA && r->cells[i].threads > 1 && r->cells[i].done) {
				fprintf(f, "(replica: not sampled; its workers read private copies, which take the others'\n"
				        " updates at each flush: a read lags by up to a flush interval of their examples)\n");
				break;
			}
		for (int i = 1; i < r->ncells; i++) /* (a new user read grid's counts as collisions) */
			if (r->cells[i].mode == HOG_MODE_GRID && r->cells[i].threads > 1 && r->cells[i].done) {
				fprintf(f, "(grid: counted over every worker's updates, but its workers' blocks share no user\n"
				        " and no item: none of them touched the rows read)\n");
				break;
			}
	}
	print_verdict(r, f);
	fflush(f);
}

static int tmp_slot = -1; /* the one temporary file being written, for the signal handler */

static FILE *open_tmp(const char *path, char *tmp, size_t n)
{
	snprintf(tmp, n, "%s.tmp.%ld", path, (long)getpid());
	tmp_slot = hog_tmp_track(tmp);
	FILE *f = fopen(tmp, "w");
	if (!f) {
		hog_tmp_untrack(tmp_slot);
		tmp_slot = -1;
	}
	return f;
}

/* Closes a written file, checking every step: errors name the file the user
 * gave, and the temporary file is removed. */
static int close_checked(FILE *f, const char *path, int sync)
{
	errno = 0;
	int bad = fflush(f) != 0 || ferror(f) || (sync && fsync(fileno(f)) != 0);
	int e = errno;
	if (fclose(f) != 0 && !bad) {
		bad = 1;
		e = errno;
	}
	if (bad)
		fprintf(stderr, "hogwild: %s: %s\n", path, strerror(e ? e : EIO));
	return bad;
}

static int close_rename(FILE *f, const char *tmp, const char *path)
{
	int bad = close_checked(f, path, 1);
	if (!bad && rename(tmp, path) != 0) {
		fprintf(stderr, "hogwild: %s: %s\n", path, strerror(errno));
		bad = 1;
	}
	if (bad)
		unlink(tmp);
	else
		hog_fsync_dir(path);
	hog_tmp_untrack(tmp_slot);
	tmp_slot = -1;
	return bad;
}

static int write_csv(const cmp_report *r, const char *path)
{
	char tmp[4200];
	FILE *f = open_tmp(path, tmp, sizeof tmp);
	if (!f) {
		fprintf(stderr, "hogwild: %s: %s\n", path, strerror(errno));
		return 1;
	}
	/* the work column named for the model (nnz, ratings, flop); the losses are
	 * the model's loss (squared: half the squared error); no figure: empty */
	fprintf(f, "mode,threads,runs,seconds_per_epoch,speedup,examples_per_s,%s_per_s_per_thread,train_loss,"
	        "test_loss,test_accuracy,test_rmse,time_to_target_s,delay_mean,delay_p99,delay_max,bias_lost,ranks\n",
	        report_unit(r));
	for (int i = 0; i < r->ncells; i++) {
		const cmp_cell *c = &r->cells[i];
		fprintf(f, "%s,%d,%d", hog_mode_name(c->mode), c->threads, c->nruns);
		const double v[] = { c->epoch_s, speedup(r, c), c->epoch_s > 0 ? c->examples / c->epoch_s : NAN,
			             c->epoch_s > 0 ? c->nnz / c->epoch_s / (c->threads * c->ranks) : NAN, c->train_loss, c->test_loss,
			             c->test_acc, c->test_rmse, c->time_to_target, c->delay_mean, c->delay_p99,
			             c->delay_max, c->bias_lost };
		for (size_t k = 0; k < sizeof v / sizeof *v; k++)
			csv_num(f, k == 4 || k == 5 ? "%.8g" : "%.6g", v[k]);
		fprintf(f, ",%d\n", c->ranks);
	}
	return close_rename(f, tmp, path);
}

static int write_json(const cmp_report *r, const char *path)
{
	char tmp[4200];
	FILE *f = open_tmp(path, tmp, sizeof tmp);
	if (!f) {
		fprintf(stderr, "hogwild: %s: %s\n", path, strerror(errno));
		return 1;
	}
	const hog_train_opts *o = &r->plan->base;
	fputs("{\"data\":", f);
	cli_json_str(f, r->data ? r->data : "");
	fprintf(f, ",\"model\":\"%s\",\"loss\":\"%s\",\"optimizer\":\"%s\",\"epochs\":%d,\"seed\":%llu,\"repeat\":%d",
	        hog_model_kind_name(o->model), hog_loss_name(r->loss), hog_rule_name(o->rule), o->epochs, (unsigned long long)o->seed, r->plan->repeat);
	fprintf(f, ",\"unit\":\"%s\"", report_unit(r));
	cli_json_num(f, "lr", r->lr, 1);
	cli_json_num(f, "target_loss", r->target, 1);
	fputs(",\"cells\":[", f);
	for (int i = 0; i < r->ncells; i++) {
		const cmp_cell *c = &r->cells[i];
		fprintf(f, "%s{\"mode\":\"%s\",\"threads\":%d,\"ranks\":%d,\"runs\":%d,\"diverged\":%d", i ? "," : "",
		        hog_mode_name(c->mode), c->threads, c->ranks, c->nruns, c->ndiverged);
		cli_json_num(f, "seconds_per_epoch", c->epoch_s, 1);
		cli_json_num(f, "speedup", speedup(r, c), 1);
		cli_json_num(f, "examples_per_s", c->epoch_s > 0 ? c->examples / c->epoch_s : NAN, 1);
		cli_json_num(f, "nnz_per_s_per_thread", c->epoch_s > 0 ? c->nnz / c->epoch_s / (c->threads * c->ranks) : NAN, 1);
		cli_json_num(f, "train_loss", c->train_loss, 1);
		cli_json_num(f, "test_loss", c->test_loss, 1);
		cli_json_num(f, "test_accuracy", c->test_acc, 1);
		cli_json_num(f, "test_rmse", c->test_rmse, 1);
		cli_json_num(f, "time_to_target_s", c->time_to_target, 1);
		cli_json_num(f, "delay_mean", c->delay_mean, 1);
		cli_json_num(f, "delay_p99", c->delay_p99, 1);
		cli_json_num(f, "delay_max", c->delay_max, 1);
		cli_json_num(f, "bias_lost", c->bias_lost, 1);
		/* the epochs of the run whose final loss is the cell's (cmp_cell.curve) */
		const cmp_run *run = c->curve >= 0 ? &c->runs[c->curve] : NULL;
		if (run)
			fprintf(f, ",\"curve_run\":%d", c->curve + 1);
		fputs(",\"epochs\":[", f);
		for (int e = 0; run && e < run->nepochs; e++) {
			const hog_epoch_stats *s = &run->epochs[e];
			fprintf(f, "%s{\"epoch\":%d", e ? "," : "", s->epoch);
			cli_json_num(f, "seconds", s->seconds, 1);
			cli_json_num(f, "elapsed", s->elapsed, 1);
			cli_json_num(f, "train_loss", s->train_loss, 1);
			cli_json_num(f, "test_loss", s->test_loss, 1);
			cli_json_num(f, "test_accuracy", s->test_acc, 1);
			cli_json_num(f, "test_rmse", s->test_rmse, 1);
			fputc('}', f);
		}
		fputs("]}", f);
	}
	fputs("]}\n", f);
	return close_rename(f, tmp, path);
}

/* 1 when a plot file is whole: a PNG ends with its IEND chunk, an SVG with
 * </svg>. A full disk leaves gnuplot's files empty or cut, and gnuplot still
 * exits 0. */
static int plot_complete(const char *path, int svg)
{
	static const unsigned char iend[12] = { 0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xae, 0x42, 0x60, 0x82 };
	unsigned char tail[64];
	FILE *f = fopen(path, "rb");
	if (!f)
		return 0;
	size_t n = 0;
	if (fseek(f, -(long)sizeof tail, SEEK_END) != 0)
		rewind(f);
	n = fread(tail, 1, sizeof tail, f);
	fclose(f);
	if (!svg)
		return n >= sizeof iend && !memcmp(tail + n - sizeof iend, iend, sizeof iend);
	for (size_t i = 0; i + 6 <= n; i++)
		if (!memcmp(tail + i, "</svg>", 6))
			return 1;
	return 0;
}

static int have_gnuplot(void)
{
	return system("command -v gnuplot >/dev/null 2>&1") == 0;
}

/* Plot data and a gnuplot script beside the plots, then run gnuplot. */
static int write_plots(const cmp_report *r, const char *prefix)
{
	char dat[4200], gp[4200];
	snprintf(dat, sizeof dat, "%s-data.txt", prefix);
	snprintf(gp, sizeof gp, "%s.gp", prefix);
	FILE *f = fopen(dat, "w");
	if (!f) {
		fprintf(stderr, "hogwild: %s: %s\n", dat, strerror(errno));
		return 1;
	}
	const cmp_plan *p = r->plan;
	/* block per mode: threads speedup (gnuplot index), then per mode at the most threads:
	 * elapsed loss */
	for (int m = 0; m < p->nmodes; m++) {
		fprintf(f, "# speedup %s\n", hog_mode_name(p->modes[m]));
		for (int i = 1; i < r->ncells; i++)
			if ((int)r->cells[i].mode == p->modes[m] && r->cells[i].done)
				fprintf(f, "%d %.6g\n", r->cells[i].threads, speedup(r, &r->cells[i]));
		fputs("\n\n", f);
	}
	int nloss = 0;
	char titles[CMP_MAX_MODES * CMP_MAX_THREADS + 1][48];
	for (int i = 0; i < r->ncells; i++) {
		const cmp_cell *c = &r->cells[i];
		int most = 0;
		for (int j = 1; j < r->ncells; j++)
			if ((int)r->cells[j].mode == (int)c->mode && r->cells[j].threads > most)
				most = r->cells[j].threads;
		if (i > 0 && c->threads != most)
			continue;
		if (c->curve < 0)
			continue;
		fprintf(f, "# loss %s %d\n", hog_mode_name(c->mode), c->threads);
		snprintf(titles[nloss], sizeof titles[nloss], "%s, %d thread%s", hog_mode_name(c->mode), c->threads,
		         c->threads == 1 ? "" : "s");
		for (int e = 0; e < c->runs[c->curve].nepochs; e++) {
			const hog_epoch_stats *s = &c->runs[c->curve].epochs[e];
			fprintf(f, "%.6g %.8g\n", s->elapsed, isnan(s->test_loss) ? s->train_loss : s->test_loss);
		}
		fputs("\n\n", f);
		nloss++;
	}
	if (close_checked(f, dat, 0))
		return 1;
	if (!(f = fopen(gp, "w"))) {
		fprintf(stderr, "hogwild: %s: %s\n", gp, strerror(errno));
		return 1;
	}
	int maxt = 1;
	for (int t = 0; t < p->nthreads; t++)
		if (p->threads[t] > maxt)
			maxt = p->threads[t];
	for (int svg = 0; svg < 2; svg++) {
		const char *ext = svg ? "svg" : "png";
		fprintf(f, "set terminal %s size 800,500\n", svg ? "svg" : "pngcairo");
		fprintf(f, "set output '%s-speedup.%s'\nset title 'Speed-up over serial'\nset xlabel 'threads'\n"
		        "set ylabel 'speed-up (x)'\nset key top left\nset grid\nset xrange [0.8:%d]\n", prefix, ext,
		        maxt + 1);
		fprintf(f, "plot x title 'linear' with lines dashtype 2 lc 'gray'");
		for (int m = 0; m < p->nmodes; m++)
			fprintf(f, ", '%s' index %d using 1:2 with linespoints title '%s'", dat, m, hog_mode_name(p->modes[m]));
		fprintf(f, "\nunset xrange\nset output '%s-loss.%s'\nset title '%s loss vs wall time'\n"
		        "set xlabel 'seconds'\nset ylabel 'loss'\nset key top right\n", prefix, ext,
		        r->test ? "Test" : "Training");
		fputs("plot ", f);
		for (int k = 0, i = 0; k < nloss; k++, i++)
			fprintf(f, "%s'%s' index %d using 1:2 with linespoints title '%s'", k ? ", " : "", dat, p->nmodes + k,
			        titles[k]);
		fputs("\n", f);
	}
	if (close_checked(f, gp, 0))
		return 1;
	if (!have_gnuplot()) {
		fprintf(stderr, "hogwild: plots not drawn: gnuplot is not installed (apt-get install gnuplot-nox);\n"
		        "         the data and script are in %s and %s\n", dat, gp);
		return 0;
	}
	char cmd[9000];
	snprintf(cmd, sizeof cmd, "gnuplot '%s'", gp);
	int st = system(cmd);
	if (st != 0) {
		if (st != -1 && WIFEXITED(st))
			fprintf(stderr, "hogwild: gnuplot failed on %s (exit status %d)\n", gp, WEXITSTATUS(st));
		else
			fprintf(stderr, "hogwild: gnuplot failed on %s\n", gp);
		return 1;
	}
	/* gnuplot exits 0 even when it could not write a plot (a full disk leaves a
	 * 0-byte file): a plot is drawn only when its file holds something. */
	static const char *const names[] = { "speedup.png", "loss.png", "speedup.svg", "loss.svg" };
	int bad = 0;
	for (int i = 0; i < 4; i++) {
		char path[4200];
		struct stat sb;
		snprintf(path, sizeof path, "%s-%s", prefix, names[i]);
		if (stat(path, &sb) != 0 || !plot_complete(path, i >= 2)) {
			fprintf(stderr, "hogwild: %s: gnuplot did not draw it whole (%s)\n", path,
			        stat(path, &sb) != 0 ? "missing" : sb.st_size == 0 ? "an empty file; disk full?"
			                                                        : "cut short; disk full?");
			bad = 1;
		}
	}
	if (bad)
		return 1;
	fprintf(stderr, "plots: %s-speedup.png, %s-loss.png (and .svg)\n", prefix, prefix);
	return 0;
}

int cmp_write_files(const cmp_report *r)
{
	int rc = 0;
	if (r->plan->csv)
		rc |= write_csv(r, r->plan->csv);
	if (r->plan->json)
		rc |= write_json(r, r->plan->json);
	if (r->plan->plot && r->ncells > 0)
		rc |= write_plots(r, r->plan->plot);
	return rc;
}
