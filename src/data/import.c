/* hog_import(): checks the inputs and hands them to the importer of their
 * format (one file each: import_libsvm.c, import_csv.c, import_ratings.c,
 * import_idx.c, import_vw.c). What the importers share is in import_ctx.c. */
#include "data/import.h"
#include "sys/err.h"
#include "sys/file.h"
#include <sys/stat.h>

int hog_import(const char *const *in, int nin, const char *out, const hog_import_opts *o, hog_err *err)
{
	if (nin < 1)
		return hog_err_set(err, HOG_ECONFIG, "no input files");
	hog_import_ctx c = { .in = in, .nin = nin, .out = out, .o = o };
	for (int i = 0; i < nin; i++) {
		struct stat st;
		int rc = hog_check_stream_input(in[i], err);
		if (rc)
			return rc;
		if (stat(in[i], &st) == 0)
			c.total_bytes += (uint64_t)st.st_size;
	}
	switch (o->format) {
	case HOG_FORMAT_LIBSVM: return hog_import_libsvm(&c, err);
	case HOG_FORMAT_CSV: return hog_import_csv(&c, err);
	case HOG_FORMAT_RATINGS: return hog_import_ratings(&c, err);
	case HOG_FORMAT_IDX: return hog_import_idx(&c, err);
	case HOG_FORMAT_VW: return hog_import_vw(&c, err);
	}
	return hog_err_set(err, HOG_ECONFIG, "unknown input format");
}
