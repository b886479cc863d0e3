/* Text helpers shared by the two topology backends (topo_hwloc.c and
 * topo_stub.c): an appending buffer that reports ERANGE when cut, sizes in
 * binary units, plurals. Internal. */
#ifndef HOG_SYS_TOPO_TEXT_H
#define HOG_SYS_TOPO_TEXT_H
#include <stddef.h>

typedef struct hog_topo_text {
	char *buf;
	size_t size, len; /* len: what the full text would take */
} hog_topo_text;

/** Appends printf-style text; counts what would not fit. */
void hog_topo_add(hog_topo_text *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/** Terminates the text; 0, or ERANGE when it was cut. */
int hog_topo_text_end(hog_topo_text *o);
/** "5.2 GiB", "260 MiB", "48 KiB" into b. */
const char *hog_topo_size(char *b, size_t n, unsigned long long v);
/** "" for 1, "s" otherwise. */
const char *hog_topo_s(int n);

#endif
