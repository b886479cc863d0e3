/* libFuzzer harness: the data set reader on a whole file: open (the LMDB page
 * check, the meta data and the block headers), every block, the id maps,
 * verify, and a full load (a split half's pair ids too). Any file must give an
 * error with a message or data that is consistent: nothing may crash or read
 * out of bounds. The seeds are small real data sets (tests/fuzz/corpus/open/,
 * split.bin a split's half); run with -max_len=65536. */
#include "fuzz.h"
#include "data/store.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = fz_write("in.lmdb", data, size);
	hog_store *s;
	hog_err err = { 0 };
	int rc = hog_store_open(&s, p, &err);
	fz_check(rc, &err);
	if (rc == 0) {
		const hog_meta *m = hog_store_meta(s);
		for (uint64_t i = 0; i < m->blocks && i < 64; i++) {
			hog_block b;
			hog_err e = { 0 };
			fz_check(hog_store_block(s, i, &b, &e), &e);
		}
		uint64_t n;
		const uint64_t *ids = hog_store_idmap(s, "users", &n);
		volatile uint64_t x = 0;
		for (uint64_t i = 0; ids && i < n; i++)
			x += ids[i];
		(void)x;
		hog_store_close(s);
	}
	uint64_t blocks;
	hog_err e1 = { 0 }, e2 = { 0 };
	fz_check(hog_store_verify(p, &blocks, &e1), &e1);
	hog_data *d = NULL;
	rc = hog_data_load(&d, p, &e2);
	fz_check(rc, &e2);
	if (rc == 0) {
		volatile double sum = 0;
		for (uint64_t i = 0; i < d->n; i++)
			sum += d->labels ? d->labels[i] : d->ratings[i];
		(void)sum;
		if (d->offsets && d->offsets[d->n] != d->nnz)
			abort();
		for (uint64_t j = 0; d->ids && j < d->nnz; j++)
			if (d->ids[j] >= d->dim)
				abort();
		hog_split_id id; /* a half's split id is whole, in its canonical text */
		if (d->split && (strlen(d->split) != 50 || hog_split_id_parse(d->split, &id) != 0))
			abort();
		hog_data_free(d);
	}
	return 0;
}
