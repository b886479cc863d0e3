/* A test set against its reference (the training set, or what a model kept of
 * it): hog_data_reconcile(), which puts a test set in the reference's terms or
 * refuses it with what differs.
 *
 * Ratings: each import numbers users and items 0.. in order of first
 * appearance, so dense id 7 of one file is not dense id 7 of another; the
 * original ids (the set's id maps) are what the two files share. A test set's
 * dense ids are rewritten to the reference's through both maps, and an id the
 * reference lacks becomes HOG_ID_UNSEEN, which the mf prediction treats as a
 * user or item never seen in training (mf.h). Sets without id maps (made by the
 * API, or by a hogwild that did not keep them) keep their dense ids when these
 * fit the reference's ranges. */
#include "data/reconcile.h"
#include "data/store.h"
#include "sys/err.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

void hog_data_ref_of(const hog_data *tr, hog_data_ref *ref)
{
	memset(ref, 0, sizeof *ref);
	ref->kind = tr->meta.kind;
	ref->task = tr->meta.task;
	ref->features = tr->meta.kind == HOG_KIND_SPARSE ? tr->dim : 0;
	ref->users = tr->meta.kind == HOG_KIND_RATINGS ? tr->meta.users : 0;
	ref->items = tr->meta.kind == HOG_KIND_RATINGS ? tr->meta.items : 0;
	ref->user_ids = tr->user_ids;
	ref->item_ids = tr->item_ids;
	ref->columns = tr->columns;
	ref->class_names = tr->class_names;
	ref->categories = tr->categories;
	ref->category_from = tr->category_from;
	ref->csv_label = tr->csv_label;
	ref->csv_fields = tr->csv_fields;
	ref->vw_bits = tr->vw_bits;
	/* a set that is one part of a split has ids without ratings in it */
	if (tr->meta.kind == HOG_KIND_RATINGS && tr->users && (ref->user_rated = calloc(ref->users + 1, 1)) &&
	    (ref->item_rated = calloc(ref->items + 1, 1))) {
		for (uint64_t j = 0; j < tr->n; j++) {
			ref->user_rated[tr->users[j]] = 1;
			ref->item_rated[tr->items[j]] = 1;
		}
	} else {
		hog_data_ref_free(ref);
	}
}

void hog_data_ref_free(hog_data_ref *ref)
{
	free(ref->user_rated);
	free(ref->item_rated);
	ref->user_rated = ref->item_rated = NULL;
}

/* ------------------------------------------------------------ id maps */

static uint64_t mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* For each of the set's dense ids (n of them, originals in @p ids), the
 * reference's dense id of the same original (ref_ids, nref of them), or
 * HOG_ID_UNSEEN. NULL when out of memory. */
static uint32_t *translate(const uint64_t *ids, uint64_t n, const uint64_t *ref_ids, uint64_t nref)
{
	uint64_t cap = 16;
	while (cap < 2 * nref)
		cap <<= 1;
	uint32_t *slot = malloc(cap * sizeof *slot), *to = malloc((n + 1) * sizeof *to);
	if (!slot || !to) {
		free(slot);
		free(to);
		return NULL;
	}
	memset(slot, 0xff, cap * sizeof *slot);
	for (uint64_t r = 0; r < nref; r++) {
		uint64_t h = mix(ref_ids[r]) & (cap - 1);
		while (slot[h] != UINT32_MAX && ref_ids[slot[h]] != ref_ids[r])
			h = (h + 1) & (cap - 1);
		if (slot[h] == UINT32_MAX)
			slot[h] = (uint32_t)r; /* (a duplicate original keeps its first dense id) */
	}
	for (uint64_t j = 0; j < n; j++) {
		uint64_t h = mix(ids[j]) & (cap - 1);
		while (slot[h] != UINT32_MAX && ref_ids[slot[h]] != ids[j])
			h = (h + 1) & (cap - 1);
		to[j] = slot[h];
	}
	free(slot);
	return to;
}

/* Whether the reference has a training rating of (translated) id @p t. */
static int rated(uint64_t t, uint64_t limit, const uint8_t *r)
{
	return t < limit && (!r || r[t]);
}

/* Distinct ids among @p a (n ratings, ids below @p range) whose translation the
 * reference has no rating of, and those it has. */
