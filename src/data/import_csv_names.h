/* The CSV importer's tables of names (import_csv_names.c): the labels'
 * class names and the categories' "COLUMN=value", each numbered in order of
 * first appearance, kept as hog_data.class_names and hog_data.categories keep
 * them (classes.c's form). */
#ifndef HOG_DATA_IMPORT_CSV_NAMES_H
#define HOG_DATA_IMPORT_CSV_NAMES_H
#include <stddef.h>
#include <stdint.h>

/* A table of names, each numbered in order of first appearance (the labels'
 * class names, the categories' "column=value"): the names one after another,
 * each ended by '\n', and open addressing over them. */
typedef struct csv_names {
	char *buf;
	size_t len, cap;
	uint32_t n, max;    /* names, and how many it may hold */
	uint32_t *slot;     /* name + 1, 0 empty */
	uint32_t nslot;     /* a power of two, > 2 n */
	uint32_t *at;       /* each name's offset in buf */
} csv_names;

/* The longest name a field may hold. */
#define CSV_NAME_MAX 255

/* What @p t holds. */
void csv_names_free(csv_names *t);
/* The number of name [s, s + n) (@p pre, @p npre bytes before it: "column="),
 * a new one numbered next; -1 with a message in @p why (more than t->max
 * names, out of memory). */
long csv_names_id(csv_names *t, const char *pre, size_t npre, const char *s, size_t n, char *why, size_t size);
/* A name's field [*s, *e): quotes removed, 1 to CSV_NAME_MAX bytes, no
 * control character or quote; 0, or -1 with a message in @p why. */
int csv_name_field(const char **s, const char **e, const char *what, char *why, size_t size);

#endif
