/** @file hogwild_data.h
 * @brief hogwild's data sets: writer, store, loaded sets, importers, generators
 * and tools (see hogwild-data(5)).
 *
 * Part of the manual in hogwild.h, which includes this file after its Errors
 * part (hog_err, the codes) and before Training; include hogwild.h, not this.
 */
#ifndef HOGWILD_DATA_H
#define HOGWILD_DATA_H
#ifndef HOGWILD_H
#error "include <hogwild.h>, which includes hogwild_data.h"
#endif
/** @defgroup data Data sets
 * @{ */

/** What the examples of a data set are. */
enum hog_kind {
	HOG_KIND_SPARSE = 1,  /**< label + sparse feature vector (ids, optional values) */
	HOG_KIND_RATINGS = 2, /**< (user, item, rating) triples */
	HOG_KIND_DENSE = 3,   /**< label + dense row of float or u8 values */
};

/** What the labels mean. */
enum hog_task {
	HOG_TASK_BINARY = 1,     /**< label > 0 is the positive class */
	HOG_TASK_MULTICLASS = 2, /**< labels are class numbers 0..classes-1 */
	HOG_TASK_REGRESSION = 3, /**< real-valued labels */
	HOG_TASK_RATINGS = 4,    /**< real-valued ratings of (user, item) */
};

/** Format version read by this library; files with a larger one are refused.
 * Sets without example weights are written as version 1 (readable by every
 * hogwild), sets with weights as #HOG_FORMAT_WEIGHTS, which older readers
 * refuse as newer rather than train on without the weights. */
#define HOG_FORMAT_VERSION 3
/** The format version of a data set with example weights. */
#define HOG_FORMAT_WEIGHTS 2
/** The format version of a data set with packed blocks (varint ids, narrow
 * values: hogwild-data(5)); a set whose blocks are all raw keeps 1 or 2. */
#define HOG_FORMAT_PACKED 3
/** Default number of examples per block. */
#define HOG_BLOCK_EXAMPLES 4096

/** What a data set says about itself (the `meta` database). */
typedef struct hog_meta {
	uint32_t version;        /**< format version of the file */
	enum hog_kind kind;
	enum hog_task task;
	uint64_t examples;       /**< number of examples (ratings for HOG_KIND_RATINGS) */
	uint64_t features;       /**< sparse: dimension; dense: columns */
	uint64_t nnz;            /**< sparse: stored nonzeros; dense: examples*columns */
	uint64_t blocks;         /**< number of blocks */
	uint64_t users, items;   /**< ratings: dense id ranges */
	uint32_t classes;        /**< multiclass: number of classes */
	uint32_t dense_u8;       /**< dense: 1 when values are u8 with #dense_scale */
	float dense_scale;       /**< dense u8: value = byte * scale */
	uint64_t positives;      /**< binary: examples with label > 0 */
	double label_min, label_max, label_sum;
	char source[256];        /**< where the data came from (file names or generator) */
	int unlabelled;          /**< 1: a set without labels (meta "labels" = "none"; absent in
	                              older sets: labelled); its labels read as 0 and its task
	                              is the importer's placeholder: predictions take it, eval
	                              and training refuse it */
	int weighted;            /**< 1: examples carry weights (meta "weights" = "1", format
	                              version 2); 0: every weight is 1 */
	double weight_sum;       /**< the sum of the examples' weights (examples when unweighted) */
} hog_meta;

/** A view of one block, pointing into the store's memory map (or a copy of it
 * when the map is misaligned). Valid until the store is closed. Arrays that do not
 * apply to the block's kind are NULL. Every count, offset and id has been checked. */
typedef struct hog_block {
	enum hog_kind kind;
	uint64_t index;          /**< block number */
	uint64_t first;          /**< global index of the block's first example */
	uint32_t n;              /**< examples in the block */
	uint64_t nnz;            /**< sparse: nonzeros in the block */
	uint32_t cols;           /**< dense: columns */
	float scale;             /**< dense u8: value scale */
	const float *labels;     /**< sparse, dense: n labels */
	const uint32_t *offsets; /**< sparse: n+1 row offsets into ids/vals */
	const uint32_t *ids;     /**< sparse: nnz feature ids, increasing within a row */
	const float *vals;       /**< sparse: nnz values, or NULL when all are 1 */
	const uint32_t *users, *items; /**< ratings: n ids each */
	const float *ratings;    /**< ratings: n values */
	const float *xf;         /**< dense float: n*cols values, row-major */
	const uint8_t *xu8;      /**< dense u8: n*cols bytes, row-major */
	const float *weights;    /**< any kind: n example weights (finite, > 0), or NULL when all are 1 */
	int packed;              /**< 1: a packed block (format version 3), its arrays decoded into a
	                              buffer (the store's or the caller's), not a view of the map */
} hog_block;