static int count_new(const uint32_t *a, uint64_t n, uint64_t range, const uint32_t *to, uint64_t limit,
                     const uint8_t *r, uint64_t *fresh, uint64_t *known)
{
	unsigned char *seen = calloc(range + 1, 1);
	if (!seen)
		return ENOMEM;
	*fresh = *known = 0;
	for (uint64_t j = 0; j < n; j++)
		if (!seen[a[j]]) {
			seen[a[j]] = 1;
			uint64_t t = to ? to[a[j]] : a[j];
			(rated(t, limit, r) ? (*known)++ : (*fresh)++);
		}
	free(seen);
	return 0;
}

static uint32_t max_id(const uint32_t *a, uint64_t n)
{
	uint32_t m = 0;
	for (uint64_t j = 0; j < n; j++)
		m = a[j] > m ? a[j] : m;
	return m;
}

static int reconcile_ids(hog_data *d, const char *dn, const hog_data_ref *ref, const char *rn, hog_data_fit *fit,
                         hog_err *err)
{
	const int maps = d->user_ids && d->item_ids && ref->user_ids && ref->item_ids;
	uint32_t *tu = NULL, *ti = NULL;
	int rc = 0;
	if (maps) {
		tu = translate(d->user_ids, d->meta.users, ref->user_ids, ref->users);
		ti = translate(d->item_ids, d->meta.items, ref->item_ids, ref->items);
		if (!tu || !ti) {
			rc = hog_err_set(err, ENOMEM, "out of memory matching the ids");
			goto out;
		}
	} else if (d->n && (ref->user_ids || d->user_ids)) {
		/* one side has original ids, the other only dense ones: these are the
		 * same ids only if the dense ones are all there is, and fit */
		uint32_t mu = max_id(d->users, d->n), mi = max_id(d->items, d->n);
		if (mu >= ref->users || mi >= ref->items) {
			rc = hog_err_set(err, HOG_EMISMATCH, "%s has id maps and %s has none, and %s's ids (users to %u, "
			                 "items to %u) exceed %s's ranges (%llu users, %llu items): its ids cannot be "
			                 "matched (import both with this hogwild, which keeps the original ids)",
			                 ref->user_ids ? rn : dn, ref->user_ids ? dn : rn, dn, mu, mi, rn,
			                 (unsigned long long)ref->users, (unsigned long long)ref->items);
			goto out;
		}
	}
	uint64_t ku, ki;
	if (count_new(d->users, d->n, d->meta.users, tu, ref->users, ref->user_rated, &fit->new_users, &ku) ||
	    count_new(d->items, d->n, d->meta.items, ti, ref->items, ref->item_rated, &fit->new_items, &ki)) {
		rc = hog_err_set(err, ENOMEM, "out of memory matching the ids");
		goto out;
	}
	if (maps && d->n && !ku && !ki) {
		rc = hog_err_set(err, HOG_EMISMATCH, "none of the %llu users and %llu items of %s is in %s: not ids "
		                 "from the same source?", (unsigned long long)fit->new_users,
		                 (unsigned long long)fit->new_items, dn, rn);
		goto out;
	}
	fit->unseen = 0;
	for (uint64_t j = 0; j < d->n; j++) {
		if (maps) {
			d->users[j] = tu[d->users[j]];
			d->items[j] = ti[d->items[j]];
		}
		fit->unseen += !rated(d->users[j], ref->users, ref->user_rated) ||
		               !rated(d->items[j], ref->items, ref->item_rated);
	}
	if (maps) {
		/* the ids are the reference's now; its maps are the caller's to use */
		free(d->user_ids);
		free(d->item_ids);
		d->user_ids = d->item_ids = NULL;
		d->meta.users = ref->users;
		d->meta.items = ref->items;
		fit->mapped = 1;
	}
out:
	free(tu);
	free(ti);
	return rc;
}

/* ------------------------------------------------------------ the rest */

static unsigned count_columns(const char *a)
{
	unsigned n = 1;
	while ((a = strchr(a, ',')))
		a++, n++;
	return n;
}

/* Whether the column name [s, s + n) is one of @p list's. */
static int has_column(const char *list, const char *s, size_t n)
{
	for (const char *p = list;; p += strcspn(p, ",") + 1) {
		if (strcspn(p, ",") == n && !memcmp(p, s, n))
			return 1;
		if (!p[strcspn(p, ",")])
			return 0;
	}
}

/* How @p a and @p b differ, into @p what: the names only one of them has where
 * their counts differ, else the first column that differs; 0 when they agree. */
