/* Helpers shared by the test suites: a private temporary directory per run,
 * writing small fixture files, and running the hogwild binary. */
#ifndef HOG_TESTS_UTIL_H
#define HOG_TESTS_UTIL_H
#include <CUnit/CUnit.h>
#include <stddef.h>

/** A fresh temp directory (created once per process, removed at exit). */
const char *tu_dir(void);
/** tu_dir()/name into a static rotating buffer. */
const char *tu_path(const char *name);
/** Writes @p len bytes (or strlen when len is (size_t)-1) to tu_path(name); returns the path. */
const char *tu_write(const char *name, const void *data, size_t len);
/** Writes gzip-compressed data; returns the path. */
const char *tu_write_gz(const char *name, const void *data, size_t len);
/** Runs a shell command; returns its exit status (or -1). */
int tu_sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

struct hog_train_opts;
struct hog_data;
struct hog_model;
/** 1 when both models exist and hold the same parameters, bit for bit, and the same aux (mf's mean,
 * the mlp's momentum); 0 otherwise. */
int tu_same_model(const struct hog_model *a, const struct hog_model *b);
/** Trains @p o (on @p d, or streamed from @p stream_path when @p d is NULL) straight,
 * then again with a checkpoint, stopped once epoch 2 has done more than @p after
 * examples (a stop request), and resumed from it at @p threads_resumed threads.
 * Checks that the stopped run says it was stopped after one epoch, and returns
 * 1 when the resumed model is the straight one's bits, 0 when not, -1 when a run
 * failed (said on stderr). */
int tu_stop_resume_same(const struct hog_data *d, const char *stream_path, const struct hog_train_opts *o,
                        unsigned long long after, int threads_resumed);

#define TU_ADD(suite, fn) do { if (!CU_add_test(suite, #fn, fn)) return -1; } while (0)
#endif