/** A caller's buffer that packed blocks are decoded into (hog_store_block_buf()):
 * zeroed to start, grown as needed, freed by hog_blockbuf_free(). */
typedef struct hog_blockbuf {
	void *p;
	size_t cap;
} hog_blockbuf;
/** Frees @p bb's memory (and zeroes it). NULL is fine. */
void hog_blockbuf_free(hog_blockbuf *bb);

/** A data set opened for reading (read-only, no lock: any number of readers). */
typedef struct hog_store hog_store;

/** Opens a data set file and checks its meta data.
 * @return 0; ENOENT, EISDIR, EACCES...; HOG_EFORMAT (not a data set of ours),
 *         HOG_EVERSION (newer format), HOG_ECORRUPT (meta data inconsistent). */
int hog_store_open(hog_store **out, const char *path, hog_err *err);
/** The meta data read at open. */
const hog_meta *hog_store_meta(const hog_store *s);
/** Reads block @p index, checks its checksum and every count, offset and id, and
 * fills @p b. A packed block is decoded once into memory the store keeps until
 * it is closed (its decoded size: 4 bytes an id, value, label, offset), so that
 * the view is valid until close like any other; to stream a packed set with
 * bounded memory use hog_store_block_buf().
 * @return 0, HOG_ECORRUPT naming the block, ENOMEM or HOG_ELMDB. */
int hog_store_block(hog_store *s, uint64_t index, hog_block *b, hog_err *err);
/** hog_store_block(), a packed block decoded into the caller's @p bb instead:
 * its view is valid until @p bb is used again or freed (a raw block's view
 * points into the map, valid until close, as hog_store_block()'s). One buffer
 * per reader thread: the memory is the largest block's decoded size. */
int hog_store_block_buf(hog_store *s, uint64_t index, hog_block *b, hog_blockbuf *bb, hog_err *err);
/** Done with @p b for now: the pages of the memory map under its arrays leave
 * this process's resident set (the page cache keeps them while memory allows).
 * The view stays valid: reading it again faults them back in. Safe to call from
 * any thread; a block held in an aligned copy is left alone. */
void hog_store_release(hog_store *s, const hog_block *b);
/** Reads a meta entry as text. @return 0 or ENOENT when the key is absent. */
int hog_store_meta_get(hog_store *s, const char *key, char *buf, size_t size);
/** Ratings: the original ids of users (@p which = "users") or items ("items"):
 * a pointer to @p *n little-endian u64 values in the map, or NULL. */
const uint64_t *hog_store_idmap(hog_store *s, const char *which, uint64_t *n);
/** Closes the store; views of its blocks become invalid. NULL is fine. */
void hog_store_close(hog_store *s);

/** A data set being written: to a temporary file beside @p path, renamed onto it
 * by hog_writer_commit() after everything is synced. */
typedef struct hog_writer hog_writer;

/** Options for a writer; zero means the default. */
typedef struct hog_writer_opts {
	enum hog_kind kind;
	enum hog_task task;      /**< 0: decided at commit (binary if labels are in {-1,1} or {0,1},
	                              or are two whole numbers >= -1 (1 and 2: classes named "1" and
	                              "2", stored 0 and 1; so too with HOG_TASK_BINARY), multiclass
	                              if small whole numbers (named so where they are not 0..K-1
	                              with every class met: 1..7, -1..1), else regression) */
	uint64_t features;       /**< sparse: dimension (0: 1 + largest id); dense: columns (required) */
	uint32_t block_examples; /**< examples per block (default HOG_BLOCK_EXAMPLES) */
	uint64_t users, items;   /**< ratings: id ranges (0: 1 + largest id seen) */
	uint32_t classes;        /**< multiclass: class count (0: 1 + largest label seen) */
	int dense_u8;            /**< dense: store rows as bytes */
	float dense_scale;       /**< dense u8: value = byte * scale */
	const char *source;      /**< recorded in meta (copied at open; up to 255 bytes) */
	int unlabelled;          /**< a set without labels (hog_meta.unlabelled): add every example
	                              with label 0; hog_writer_set_unlabelled() says so later */
	int value_precision;     /**< enum hog_value_precision: how packed blocks may round values */
	int raw_blocks;          /**< 1: no packed blocks (a set older readers read: version 1 or 2) */
} hog_writer_opts;

