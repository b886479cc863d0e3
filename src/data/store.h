/* Internal parts of the data set store shared by the importers, generators and
 * tools (the file and name helpers now live in sys/; included here for them). */
#ifndef HOG_DATA_STORE_H
#define HOG_DATA_STORE_H
#include "hogwild.h"

#include "sys/file.h"
#include "sys/names.h"

/* hog_writer_commit() in two steps, for outputs that come in sets (a split's
 * two halves): finish writes, commits and syncs the temporary file (on failure
 * it removes it and frees @p w); publish renames it into place and frees @p w
 * (on failure the temporary file is removed, the path left as it was). A set is
 * finished whole before any of it is published, so an error or a signal while
 * writing leaves every path as it was. */
int hog_writer_finish(hog_writer *w, hog_err *err);
int hog_writer_publish(hog_writer *w, hog_err *err);
/* Before the finish: 1 with a note in @p msg where the labels, no task given,
 * will be ten or more classes of whole numbers and the rarest has one or two
 * examples (abalone's rings, cpusmall's percentages: most likely a quantity
 * counted); else 0. */
int hog_writer_counted(const hog_writer *w, char *msg, size_t size);

/* What the "split" meta of a data set made by hog_data_split() says: the pair
 * (one run of the split: both halves carry the same 16 hex digits), the input
 * it was cut from (a hash of the input's meta: the same for every split of one
 * set) and the half ('a' or 'b'). 0 when @p s has such meta, -1 when not. */
typedef struct hog_split_id {
	char pair[17], from[17];
	char part;
} hog_split_id;
int hog_split_id_get(hog_store *s, hog_split_id *id);
/* The input's identity for its halves' "from=": its meta entries that describe
 * the data (the same for every split of one set, different for another set). */
uint64_t hog_tools_from(hog_store *s);
/* The longest "split" meta entry (with the NUL): its source= part is at most
 * 255 bytes, the rest under 100; a longer one is damaged. */
#define HOG_SPLIT_META_MAX 768
/* The state of @p s's "split" meta (hog_split_id_check's, and 2 when it has
 * none; a value too long or with a NUL inside is damaged, -1), with the text
 * (cut, without NULs, for a message) in @p buf when @p buf is not NULL. */
int hog_split_id_read(hog_store *s, hog_split_id *id, char *buf, size_t size);
/* A meta entry's whole text: 0, ENOENT when absent, EINVAL when it has a NUL
 * inside or does not fit @p size with its NUL (hog_store_meta_get cuts). */
int hog_store_meta_whole(hog_store *s, const char *key, char *buf, size_t size);
/* The same in *out, allocated to its length (free it): 0, ENOENT, EINVAL (a
 * NUL inside, or longer than @p max bytes), ENOMEM. */
int hog_store_meta_dup(hog_store *s, const char *key, size_t max, char **out);
/* The same from the meta's text (or the canonical text below): 0, or -1 when
 * @p text is no whole split id (16 hex digits each of pair= and from=, part=
 * a or b), damaged or from before pair ids, which is then ignored. */
int hog_split_id_parse(const char *text, hog_split_id *id);
/* What a "split" meta text is: 0 a split id (in *id), 1 a split made before
 * pair ids (part= a or b, neither pair= nor from=), -1 damaged (either id
 * without the other, not 16 hex digits, no half, empty), which data verify
 * reports and everything else ignores. */
int hog_split_id_check(const char *text, hog_split_id *id);
/* The canonical text of @p id, "pair=P from=F part=X" (50 characters and
 * the NUL), that a loaded set (hog_data.split) and a model keep. */
void hog_split_id_text(const hog_split_id *id, char *buf, size_t size);

#endif
