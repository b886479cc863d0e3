/* compare's report from given cells (no training): the verdict names the
 * parallel row that reached the target loss soonest, counting rows of one
 * thread on several MPI ranks (they were left out: a new user's 2-rank rows at
 * serial's loss were "no parallel cell reached serial's loss"); it says when
 * the same mode on one thread was as fast (the gain is the mode's); it warns
 * of epochs too short to time; the CSV has each row's ranks; grid's staleness
 * counts are said to be no collisions. */
#include "cli/compare.h"
#include "util.h"
#include <stdlib.h>
#include <string.h>

/* The table and verdict of @p cells (serial first) with target @p target, as text. */
static char *report(cmp_cell *cells, int n, double target, const char *csv)
{
	cmp_plan p;
	memset(&p, 0, sizeof p);
	hog_train_opts_init(&p.base);
	p.repeat = 1;
	p.csv = csv;
	for (int i = 0; i < n; i++)
		cells[i].done = 1;
	cmp_report r = { .plan = &p, .cells = cells, .ncells = n, .target = target, .lr = 0.5 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	cmp_print_table(&r, f);
	fclose(f);
	if (csv)
		CU_ASSERT_EQUAL(cmp_write_files(&r), 0);
	return buf;
}

static cmp_cell cell(enum hog_mode mode, int threads, int ranks, double epoch_s, double loss)
{
	return (cmp_cell){ .mode = mode, .threads = threads, .ranks = ranks, .epoch_s = epoch_s, .train_loss = loss,
		               .test_loss = loss, .time_to_target = NAN, .curve = -1 };
}

/* A cell that reached the target at @p ttt seconds. */
static cmp_cell at(enum hog_mode mode, int threads, int ranks, double epoch_s, double loss, double ttt)
{
	cmp_cell c = cell(mode, threads, ranks, epoch_s, loss);
	c.time_to_target = ttt;
	return c;
}

static void test_verdict(void)
{
	/* one thread on each of 2 ranks, at serial's loss: the fastest parallel row */
	cmp_cell a[] = { at(HOG_MODE_SERIAL, 1, 1, 1.0, 0.300, 5.0), at(HOG_MODE_LOCKFREE, 1, 1, 1.1, 0.300, 5.5),
		             at(HOG_MODE_LOCKFREE, 1, 2, 0.5, 0.301, 2.5) };
	char *t = report(a, 3, 0.303, tu_path("cmp_v.csv"));
	CU_ASSERT_PTR_NOT_NULL(strstr(t, "fastest to the target loss: lockfree with 1 thread x 2 ranks, 2.00x serial"));
	CU_ASSERT_PTR_NULL(strstr(t, "timings this short"));
	free(t);
	CU_ASSERT_EQUAL(tu_sh("awk -F, 'NR == 4 && $1 == \"lockfree\" && $2 == 1 && $17 == 2 { ok = 1 } END { exit !ok }' "
	                      "'%s'", tu_path("cmp_v.csv")), 0);
	/* the mode alone was as fast on one thread: said */
	cmp_cell b[] = { at(HOG_MODE_SERIAL, 1, 1, 1.0, 0.300, 5.0), at(HOG_MODE_REPLICA, 1, 1, 0.4, 0.300, 2.0),
		             at(HOG_MODE_REPLICA, 2, 1, 0.5, 0.300, 2.5) };
	t = report(b, 3, 0.303, NULL);
	CU_ASSERT_PTR_NOT_NULL(strstr(t, "fastest to the target loss: replica with 2 threads, 2.00x serial"));
	CU_ASSERT_PTR_NOT_NULL(strstr(t, "replica on one thread ran 2.50x serial itself: the gain is the mode's"));
	free(t);
	/* the fastest epochs reached the target later than another row, or never (a
	 * user read "fastest to the target loss: replica with 2 threads" above a
	 * "to target" column that gave another row the smaller time): the row named
	 * is the one that got there first, and the faster one is said to be slower
	 * to it */
	cmp_cell q[] = { at(HOG_MODE_SERIAL, 1, 1, 1.0, 0.300, 6.0), at(HOG_MODE_LOCKFREE, 2, 1, 0.5, 0.301, 4.0),
		             at(HOG_MODE_REPLICA, 2, 1, 0.6, 0.300, 3.0), cell(HOG_MODE_BUFFERED, 2, 1, 0.4, 0.310) };
	t = report(q, 4, 0.303, NULL);
	CU_ASSERT_PTR_NOT_NULL(strstr(t, "fastest to the target loss: replica with 2 threads, 2.00x serial (3 s against "
	                                 "6 s;"));
	CU_ASSERT_PTR_NOT_NULL(strstr(t, "buffered with 2 threads ran its epochs 2.50x serial's speed, but did not reach "
	                                 "the"));
	free(t);
	q[3] = at(HOG_MODE_BUFFERED, 2, 1, 0.4, 0.301, 4.4);
	t = report(q, 4, 0.303, NULL);
	CU_ASSERT_PTR_NOT_NULL(strstr(t, "fastest to the target loss: replica with 2 threads, 2.00x serial"));
	CU_ASSERT_PTR_NOT_NULL(strstr(t, "buffered with 2 threads ran its epochs 2.50x serial's speed, but took 4.4 s to"));
	free(t);
	/* every parallel row slower to the target than serial, however fast its epochs */
	cmp_cell n[] = { at(HOG_MODE_SERIAL, 1, 1, 1.0, 0.300, 2.0), at(HOG_MODE_BUFFERED, 2, 1, 0.44, 0.302, 3.1) };
	t = report(n, 2, 0.303, NULL);
	CU_ASSERT_PTR_NOT_NULL(strstr(t, "no parallel mode reached the target loss sooner than serial (best: buffered,"));
	CU_ASSERT_PTR_NOT_NULL(strstr(t, "2 threads, in 3.1 s against serial's 2 s, its epochs 2.27x serial's speed)"));
	free(t);
	/* plain lockfree's lag explained; the modes that do not pay it named only
	 * where the table shows them faster and at the target (a user read
	 * "buffered ... pays less" above a buffered row that never got there) */
	cmp_cell l[] = { at(HOG_MODE_SERIAL, 1, 1, 1.0, 0.300, 5.0), at(HOG_MODE_LOCKFREE, 2, 1, 0.9, 0.300, 4.5),
		             at(HOG_MODE_REPLICA, 2, 1, 0.5, 0.300, 2.5), cell(HOG_MODE_BUFFERED, 2, 1, 0.45, 0.320) };
	t = report(l, 4, 0.303, NULL);
	CU_ASSERT_PTR_NOT_NULL(strstr(t, "plain lockfree with 2 threads: epochs 1.11x serial's speed.\n  Its workers"));
	CU_ASSERT_PTR_NOT_NULL(strstr(t, "replica, which keeps those coordinates per worker, does not pay that.\n"));
	CU_ASSERT_PTR_NULL(strstr(t, "buffered, which"));
	CU_ASSERT_PTR_NULL(strstr(t, "buffered and replica"));
	free(t);
	l[2] = cell(HOG_MODE_REPLICA, 2, 1, 0.5, 0.310);
	l[1] = at(HOG_MODE_LOCKFREE, 2, 1, 0.9, 0.300, 4.5);
	t = report(l, 4, 0.303, NULL);
	CU_ASSERT_PTR_NOT_NULL(strstr(t, "fastest to the target loss: lockfree with 2 threads"));
	CU_ASSERT_PTR_NULL(strstr(t, "plain lockfree with"));
	free(t);
	cmp_cell l2[] = { at(HOG_MODE_SERIAL, 1, 1, 1.0, 0.300, 5.0), at(HOG_MODE_LOCKFREE, 2, 1, 0.9, 0.300, 4.5),
		              at(HOG_MODE_ATOMIC, 2, 1, 0.5, 0.300, 2.5), cell(HOG_MODE_BUFFERED, 2, 1, 0.45, 0.320) };
	t = report(l2, 4, 0.303, NULL);
	CU_ASSERT_PTR_NOT_NULL(strstr(t, "between cores on nearly every\n  update.\n"));
	free(t);
	/* grid's staleness: said to be no collision */
	cmp_cell g[] = { cell(HOG_MODE_SERIAL, 1, 1, 1.0, 0.300), cell(HOG_MODE_GRID, 2, 1, 0.6, 0.300) };
	t = report(g, 2, 0.303, NULL);
	CU_ASSERT_PTR_NOT_NULL(strstr(t, "(grid: counted over every worker's updates, but its workers' blocks share no"));
	free(t);
	/* past the target (the "to target" column's): none; epochs of 2 ms: said */
	cmp_cell c[] = { cell(HOG_MODE_SERIAL, 1, 1, 0.002, 0.300), cell(HOG_MODE_LOCKFREE, 2, 1, 0.001, 0.304) };
	t = report(c, 2, 0.303, NULL);
	CU_ASSERT_PTR_NOT_NULL(strstr(t, "no parallel cell reached the target train loss 0.30300 (serial's 0.30000)"));
	CU_ASSERT_PTR_NOT_NULL(strstr(t, "epochs of 2.0 ms: timings this short are mostly noise"));
	free(t);
}

int test_compare_register(void)
{
	CU_pSuite s = CU_add_suite("compare", NULL, NULL);
	if (!s)
		return -1;
	TU_ADD(s, test_verdict);
	return 0;
}