/** How a writer may store the values of packed blocks (sparse values, ratings).
 * Exact: only packings that give back every value bit for bit (a byte times a
 * scale, f16 or bf16 when they hold it, else f32). F16/BF16: values rounded to
 * that type when each comes back within its rounding (relative 2^-11, 2^-8);
 * a block where one does not (out of range, tiny) keeps them exact. */
enum hog_value_precision { HOG_PREC_EXACT = 0, HOG_PREC_F16 = 1, HOG_PREC_BF16 = 2 };

/** Creates a writer. @return 0 or an errno/HOG_ELMDB code. */
int hog_writer_open(hog_writer **out, const char *path, const hog_writer_opts *o, hog_err *err);
/** Adds a sparse example. @p ids must be strictly increasing; @p vals NULL means all 1.
 * @return 0 or HOG_EDATA (id beyond the dimension, NaN/Inf), HOG_ELMDB, errno. */
int hog_writer_add_sparse(hog_writer *w, float label, const uint32_t *ids, const float *vals,
                          uint32_t nnz, hog_err *err);
/** The weight of the next example added (any kind; reset to 1 by each add):
 * a finite number > 0. A set in which some weight is not 1 is a weighted set
 * (hog_meta.weighted, format version #HOG_FORMAT_WEIGHTS).
 * @return 0 or HOG_EDATA (NaN, infinite, zero or negative: naming the example). */
int hog_writer_set_weight(hog_writer *w, double weight, hog_err *err);
/** Adds a rating; user and item are dense ids.
 * @return 0, HOG_ECONFIG (a writer not opened for ratings), HOG_EDATA (a rating
 * that is NaN or infinite, an id of UINT32_MAX). */
int hog_writer_add_rating(hog_writer *w, uint32_t user, uint32_t item, float rating, hog_err *err);
/** Adds a dense row of float values (@p xf) or bytes (@p xu8, when opened with dense_u8).
 * @return 0, HOG_ECONFIG (a writer of another kind, or the other row type),
 * HOG_EDATA (a NaN or infinite value or label). */
int hog_writer_add_dense(hog_writer *w, float label, const float *xf, const uint8_t *xu8,
                         hog_err *err);
/** Sets a meta entry (text). Keys used by the format itself are refused.
 * @return 0 or HOG_ECONFIG (a key of the format's own). */
int hog_writer_meta_set(hog_writer *w, const char *key, const char *value, hog_err *err);
/** Stores an id map ("users" or "items") of @p n original ids. @return 0 or ENOMEM. */
int hog_writer_idmap_set(hog_writer *w, const char *which, const uint64_t *ids, uint64_t n,
                         hog_err *err);
/** Examples added so far. */
uint64_t hog_writer_count(const hog_writer *w);
/** A sparse set's dimension from here on (0: 1 + the largest id, at the end).
 * @return 0 or HOG_ECONFIG (not sparse, or below an id already added). */
int hog_writer_set_features(hog_writer *w, uint64_t features, hog_err *err);
/** The labels added are classes 0..K-1 whose names are @p names (K names,
 * each ended by '\n', none empty, none holding a control character): the set
 * keeps them (meta "class_names") and its task is binary for K <= 2, else
 * multiclass with K classes. Call before hog_writer_finish().
 * @return 0, HOG_ECONFIG (a task that is not binary or multiclass asked for,
 * bad names), ENOMEM. */
int hog_writer_set_class_names(hog_writer *w, const char *names, hog_err *err);
/** Marks the set being written as one without labels (hog_writer_opts.unlabelled),
 * for an importer that finds out from its input. */
void hog_writer_set_unlabelled(hog_writer *w);
/** Writes the last block and the meta data, syncs, renames into place, frees @p w.
 * On failure the temporary file is removed and nothing is left at @p path.
 * @return 0, HOG_EDATA (no examples, multiclass labels that are not integers or
 * beyond the classes asked for, ids beyond the ranges asked for), HOG_ELMDB, or
 * the errno of the write, sync or rename. */
