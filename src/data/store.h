/* Internal parts of the data set store shared by the importers, generators and
 * tools: meta names of kinds and tasks, and the temp-file + rename helpers. */
#ifndef HOG_DATA_STORE_H
#define HOG_DATA_STORE_H
#include "hogwild.h"

const char *hog_kind_name(enum hog_kind k);
const char *hog_task_name(enum hog_task t);
/** Parses "binary", "multiclass", "regression", "ratings"; 0 when unknown. */
enum hog_task hog_task_parse(const char *s);

/** Makes "<path>.tmp.<pid>" (caller frees). */
char *hog_tmp_path(const char *path);
/** fsync()s the directory that holds @p path, so a rename into it is durable. */
int hog_fsync_dir(const char *path);
/** Refuses paths that are directories, naming them. */
int hog_check_regular_input(const char *path, hog_err *err);

#endif
