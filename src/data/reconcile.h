/* The names part of matching a test set to its reference (reconcile_names.c),
 * which reconcile.c's whole-set and chunk-by-chunk matching call. */
#ifndef HOG_DATA_RECONCILE_H
#define HOG_DATA_RECONCILE_H
#include "hogwild.h"

/* A CSV set's column names against its reference's (reconcile.c): HOG_EMISMATCH
 * naming how they differ (the names only one has, or the first that differs). */
int rec_columns(const hog_data *d, const char *dn, const hog_data_ref *ref, const char *rn, hog_err *err);
/* A set whose labels were names against its reference's names: *out[k] the
 * reference's class of the set's class k, and the set's task and class count
 * become the reference's (NULL where neither has names); refusals in err. */
int rec_class_map(hog_data *d, const char *dn, const hog_data_ref *ref, const char *rn, uint32_t **out,
                  hog_err *err);
/* Columns of text: *out[k] the reference's feature of the set's feature
 * category_from + k (UINT32_MAX: dropped), the set's dimension the
 * reference's (NULL where the set has none); refusals in err. */
int rec_cat_map(hog_data *d, const char *dn, const hog_data_ref *ref, const char *rn, uint32_t **out,
                hog_err *err);
/* @p d's features in the reference's numbers, the dropped ones counted into @p fit. */
void rec_cat_recode(hog_data *d, const uint32_t *map, uint64_t from, hog_data_fit *fit, unsigned char *seen);
/* @p n labels in the reference's classes through rec_class_map's map. */
void rec_class_relabel(float *labels, uint64_t n, const uint32_t *map, enum hog_task task);

#endif