int hog_writer_commit(hog_writer *w, hog_err *err);
/** Discards everything written and frees @p w. NULL is fine. */
void hog_writer_abort(hog_writer *w);

/** A whole data set in memory (compressed sparse rows for sparse sets). */
typedef struct hog_data {
	hog_meta meta;
	uint64_t n;            /**< examples */
	uint64_t dim;          /**< sparse: dimension; dense: columns */
	uint64_t nnz;
	float *labels;         /**< n labels (binary: mapped to -1/+1) */
	uint64_t *offsets;     /**< sparse: n+1 */
	uint32_t *ids;         /**< sparse: nnz */
	float *vals;           /**< sparse: nnz, or NULL when every value is 1 */
	uint32_t *users, *items; /**< ratings: n */
	float *ratings;        /**< ratings: n */
	float *weights;        /**< n example weights, or NULL when the set is unweighted (all 1) */
	float *x;              /**< dense: n*dim values (u8 rows are scaled to float) */
	uint64_t *user_ids, *item_ids; /**< ratings: dense id -> original id (meta.users and
	                                    meta.items of them), or NULL: the set has no id maps */
	char *columns;         /**< csv: the header's names joined by ',' (meta "columns"), or NULL */
	char *class_names;     /**< labels that were names (csv): class k's name the k-th of these,
	                            each ended by '\n' (meta "class_names"), or NULL */
	char *categories;      /**< csv columns of text: feature category_from + k is the k-th of
	                            these "COLUMN=value" names, each ended by '\n' (meta
	                            "categories"), or NULL */
	uint64_t category_from; /**< the first category's feature id (the numbers' columns) */
	uint32_t csv_label, csv_fields; /**< csv: the label's field (from 0, as --label-col counts) of
	                                     the lines' csv_fields (meta "csv_label"); 0, 0: unknown */
	uint8_t libsvm_base;   /**< libsvm: 1 + the files' first index (1: --zero-based, 2: from 1; meta
	                            "libsvm_base"); 0: unknown */
	uint32_t vw_bits;      /**< vw: the bits its names were hashed into (meta "vw_bits"); 0: unknown */
	char origin[17];       /**< the set's own id, as hog_data_split() writes it in its halves' "from="
	                            (16 hex digits; a loaded set's, else "") */
	char *split;           /**< a half made by hog_data_split(): "pair=P from=F part=X" (the run
	                            of the split, a hash of its input, the half a or b; from the
	                            meta "split"), or NULL */
} hog_data;

/** Loads every block of @p path into memory, checking each. Binary labels become
 * -1/+1. @return 0 or the codes of hog_store_open() and hog_store_block(). */
int hog_data_load(hog_data **out, const char *path, hog_err *err);
/** Frees a loaded data set. NULL is fine. */
void hog_data_free(hog_data *d);
/** A random subset of @p n examples of @p d (all of them when n >= d->n), in
 * their order in @p d, chosen by @p seed: a data set of its own (free it with
 * hog_data_free()). The meta data's counts and label statistics are the
 * subset's. @return 0 or ENOMEM. */
int hog_data_sample(const hog_data *d, uint64_t n, uint64_t seed, hog_data **out, hog_err *err);
/** The examples @p idx[0..n) of @p d (indices below d->n, in the order given;
 * repeats allowed), as a data set of its own, as hog_data_sample() makes one:
 * `hogwild tune` cuts its folds so. @return 0 or ENOMEM. */
int hog_data_subset(const hog_data *d, const uint64_t *idx, uint64_t n, hog_data **out, hog_err *err);

/** A data set read a chunk of examples at a time, for sets that need not or
 * cannot be in memory whole (eval, predict, a streamed run's test set): each
 * chunk is a hog_data decoded as hog_data_load() decodes it, in buffers reused
 * from chunk to chunk. The chunks cut the set at fixed example counts (not at
 * blocks), from its first example. */
typedef struct hog_chunks hog_chunks;
/** Opens @p path for chunks of @p examples (0: hog_chunks_size() of 8 MB).
 * @return as hog_data_load_header(). */
