/* The pieces of matrix factorization on several MPI ranks that one process
 * can test (the runs themselves are in tests/cli.sh under mpirun, against the
 * loop in tests/mf_mpi_ref.c): each rank's ratings (the users' slices make a
 * partition of the training set, in data order, against a filter written
 * here); the two sides of the parameter layout (what the ranks average and
 * what each keeps) covering every float exactly once; and the zeroing that
 * makes a plain sum over the ranks, as rank 0 receives it, the whole model:
 * each user's values from the rank that owns it, bit for bit, the items' side
 * untouched. */
#include "hogwild.h"
#include "model/mf.h"
#include "util.h"
#include <stdlib.h>
#include <string.h>

static uint64_t tr_next(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return *s >> 33;
}

static void test_rank_ratings(void)
{
	enum { N = 1000, U = 37 };
	uint32_t users[N], out[N];
	uint64_t s = 9;
	for (int j = 0; j < N; j++)
		users[j] = (uint32_t)(tr_next(&s) % U);
	for (uint64_t R = 1; R <= 40; R += R < 4 ? 1 : 36) { /* 1..4 ranks, and more ranks than users */
		int seen[N] = { 0 };
		uint64_t total = 0;
		for (uint64_t r = 0; r < R; r++) {
			const uint64_t lo = U * r / R, hi = U * (r + 1) / R;
			uint64_t c = hog_mf_rank_ratings(users, N, lo, hi, NULL);
			CU_ASSERT_EQUAL(hog_mf_rank_ratings(users, N, lo, hi, out), c);
			uint64_t want = 0; /* the filter, in data order */
			for (uint32_t j = 0; j < N; j++)
				if (users[j] >= lo && users[j] < hi) {
					CU_ASSERT(want < c && out[want] == j);
					want++;
					seen[j]++;
				}
			CU_ASSERT_EQUAL(c, want);
			total += c;
		}
		CU_ASSERT_EQUAL(total, N);
		for (int j = 0; j < N; j++)
			CU_ASSERT_EQUAL(seen[j], 1);
	}
	CU_ASSERT_EQUAL(hog_mf_rank_ratings(users, N, 5, 5, out), 0);
	CU_ASSERT_EQUAL(hog_mf_rank_ratings(users, 0, 0, U, out), 0);
}

/* Every float of params is on exactly one side, whatever segments exist. */
static void test_sides_cover(void)
{
	static const uint64_t shapes[][3] = { { 7, 5, 3 }, { 1, 1, 1 }, { 33, 17, 20 }, { 16, 16, 16 } };
	for (size_t a = 0; a < sizeof shapes / sizeof *shapes; a++)
		for (int biases = 0; biases < 2; biases++)
			for (int ada = 0; ada < 2; ada++) {
				const uint64_t shape[4] = { shapes[a][0], shapes[a][1], shapes[a][2], hog_mf_pad(shapes[a][2]) };
				hog_mf_layout l;
				CU_ASSERT_FATAL(hog_mf_layout_get(&l, shape, biases ? HOG_MF_BIASES : 0,
				                                  ada ? HOG_RULE_ADAGRAD : HOG_RULE_SGD));
				int *cover = calloc(l.total, sizeof *cover);
				CU_ASSERT_FATAL(cover != NULL);
				for (int side = 0; side < 2; side++) {
					hog_mf_seg seg[4];
					int n = hog_mf_segments(&l, side, seg);
					CU_ASSERT_EQUAL(n, 1 + biases + ada + (biases && ada));
					for (int k = 0; k < n; k++) {
						CU_ASSERT_EQUAL(seg[k].rows, side ? shape[1] : shape[0]);
						CU_ASSERT_EQUAL(seg[k].per_row, k ? 1 : shape[3]);
						CU_ASSERT(seg[k].len >= seg[k].rows * seg[k].per_row &&
						          seg[k].len < seg[k].rows * seg[k].per_row + HOG_MF_VEC);
						for (uint64_t x = 0; x < seg[k].len && seg[k].at + x < l.total; x++)
							cover[seg[k].at + x]++;
						CU_ASSERT(seg[k].at + seg[k].len <= l.total);
					}
				}
				int once = 1;
				for (uint64_t x = 0; x < l.total; x++)
					once &= cover[x] == 1;
				CU_ASSERT(once);
				/* the segments named in the layout are where the sides say */
				hog_mf_seg u[4], it[4];
				hog_mf_segments(&l, 0, u);
				hog_mf_segments(&l, 1, it);
				CU_ASSERT_EQUAL(u[0].at, l.P);
				CU_ASSERT_EQUAL(it[0].at, l.Q);
				if (biases) {
					CU_ASSERT_EQUAL(u[1].at, l.bu);
					CU_ASSERT_EQUAL(it[1].at, l.bi);
				}
				if (ada) {
					CU_ASSERT_EQUAL(u[1 + biases].at, l.gu);
					CU_ASSERT_EQUAL(it[1 + biases].at, l.gi);
				}
				free(cover);
			}
}

