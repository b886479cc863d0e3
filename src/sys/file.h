/* File helpers: temporary names, durable renames, input checks (file.c). */
#ifndef HOG_SYS_FILE_H
#define HOG_SYS_FILE_H
#include "hogwild.h"

/** Makes "<path>.tmp.<pid>" (caller frees). */
char *hog_tmp_path(const char *path);
/** fsync()s the directory that holds @p path, so a rename into it is durable. */
int hog_fsync_dir(const char *path);
/** Refuses paths that are not regular files (directories, FIFOs, devices,
 * sockets), naming them: for files read whole or mapped (models, checkpoints,
 * configuration). @return 0, errno (stat failed), EISDIR or HOG_EFORMAT. */
int hog_check_regular_input(const char *path, hog_err *err);
/** Done with bytes [p, p + len) of a read-only file mapping: the whole pages
 * among them leave this process's resident set (the page cache keeps them; a
 * later read faults them back). Never call it on memory that is not such a map. */
void hog_map_release(const void *p, size_t len);
/* Advice that the @p len bytes at @p p (a large array read in a random order:
 * a data set's rows) be backed by transparent huge pages, so that a random row
 * costs no TLB miss; given before the first touch. A kernel that refuses
 * (THP off, no madvise) keeps small pages: advice, never an error. */
void hog_huge_pages(void *p, size_t len);
/** The same for inputs read as a stream: regular files and FIFOs (pipes,
 * process substitution) pass; directories, devices and sockets do not. */
int hog_check_stream_input(const char *path, hog_err *err);
/** "regular file", "FIFO (named pipe)", "character device"... for st_mode. */
const char *hog_file_type(unsigned mode);
/** Opens a stream input for reading. A FIFO is opened without blocking and
 * waited on for at most @p wait_ms for its first byte or its writer's close,
 * so a FIFO with no writer fails (ETIMEDOUT) instead of hanging.
 * @return a file descriptor (blocking mode), or minus the error code. */
int hog_open_stream(const char *path, int wait_ms, hog_err *err);

/** Registers a temporary file being written, so that hog_tmp_unlink_all() can
 * remove it. A path registered already keeps its one slot (a reservation and
 * the save that writes into it). @return a slot for hog_tmp_untrack(), or -1
 * when the path is too long or all slots are taken (the file is then just not
 * removed on a signal). */
int hog_tmp_track(const char *path);
/** Forgets a slot (after the rename, or after removing the file). -1 is fine. */
void hog_tmp_untrack(int slot);
/** Removes every registered temporary file. Async-signal-safe: for a signal
 * handler that is about to end the process. @return files removed. */
int hog_tmp_unlink_all(void);
/** Removes "<path>.tmp.<pid>" files beside @p path whose process no longer
 * exists (kill(pid, 0) fails with ESRCH): what a kill -9 left behind. Calls
 * @p fn (may be NULL) for each file removed. @return the number removed. */
int hog_tmp_remove_stale(const char *path, void (*fn)(void *ud, const char *file, long pid), void *ud);
/* The id of another live process with a temporary file of @p path
 * (PATH.tmp.PID: a run writing it, or holding its space), else 0. */
long hog_tmp_live_writer(const char *path);

/** Reserves @p bytes on the file system of @p path for a file to be written
 * there later through its temporary name: "<path>.tmp.<pid>" is made with its
 * blocks allocated (posix_fallocate) and registered as a temporary file. A
 * later write of that name (hog_model_save opens it without truncating) fills
 * the blocks held for it, so a disk that fills up meanwhile cannot fail it.
 * @return 0, or the error (ENOSPC, EDQUOT, EFBIG, EACCES...) with nothing left
 * behind. A file system that cannot allocate ahead (EOPNOTSUPP) is not an
 * error: then nothing is held. */
int hog_reserve(const char *path, uint64_t bytes);
/** Removes the reservation hog_reserve() made for @p path, if it is there. */
void hog_reserve_drop(const char *path);

#endif