int hog_chunks_open(hog_chunks **out, const char *path, uint64_t examples, hog_err *err);
/** The set's header (hog_data_load_header()'s: meta, id maps, columns, split;
 * no examples). Each chunk's meta is a copy of this one's when it is read. */
hog_data *hog_chunks_header(hog_chunks *c);
/** The next chunk into @p *out (NULL after the last one): a view valid until
 * the next call, meta the set's, n its examples, no id maps or columns.
 * @return 0, HOG_ECORRUPT or HOG_ELMDB naming the file and block, ENOMEM. */
int hog_chunks_next(hog_chunks *c, hog_data **out, hog_err *err);
/** Chunks of @p examples from the next one on (0: no change). */
void hog_chunks_resize(hog_chunks *c, uint64_t examples);
/** The global index of the last chunk's first example. */
uint64_t hog_chunks_first(const hog_chunks *c);
/** Starts again from the set's first example. */
void hog_chunks_rewind(hog_chunks *c);
/** Closes the set; chunks become invalid. NULL is fine. */
void hog_chunks_close(hog_chunks *c);
/** Examples per chunk for chunks of about @p bytes decoded (a multiple of 256). */
uint64_t hog_chunks_size(const hog_meta *m, uint64_t bytes);

/** What a test set must agree with: a training set or a model's record of
 * one (hog_model_prepare()). Zero fields are not checked. */
typedef struct hog_data_ref {
	enum hog_kind kind;            /**< the set's kind (0: not checked here) */
	enum hog_task task;            /**< the training labels' task */
	uint64_t features;             /**< sparse: dimension; extra test features are counted */
	uint64_t users, items;         /**< ratings: dense id ranges */
	const uint64_t *user_ids, *item_ids; /**< ratings: dense id -> original id, or NULL */
	uint8_t *user_rated, *item_rated; /**< ratings: 1 for the ids with a training rating
	                                     (NULL: every id in range); hog_data_ref_free() */
	const char *columns;           /**< csv: column names, or NULL */
	const char *class_names;       /**< the classes' names (hog_data.class_names), or NULL */
	const char *categories;        /**< the categories' names (hog_data.categories), or NULL */
	uint64_t category_from;        /**< and the first one's feature id */
	uint32_t csv_label, csv_fields; /**< csv: the label's field of the lines' fields (0, 0: unknown) */
	uint32_t vw_bits;              /**< vw: the hash's bits (0: unknown) */
} hog_data_ref;

/** What hog_data_reconcile() did to a test set. */
typedef struct hog_data_fit {
	int mapped;                    /**< ratings: ids mapped through both id maps */
	uint64_t unseen;               /**< ratings whose user or item the reference lacks,
	                                    or has no training rating of */
	uint64_t new_users, new_items; /**< distinct such users and items */
	uint64_t extra_features;       /**< sparse: distinct features beyond ref features */
	uint64_t extra_nnz;            /**< and their nonzeros (scored as zero weight) */
	uint64_t narrow;               /**< sparse: the reference's features where the set, whose rows hold most
	                                    of its features (a table's columns), has under half as many: another
	                                    kind of data, scored by ids (0: not so) */
	int relabelled;                /**< {0,1} labels read as binary, put back as regression values */
	int renamed;                   /**< class names: labels put in the reference's class numbers */
	int recoded;                   /**< categories: features put in the reference's numbers (those
	                                    it lacks dropped: counted in extra_features, extra_nnz) */
} hog_data_fit;

/** The @p k-th class name of @p names (hog_data.class_names), its length in
 * *len (without the '\n'); NULL when there are not that many. */
const char *hog_class_name(const char *names, uint32_t k, size_t *len);
/** 1 when the @p n bytes at @p p are class names as hog_data.class_names holds
 * them (each ended by '\n', none empty, no other control character). */
int hog_class_names_ok(const char *p, size_t n);
/** The number of names in @p names (0 for NULL). */
uint32_t hog_class_count(const char *names);

/** Dense ids of a ratings set that the reference lacks: predicted as unseen. */
#define HOG_ID_UNSEEN UINT32_MAX