static int columns_differ(const char *a, const char *b, char *what, size_t size, const char *an, const char *bn)
{
	if (!strcmp(a, b))
		return 0;
	const unsigned na = count_columns(a), nb = count_columns(b);
	if (na != nb) {
		const char *more = na > nb ? a : b, *less = na > nb ? b : a;
		int at = snprintf(what, size, "%s has %u columns and %s %u (", an, na, bn, nb), shown = 0;
		for (const char *p = more; at < (int)size - 100; p += strcspn(p, ",") + 1) {
			const size_t n = strcspn(p, ",");
			if (!has_column(less, p, n))
				at += snprintf(what + at, size - (size_t)at, "%s'%.*s'", shown++ ? ", " : "", n > 60 ? 60 : (int)n, p);
			if (!p[n])
				break;
		}
		snprintf(what + at, size - (size_t)at, shown ? " only in %s; imported with another --ignore-col?)"
		                                             : "names repeated in %s)", na > nb ? an : bn);
		return 1;
	}
	for (unsigned k = 0;; k++) { /* (counted from 0, as --label-col counts) */
		size_t la = strcspn(a, ","), lb = strcspn(b, ",");
		if (la != lb || memcmp(a, b, la)) {
			snprintf(what, size, "column %u is '%.*s' in %s and '%.*s' in %s", k, la > 200 ? 200 : (int)la, a, an,
			         lb > 200 ? 200 : (int)lb, b, bn);
			return 1;
		}
		a += la + (a[la] == ',');
		b += lb + (b[lb] == ',');
	}
}

/* Whether @p b (a set without labels, so without a label column) is @p a but for
 * one column, the label's. */
static int columns_but_one(const char *a, const char *b)
{
	for (const char *drop = a; *drop; drop += strcspn(drop, ",") + (drop[strcspn(drop, ",")] == ',')) {
		size_t head = (size_t)(drop - a), dl = strcspn(drop, ",");
		const char *tail = drop + dl + (drop[dl] == ',');
		size_t bl = strlen(b), tl = strlen(tail);
		/* a's columns before drop, then after it, against b's */
		if (head && !tl && bl + 1 == head && !memcmp(a, b, bl))
			return 1;
		if (bl == head + tl && !memcmp(a, b, head) && !memcmp(tail, b + head, tl))
			return 1;
	}
	return 0;
}