/* Three ranks with different values everywhere: each keeps its own users,
 * and the sum of the three is every user's row from its owner, exactly. */
static void test_zero_outside_sums_to_whole(void)
{
	enum { R = 3 };
	const uint64_t shape[4] = { 10, 4, 3, hog_mf_pad(3) };
	hog_mf_layout l;
	CU_ASSERT_FATAL(hog_mf_layout_get(&l, shape, HOG_MF_BIASES, HOG_RULE_ADAGRAD));
	float *p[R], *orig[R];
	uint64_t lo[R], hi[R], s = 4;
	hog_mf_seg us[4], is[4];
	const int nu = hog_mf_segments(&l, 0, us), ni = hog_mf_segments(&l, 1, is);
	for (int r = 0; r < R; r++) {
		p[r] = malloc(l.total * sizeof(float));
		orig[r] = malloc(l.total * sizeof(float));
		CU_ASSERT_FATAL(p[r] && orig[r]);
		memset(p[r], 0, l.total * sizeof(float));
		for (int k = 0; k < nu + ni; k++) { /* rows only: the padding stays 0 as in a trainer */
			const hog_mf_seg *g = k < nu ? &us[k] : &is[k - nu];
			for (uint64_t x = 0; x < g->rows * g->per_row; x++)
				p[r][g->at + x] = (float)(tr_next(&s) % 1000 + 1) * 0.001f;
		}
		memcpy(orig[r], p[r], l.total * sizeof(float));
		lo[r] = l.users * (uint64_t)r / R;
		hi[r] = l.users * (uint64_t)(r + 1) / R;
		hog_mf_zero_users_outside(&l, p[r], lo[r], hi[r]);
	}
	for (int k = 0; k < nu; k++)
		for (uint64_t row = 0; row < us[k].rows; row++) {
			int owner = 0;
			while (!(row >= lo[owner] && row < hi[owner]))
				owner++;
			for (uint64_t c = 0; c < us[k].per_row; c++) {
				const uint64_t x = us[k].at + row * us[k].per_row + c;
				const float sum = p[0][x] + p[1][x] + p[2][x];
				CU_ASSERT_EQUAL(sum, orig[owner][x]);
				CU_ASSERT_EQUAL(p[owner][x], orig[owner][x]);
			}
		}
	for (int r = 0; r < R; r++) /* the items' side is left as it was */
		for (int k = 0; k < ni; k++)
			CU_ASSERT(memcmp(p[r] + is[k].at, orig[r] + is[k].at, is[k].len * sizeof(float)) == 0);
	/* an empty slice (more ranks than users) keeps no user at all */
	hog_mf_zero_users_outside(&l, p[0], 10, 10);
	int zero = 1;
	for (int k = 0; k < nu; k++)
		for (uint64_t x = 0; x < us[k].len; x++)
			zero &= p[0][us[k].at + x] == 0;
	CU_ASSERT(zero);
	for (int r = 0; r < R; r++) {
		free(p[r]);
		free(orig[r]);
	}
}

int test_mf_ranks_register(void)
{
	CU_pSuite s = CU_add_suite("mf_ranks", NULL, NULL);
	if (!s)
		return -1;
	TU_ADD(s, test_rank_ratings);
	TU_ADD(s, test_sides_cover);
	TU_ADD(s, test_zero_outside_sums_to_whole);
	return 0;
}