/** Makes test set @p d speak the reference's language, in place: a ratings
 * set's users and items become the reference's dense ids (through both sets'
 * id maps; HOG_ID_UNSEEN for ids the reference lacks; a set without maps keeps
 * its dense ids when they fit the reference's ranges); a set whose task was
 * read as binary from {0,1} labels gets its labels back for a regression
 * reference; labels that were class names are renumbered as the reference
 * numbers the same names, and categories (columns of text) likewise, those the
 * reference lacks dropped and counted as extra features
 * (hog_data_reconcile_names()); extra sparse features
 * are counted. A set of another kind or task,
 * other CSV column names, or ids that cannot be matched is refused with
 * HOG_EMISMATCH naming both (@p d_name, @p ref_name: the files) and what differs.
 * A set whose ids were mapped loses its own id maps (user_ids, item_ids NULL).
 * *@p fit (may be NULL) gets what was done. @return 0, HOG_EMISMATCH or ENOMEM. */
int hog_data_reconcile(hog_data *d, const char *d_name, const hog_data_ref *ref, const char *ref_name,
                       hog_data_fit *fit, hog_err *err);
/** The names' part of hog_data_reconcile() alone, on the header: where the set
 * and the reference both name their classes (hog_data.class_names), the set's
 * task and class count become the reference's; where the set has categories
 * (hog_data.categories), its dimension becomes the reference's (its labels and
 * features are renumbered by hog_data_reconcile() or the chunks' match).
 * Names on one side only, a class the reference lacks, or categories where
 * the reference has numbers: HOG_EMISMATCH. For the checks a model makes of a
 * set's task and width before reconciling it. */
int hog_data_reconcile_names(hog_data *d, const char *d_name, const hog_data_ref *ref, const char *ref_name,
                               hog_err *err);
/** hog_data_reconcile() for a set read in chunks (hog_chunks_open()). */
typedef struct hog_data_match hog_data_match;
/** Checks the set's header against @p ref as hog_data_reconcile() does, and
 * for a ratings set reads its ids once (a pass over the chunks, then a rewind)
 * to refuse what the whole set's reconcile would refuse before any chunk is
 * used. The header's meta becomes what the reconciled set's would be (its id
 * maps stay: the set's originals). @p ref's pointers are read during the call
 * only, except its user_rated and item_rated, which the match takes (and frees
 * at hog_data_match_end(); on failure they stay the caller's). @return 0, HOG_EMISMATCH, ENOMEM or a chunk's error. */
int hog_data_match_begin(hog_data_match **out, hog_chunks *c, const char *d_name, const hog_data_ref *ref,
                         const char *ref_name, hog_err *err);
/** Puts chunk @p d in the reference's terms, in place, counting what does not fit. */
void hog_data_match_chunk(hog_data_match *x, hog_data *d);
/** What did not fit in the chunks matched so far (a set read over again, a
 * pass per epoch, counts again: take it after the first pass). */
void hog_data_match_fit(const hog_data_match *x, hog_data_fit *fit);
/** Frees the match, the whole set's hog_data_fit into @p fit (may be NULL). */
void hog_data_match_end(hog_data_match *x, hog_data_fit *fit);

/** A data set's meta data, id maps and column names without its examples (the
 * arrays stay NULL; free with hog_data_free()): what a test set is matched
 * against when the training set is streamed. @return as hog_data_load(). */
int hog_data_load_header(hog_data **out, const char *path, hog_err *err);
/** The reference a training set makes for its test set (free it with
 * hog_data_ref_free(); out of memory leaves user_rated and item_rated NULL). */
void hog_data_ref_of(const hog_data *tr, hog_data_ref *ref);
/** Frees what hog_data_ref_of() or hog_model_prepare() allocated in @p ref. */
void hog_data_ref_free(hog_data_ref *ref);

/** Progress callback for long data operations: @p done of @p total units
 * (bytes for imports, examples for generators). */
typedef void (*hog_progress_fn)(void *ud, uint64_t done, uint64_t total);

/** Input formats of hog_import(). */
enum hog_format {
	HOG_FORMAT_LIBSVM = 1, /**< LIBSVM / SVMlight text */
	HOG_FORMAT_CSV = 2,    /**< comma (or tab, semicolon) separated values, one label column */
	HOG_FORMAT_RATINGS = 3,/**< user, item, rating[, timestamp] per line; TSV or CSV */
	HOG_FORMAT_IDX = 4,    /**< MNIST idx: an image file and a label file */
	HOG_FORMAT_VW = 5,     /**< Vowpal Wabbit text: namespaces, hashed feature names */
};

