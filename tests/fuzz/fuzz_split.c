/* libFuzzer harness: the "split" meta's text (hog_split_id_check, the reader of
 * a split half's pair ids, which train --test, compare, eval and data verify
 * read). Any bytes give an id, a split made before pair ids or damage, never a
 * read past the text; an id's fields are 16 hex digits and a half of a or b,
 * and its canonical text (what a loaded set and a model keep) reads back as the
 * same id. The loader, verify and the model file's section 4 are fuzz_open's
 * and fuzz_model's, whose seeds hold a split half and a model trained on one. */
#include "fuzz.h"
#include "data/store.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char hex[] = "0123456789abcdef";
	char *t = malloc(size + 1);
	if (!t)
		return 0;
	memcpy(t, data, size);
	t[size] = 0;
	hog_split_id id, back;
	int st = hog_split_id_check(t, &id);
	if (st < -1 || st > 1)
		abort();
	if (st == 0) {
		if (strspn(id.pair, hex) != 16 || id.pair[16] || strspn(id.from, hex) != 16 || id.from[16] ||
		    (id.part != 'a' && id.part != 'b'))
			abort();
		char c[64];
		hog_split_id_text(&id, c, sizeof c);
		if (strlen(c) != 50 || hog_split_id_check(c, &back) != 0 || memcmp(&id, &back, sizeof id) != 0)
			abort();
		if (hog_split_id_parse(t, &back) != 0)
			abort();
	} else if (hog_split_id_parse(t, &back) != -1) {
		abort();
	}
	free(t);
	return 0;
}