/* The @p k-th name of @p list (from 0) as " ('NAME')", or "" where there is none. */
static void column_name(const char *list, uint32_t k, char *out, size_t size)
{
	out[0] = 0;
	for (const char *p = list; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (!k--) {
			const size_t n = strcspn(p, ",");
			snprintf(out, size, " ('%.*s')", n > 60 ? 60 : (int)n, p);
			return;
		}
}

int rec_columns(const hog_data *d, const char *dn, const hog_data_ref *ref, const char *rn, hog_err *err)
{
	char what[600];
	if (ref->columns && d->columns && !(d->meta.unlabelled && columns_but_one(ref->columns, d->columns)) &&
	    columns_differ(ref->columns, d->columns, what, sizeof what, rn, dn))
		return hog_err_set(err, HOG_EMISMATCH, "the column names differ: %s", what);
	/* lines of as many fields, the label another of them: a file without a
	 * header, whose label the import guessed, or another --label-col (the
	 * features then line up with the wrong columns, and nothing else shows it) */
	if (ref->csv_fields && d->csv_fields == ref->csv_fields && !d->meta.unlabelled && d->csv_label != ref->csv_label) {
		char name[80];
		column_name(ref->columns, ref->csv_label, name, sizeof name);
		return hog_err_set(err, HOG_EMISMATCH, "the label is another column: %s's was column %u%s of %u fields, %s's is "
		                   "column %u; import it again with --label-col %u", rn, ref->csv_label, name,
		                   ref->csv_fields, dn, d->csv_label, ref->csv_label);
	}
	/* names hashed into other bits: every feature id means another feature (a
	 * VW set at 16 bits beside one at 18 scored 76.6% for 85.0%). (LIBSVM ids
	 * read from another base are not refused: a scikit-learn file from 0 beside
	 * LIBSVM's own from 1 line up; the import warns of the likely mistake.) */
	if (ref->vw_bits && d->vw_bits && ref->vw_bits != d->vw_bits)
		return hog_err_set(err, HOG_EMISMATCH, "the feature ids are other hashes: %s's names were hashed into %u "
		                   "bits and %s's into %u; import %s again with --bits %u", rn, ref->vw_bits, dn, d->vw_bits,
		                   dn, ref->vw_bits);
	return 0;
}

static uint64_t extra_features(const hog_data *d, uint64_t features, uint64_t *nnz)
{
	*nnz = 0;
	if (d->dim <= features)
		return 0;
	unsigned char *seen = calloc(d->dim - features + 1, 1);
	uint64_t distinct = 0;
	for (uint64_t j = 0; j < d->nnz; j++)
		if (d->ids[j] >= features) {
			(*nnz)++;
			if (seen && !seen[d->ids[j] - features]) { /* (a flag: a count would wrap at 256) */
				seen[d->ids[j] - features] = 1;
				distinct++;
			}
		}
	free(seen);
	return distinct;
}

/* What hog_data_reconcile() checks and changes in a set's header: kind,
 * task (*relabel: labels read as binary are regression values), columns. */
static int reconcile_head(hog_data *d, const char *dn, const hog_data_ref *ref, const char *rn, int *relabel,
                          uint32_t **cmap, uint32_t **fmap, hog_err *err)
{
	*relabel = 0;
	*cmap = *fmap = NULL;
	if (ref->kind && d->meta.kind != ref->kind)
		return hog_err_set(err, HOG_EMISMATCH, "%s is a %s set and %s a %s one", rn, hog_kind_name(ref->kind), dn,
		                   hog_kind_name(d->meta.kind));
	int rc = rec_columns(d, dn, ref, rn, err); /* (first: sets of other columns differ in all else too) */
	if (rc)
		return rc;
	if (d->meta.unlabelled && ref->task) /* no labels: nothing to match, the task is the importer's guess */
		d->meta.task = ref->task;
	rc = rec_class_map(d, dn, ref, rn, cmap, err); /* (the reference's task, where both name the classes) */
	if (!rc && (rc = rec_cat_map(d, dn, ref, rn, fmap, err)))
		free(*cmap);
	if (rc) {
		*cmap = NULL;
		return rc;
	}
	if (ref->task && d->meta.task != ref->task) {
		if (ref->task == HOG_TASK_REGRESSION && d->meta.task == HOG_TASK_BINARY) {
			/* {0,1} (or two other values) read as binary: a regression set all the same */
			*relabel = 1;
		} else if (!(ref->task == HOG_TASK_MULTICLASS && d->meta.task == HOG_TASK_BINARY)) {
			free(*cmap); /* (NULL: rec_class_map gave the set the reference's task) */
			free(*fmap);
			*cmap = *fmap = NULL;
			return hog_err_set(err, HOG_EMISMATCH, "%s has %s labels and %s %s ones", rn, hog_task_name(ref->task),
			                   dn, hog_task_name(d->meta.task));
		}
	}
	return 0;
}

/* The reference's features where @p d has under half as many and its rows
 * hold most of them (a table: a 30-column set scored by a9a's 123-feature
 * model went unremarked, 62.9% accuracy); 0 otherwise. A sparse set's test
 * part may lack the rarest features, but not most of them in every row. */
static uint64_t narrow_set(const hog_data *d, const hog_data_ref *ref)
{
	const double n = (double)d->meta.examples, dim = (double)d->dim;
	return d->meta.kind == HOG_KIND_SPARSE && ref->features && d->dim && 2 * d->dim < ref->features && n > 0 &&
	               (double)d->meta.nnz >= 0.5 * n * dim ? ref->features : 0;
}

static void relabel(hog_data *d, double lmin, double lmax)
{
	for (uint64_t i = 0; i < d->n; i++)
		d->labels[i] = (float)(d->labels[i] > 0 ? lmax : lmin);
}

int hog_data_reconcile(hog_data *d, const char *dn, const hog_data_ref *ref, const char *rn, hog_data_fit *fit,
                       hog_err *err)
{
	hog_data_fit unused; /* (NULL: the caller wants no account of it) */
	if (!fit)
		fit = &unused;
	memset(fit, 0, sizeof *fit);
	uint32_t *cmap, *fmap;
	int rl, rc = reconcile_head(d, dn, ref, rn, &rl, &cmap, &fmap, err);
	if (rc)
		return rc;
	if (fmap) { /* the set's categories in the reference's numbers, and its names the reference's */
		unsigned char *seen = calloc(hog_class_count(d->categories) + 1, 1);
		char *names = strdup(ref->categories);
		if (!seen || !names) {
			free(seen);
			free(names);
			free(fmap);
			free(cmap);
			return hog_err_set(err, ENOMEM, "out of memory matching the categories");
		}
		rec_cat_recode(d, fmap, d->category_from, fit, seen);
		free(seen);
		free(fmap);
		free(d->categories);
		d->categories = names;
	}
	if (cmap) {
		rec_class_relabel(d->labels, d->n, cmap, d->meta.task);
		free(cmap);
		fit->renamed = 1;
	}
	if (rl) {
		relabel(d, d->meta.label_min, d->meta.label_max);
		d->meta.task = HOG_TASK_REGRESSION;
		fit->relabelled = 1;
	}
	if (d->meta.kind == HOG_KIND_RATINGS && ref->users && ref->items) {
		rc = reconcile_ids(d, dn, ref, rn, fit, err);
		if (rc)
			return rc;
	}
	if (d->meta.kind == HOG_KIND_SPARSE && ref->features) { /* (beyond the categories dropped, counted there) */
		uint64_t nnz;
		fit->extra_features += extra_features(d, ref->features, &nnz);
		fit->extra_nnz += nnz;
		fit->narrow = narrow_set(d, ref);
	}
	return 0;
}

/* ------------------------------------------------------------ chunk by chunk */

struct hog_data_match {
	hog_data_ref ref;           /* (the caller's pointers) */
	int relabel, ids, maps;
	uint32_t *cmap;             /* class names: the set's class -> the reference's */
	uint32_t *fmap;             /* categories: the set's (from its category_from) -> the reference's */
	uint64_t from;
	unsigned char *cseen;       /* the categories dropped so far */
	double lmin, lmax;
	uint32_t *tu, *ti;          /* maps: the set's dense ids -> the reference's */
	unsigned char *seen;        /* sparse: the extra features met so far */
	uint64_t nseen;
	hog_data_fit fit;
};

/* The ratings' ids, a pass over the chunks: what reconcile_ids() finds on a
 * whole set (refusals included), before any chunk is used. */
static int match_ids(hog_data_match *x, hog_chunks *c, const char *dn, const char *rn, hog_err *err)
{
	hog_data *h = hog_chunks_header(c), *d;
	const hog_data_ref *ref = &x->ref;
	unsigned char *su = calloc(h->meta.users + 1, 1), *si = calloc(h->meta.items + 1, 1);
	uint32_t mu = 0, mi = 0;
	int rc = su && si ? 0 : hog_err_set(err, ENOMEM, "out of memory matching the ids");
	while (!rc && !(rc = hog_chunks_next(c, &d, err)) && d) {
		mu = d->n && max_id(d->users, d->n) > mu ? max_id(d->users, d->n) : mu;
		mi = d->n && max_id(d->items, d->n) > mi ? max_id(d->items, d->n) : mi;
		for (uint64_t j = 0; j < d->n; j++) {
			su[d->users[j]] = 1;
			si[d->items[j]] = 1;
		}
	}
	hog_chunks_rewind(c);
	x->maps = h->user_ids && h->item_ids && ref->user_ids && ref->item_ids;
	if (!rc && x->maps) {
		x->tu = translate(h->user_ids, h->meta.users, ref->user_ids, ref->users);
		x->ti = translate(h->item_ids, h->meta.items, ref->item_ids, ref->items);
		if (!x->tu || !x->ti)
			rc = hog_err_set(err, ENOMEM, "out of memory matching the ids");
	} else if (!rc && h->n && (ref->user_ids || h->user_ids) && (mu >= ref->users || mi >= ref->items)) {
		rc = hog_err_set(err, HOG_EMISMATCH, "%s has id maps and %s has none, and %s's ids (users to %u, "
		                 "items to %u) exceed %s's ranges (%llu users, %llu items): its ids cannot be "
		                 "matched (import both with this hogwild, which keeps the original ids)",
		                 ref->user_ids ? rn : dn, ref->user_ids ? dn : rn, dn, mu, mi, rn,
		                 (unsigned long long)ref->users, (unsigned long long)ref->items);
	}
	uint64_t ku = 0, ki = 0;
	for (uint64_t u = 0; !rc && u < h->meta.users; u++)
		if (su[u]) {
			uint64_t t = x->tu ? x->tu[u] : u;
			(rated(t, ref->users, ref->user_rated) ? ku++ : x->fit.new_users++);
		}
	for (uint64_t i = 0; !rc && i < h->meta.items; i++)
		if (si[i]) {
			uint64_t t = x->ti ? x->ti[i] : i;
			(rated(t, ref->items, ref->item_rated) ? ki++ : x->fit.new_items++);
		}
	if (!rc && x->maps && h->n && !ku && !ki)
		rc = hog_err_set(err, HOG_EMISMATCH, "none of the %llu users and %llu items of %s is in %s: not ids "
		                 "from the same source?", (unsigned long long)x->fit.new_users,
		                 (unsigned long long)x->fit.new_items, dn, rn);
	free(su);
	free(si);
	return rc;
}

int hog_data_match_begin(hog_data_match **out, hog_chunks *c, const char *dn, const hog_data_ref *ref,
                         const char *rn, hog_err *err)
{
	*out = NULL;
	hog_data *h = hog_chunks_header(c);
	hog_data_match *x = calloc(1, sizeof *x);
	if (!x)
		return hog_err_set(err, ENOMEM, "out of memory");
	x->ref = *ref;
	int rc = reconcile_head(h, dn, ref, rn, &x->relabel, &x->cmap, &x->fmap, err);
	x->lmin = h->meta.label_min; /* (after: two values named are put back to their numbers there) */
	x->lmax = h->meta.label_max;
	x->fit.renamed = x->cmap != NULL;
	x->fit.recoded = x->fmap != NULL;
	x->from = h->category_from;
	if (!rc && x->fmap && !(x->cseen = calloc(hog_class_count(h->categories) + 1, 1)))
		rc = hog_err_set(err, ENOMEM, "out of memory");
	if (!rc && x->relabel) {
		h->meta.task = HOG_TASK_REGRESSION;
		x->fit.relabelled = 1;
	}
	if (!rc && h->meta.kind == HOG_KIND_RATINGS && ref->users && ref->items) {
		x->ids = 1;
		rc = match_ids(x, c, dn, rn, err);
		/* the chunks' ids are the reference's from here on (the header keeps
		 * the set's maps: the caller's originals for what it prints) */
		if (!rc && x->maps) {
			h->meta.users = ref->users;
			h->meta.items = ref->items;
			x->fit.mapped = 1;
		}
	}
	x->fit.narrow = narrow_set(h, ref);
	if (!rc && h->meta.kind == HOG_KIND_SPARSE && ref->features && h->dim > ref->features &&
	    !(x->seen = calloc(h->dim - ref->features + 1, 1)))
		rc = hog_err_set(err, ENOMEM, "out of memory");
	if (rc) {
		x->ref.user_rated = x->ref.item_rated = NULL; /* (the caller's still) */
		hog_data_match_end(x, NULL);
		return rc;
	}
	/* the chunks need the ranges and the rated flags only: nothing borrowed
	 * outlives the call (train's training set is freed while its test set is
	 * read epoch after epoch) */
	x->ref.user_ids = x->ref.item_ids = NULL;
	x->ref.columns = x->ref.class_names = x->ref.categories = NULL;
	*out = x;
	return 0;
}

void hog_data_match_chunk(hog_data_match *x, hog_data *d)
{
	const hog_data_ref *ref = &x->ref;
	if (x->relabel)
		relabel(d, x->lmin, x->lmax);
	if (x->cmap) /* (the chunk's labels decoded as the header's task: the reference's) */
		rec_class_relabel(d->labels, d->n, x->cmap, d->meta.task);
	if (x->fmap)
		rec_cat_recode(d, x->fmap, x->from, &x->fit, x->cseen);
	if (x->ids)
		for (uint64_t j = 0; j < d->n; j++) {
			if (x->maps) {
				d->users[j] = x->tu[d->users[j]];
				d->items[j] = x->ti[d->items[j]];
			}
			x->fit.unseen += !rated(d->users[j], ref->users, ref->user_rated) ||
			                 !rated(d->items[j], ref->items, ref->item_rated);
		}
	if (x->seen)
		for (uint64_t j = 0; j < d->nnz; j++)
			if (d->ids[j] >= ref->features) {
				x->fit.extra_nnz++;
				if (!x->seen[d->ids[j] - ref->features]) {
					x->seen[d->ids[j] - ref->features] = 1;
					x->fit.extra_features++;
				}
			}
}

void hog_data_match_fit(const hog_data_match *x, hog_data_fit *fit)
{
	*fit = x->fit;
}

void hog_data_match_end(hog_data_match *x, hog_data_fit *fit)
{
	if (!x)
		return;
	if (fit)
		*fit = x->fit;
	hog_data_ref_free(&x->ref);
	free(x->tu);
	free(x->ti);
	free(x->cmap);
	free(x->fmap);
	free(x->cseen);
	free(x->seen);
	free(x);
}