/** Options for hog_import(); zero means the default. */
typedef struct hog_import_opts {
	enum hog_format format;
	enum hog_task task;       /**< 0: decided from the labels */
	uint64_t features;        /**< libsvm: dimension (0: 1 + largest id seen) */
	int label_col;            /**< csv: label column, 0-based; negative counts from the end */
	int label_given;          /**< csv: 1: label_col is the caller's choice; 0: a header column
	                               named label, target, class or y (any case) is the label, else
	                               label_col */
	const char *label_name;   /**< csv: the label is the header column of this name (any case);
	                               NULL: as label_col and label_given say */
	int header;               /**< csv, ratings: 1 yes, 0 no, -1 detect (set it: 0 means no) */
	char delim;               /**< csv, ratings: 0 detects ',', '\t', ';' or whitespace */
	size_t max_line;          /**< longest line accepted (default 16 MiB) */
	uint32_t block_examples;  /**< examples per block */
	hog_progress_fn progress; /**< called every few MB; may be NULL */
	void *progress_ud;
	uint64_t skip_lines;      /**< csv, ratings: lines skipped at the start of each file,
	                               before the header is looked for */
	int no_label;             /**< the inputs have no labels (hog_meta.unlabelled): csv lines
	                               of features only, ratings "user item" pairs, libsvm lines
	                               that start with a feature (libsvm also detects these: a
	                               first line without a label makes the set unlabelled, and
	                               every line must then be one) */
	uint32_t vw_bits;         /**< vw: feature ids hashed to this many bits (default 0: 18, as
	                               VW's -b), the set's dimension 2^bits */
	const char *vw_quadratic; /**< vw: pairs of namespaces (first letters) whose features'
	                               products are features too, "ab,cd" (VW's -q ab -q cd) */
	int weight_col;           /**< csv: the column of example weights (0-based, negative from
	                               the end; neither label nor feature); ratings: 3, the fourth
	                               field is a weight, not a timestamp. Used when weight_given */
	int weight_given;
	const char *weight_name;  /**< csv: the weights' column by its header name instead (with
	                               weight_given) */
	const char *weights_file; /**< any format: one weight per example, a number a line, in the
	                               examples' order (blank lines and # comments skipped); the line
	                               count must match. Replaces weights the input gives. NULL: none */
	/** Called with one line of information for the user (a header line detected and
	 * skipped, with its FILE:LINE); the library prints nothing itself. May be NULL. */
	void (*note)(void *ud, const char *msg);
	void *note_ud;
	int value_precision;      /**< enum hog_value_precision (hog_writer_opts.value_precision) */
	int raw_blocks;           /**< no packed blocks (hog_writer_opts.raw_blocks) */
	int zero_based;           /**< libsvm: feature indices start at 0 (as scikit-learn's
	                               dump_svmlight_file writes them by default), not at 1;
	                               features (the dimension) then counts index 0 */
	int missing_zero;         /**< csv: a feature field with no value (empty, NA, ?, ...) in a
	                               column of numbers reads as 0, the feature absent from the
	                               line; 0: such a field is an error naming it */
	const char *ignore_cols;  /**< csv: columns left out, neither label nor feature, as
	                               "N,NAME,...": numbers from 0 (negative from the end) or a
	                               header's names (any case); NULL: none */
} hog_import_opts;

/** Imports @p nin input files (plain or gzip) into a new data set at @p out.
 * Malformed input fails with HOG_EDATA and err->msg = "FILE:LINE:COLUMN: what";
 * nothing is left at @p out then. */
int hog_import(const char *const *in, int nin, const char *out, const hog_import_opts *o,
               hog_err *err);

/** Options for hog_gen(); zero means the default (RCV1's shape for sparse). */
typedef struct hog_gen_opts {
	enum hog_kind kind;
	uint64_t seed;            /**< default 1; it draws the hidden model that makes the labels
	                               too: a training set and a test set of two seeds have two models
	                               (a test at chance), so cut one set in two (hog_data_split) */
	uint64_t examples;        /**< sparse 781265; ratings: number of ratings 1000000; dense 60000 */
	uint64_t features;        /**< sparse 47236; dense: columns 64 */
	double nnz_per_example;   /**< sparse: mean 71 */
	double zipf;              /**< sparse: feature popularity exponent, default 1.0 */
	double noise;             /**< sparse: label flip rate (default 0.04); ratings: noise sd (0.5) */
	int binary_values;        /**< sparse: all values 1 instead of unit-norm rows */
	uint64_t users, items;    /**< ratings: default 20000 x 2000 */
	uint32_t rank;            /**< ratings: rank of the hidden factors (default 10) */
	uint32_t classes;         /**< dense: classes (default 10) */
	uint32_t block_examples;
	hog_progress_fn progress;
	void *progress_ud;
} hog_gen_opts;

/** Generates a synthetic data set at @p out (atomically).
 * @return 0, HOG_ECONFIG (an option out of range), or a file's error. */
int hog_gen(const char *out, const hog_gen_opts *o, hog_err *err);

/** Statistics of a sparse data set, in the Hogwild! paper's terms (Niu et al. 2011, §2):
 * the examples are the hyperedges of a graph over the features. */
typedef struct hog_stats {
	uint64_t examples, features, nnz, used_features;
	double nnz_mean; uint64_t nnz_min, nnz_max; /**< per example; nnz_max is the paper's Omega */
	double delta;        /**< Delta: the largest fraction of examples that share one feature */
	double rho_max;      /**< rho (estimated on a sample): largest fraction of examples that
	                          share a feature with a given one */
	double rho_mean;     /**< the same, averaged over the sample */
	uint64_t top_feature; uint64_t top_count; /**< the most used feature and its count */
	double hot1pct_share;/**< share of nonzeros that fall on the 1% most used features */
} hog_stats;

/** Computes #hog_stats for a loaded sparse data set; @p sample examples for rho.
 * @return 0, HOG_ENOTSUP (a set that is not sparse) or ENOMEM. */
int hog_data_stats(const hog_data *d, uint64_t sample, uint64_t seed, hog_stats *st, hog_err *err);
/** hog_data_stats() read a block at a time from an open store, packed blocks
 * included: the same numbers for the same @p sample and @p seed, in memory for
 * a count per feature and the sampled examples' rows, not the set.
 * @return 0, HOG_ENOTSUP, ENOMEM or the codes of hog_store_block_buf(). */
int hog_store_stats(hog_store *s, uint64_t sample, uint64_t seed, hog_stats *st, hog_err *err);

/** Checks every block of a data set, then the meta data against the blocks: nonzeros,
 * multiclass labels in 0..classes-1, positives and label min, max and sum.
 * @return 0 or the first damage found. */
int hog_store_verify(const char *path, uint64_t *blocks_checked, hog_err *err);

/** Splits a data set into two by fraction: each example goes to @p out_b with
 * probability @p fraction, decided by a hash of @p seed and its index. Both
 * outputs are written atomically. @return 0, HOG_ECONFIG (a fraction outside
 * (0, 1)), or the error of reading @p in or writing either output. */
int hog_data_split(const char *in, const char *out_a, const char *out_b, double fraction,
                   uint64_t seed, hog_err *err);
/** A per-user hold-out of a ratings set: as hog_data_split(), except that each
 * user's first rating (in the set's order) always goes to @p out_a, so every
 * user in @p out_b has ratings in @p out_a. @return as hog_data_split(), and
 * HOG_ECONFIG for a set that is not ratings. */
int hog_data_split_users(const char *in, const char *out_a, const char *out_b, double fraction,
                         uint64_t seed, hog_err *err);

/** Writes a sparse data set as LIBSVM text to @p fd (labels and values printed so
 * that importing the text again gives the same floats). @return 0, HOG_ENOTSUP
 * (a set that is not sparse), or the error of reading @p in or writing @p fd
 * (EPIPE for a reader that went away, where SIGPIPE is ignored). */
int hog_export_libsvm(const char *in, int fd, hog_err *err);

/** Writes a ratings set as text to @p fd: a header "user,item,rating", then a
 * line a rating with the users' and items' original ids (the set's dense ids
 * where it keeps no maps); a weighted set's weight a fourth field (imported
 * again with --weight-col 3), a set without ratings pairs. hogwild data import
 * --format ratings reads it back to the same ratings. @return 0, HOG_ENOTSUP
 * (a set that is not ratings), or the error of reading @p in or writing @p fd. */
int hog_export_ratings(const char *in, int fd, hog_err *err);

/** @} */

#endif /* HOGWILD_DATA_H */
