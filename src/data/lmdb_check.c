/* A bounded, read-only check of an LMDB file's own pages, run before
 * mdb_env_open() maps the file. LMDB trusts its pages: a truncated file makes it
 * touch pages past the end of the map (SIGBUS), and one flipped byte in a page
 * header or node sends it to any address (SIGSEGV). This product promises that
 * a reader trusts nothing, so everything LMDB will follow when it opens the file
 * read-only, opens the named databases and walks them with cursors is checked
 * here first, against the file's real size.
 *
 * The layout is LMDB 0.9's on-disk format (64-bit pgno_t, little-endian), as
 * written by the liblmdb we link; it has not changed within 0.9:
 *   page header, 16 bytes: u64 pgno, u16 pad, u16 flags, u16 lower, u16 upper
 *     (an overflow page holds u32 page count in place of lower/upper)
 *   meta page: header, then u32 magic 0xBEEFC0DE, u32 version 1, u64 address,
 *     u64 mapsize, two 48-byte database records (free, main), u64 last page,
 *     u64 transaction id. The page size is the free record's first u32.
 *   database record: u32 pad, u16 flags, u16 depth, u64 branch, leaf and
 *     overflow page counts, u64 entries, u64 root page (all ones: empty)
 *   branch/leaf page: u16 node offsets from byte 16 up to `lower`; nodes lie in
 *     [upper, page size): u16 lo, u16 hi, u16 flags, u16 key size, key, data.
 *     Branch: child page = lo | hi << 16 | flags << 32. Leaf: data size =
 *     lo | hi << 16; flag 1: the data is a u64 overflow page number; flag 2: the
 *     data is a database record (a named database in the main one).
 * LMDB picks the meta page with the larger transaction id, as we do.
 *
 * Every page is visited at most once (a bitmap over the file's pages), so a
 * crafted tree with shared or cyclic children cannot make the walk blow up; the
 * walk reads each branch and leaf page and the first page of each overflow run:
 * a small fraction of a data set, whose blocks live in overflow pages. */
#include "data/lmdb_check.h"
#include "sys/err.h"
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

enum {
	PAGEHDR = 16,
	P_BRANCH = 0x01, P_LEAF = 0x02, P_OVERFLOW = 0x04, P_META = 0x08,
	F_BIGDATA = 0x01, F_SUBDATA = 0x02,
	NODEHDR = 8,
	DBREC = 48,
	MAX_DEPTH = 32,  /* LMDB's cursor stack */
	MAX_KEY = 511,   /* LMDB's default and only key size limit */
	MAX_DBS = 16,
};
#define LMDB_MAGIC 0xBEEFC0DEu
#define P_INVALID UINT64_MAX

typedef unsigned long long ull;

typedef struct dbrec {
	uint16_t flags, depth;
	uint64_t branch, leaf, overflow, entries, root;
} dbrec;

typedef struct walk {
	const char *path;
	const unsigned char *map;
	uint64_t psize, npages; /* pages the meta page counts: last_pg + 1 */
	unsigned char *seen;    /* one bit per page */
	const char *db;         /* name of the database being walked, for messages */
	uint64_t nbranch, nleaf, noverflow, nentries;
	int main_db;
	int nsub;
	struct { char name[64]; dbrec rec; } sub[MAX_DBS];
	hog_err *err;
} walk;

static uint16_t get16(const unsigned char *p) { uint16_t v; memcpy(&v, p, 2); return v; }
static uint32_t get32(const unsigned char *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint64_t get64(const unsigned char *p) { uint64_t v; memcpy(&v, p, 8); return v; }

static dbrec rec_read(const unsigned char *p)
{
	dbrec r = { get16(p + 4), get16(p + 6), get64(p + 8), get64(p + 16), get64(p + 24), get64(p + 32),
	            get64(p + 40) };
	return r;
}

#define DAMAGED(w, pg, ...) page_err(w, pg, __VA_ARGS__)

static int page_err(walk *w, uint64_t pg, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int page_err(walk *w, uint64_t pg, const char *fmt, ...)
{
	char what[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	return hog_err_set(w->err, HOG_ECORRUPT, "%s: damaged: LMDB page %llu (database '%s'): %s", w->path,
	                   (ull)pg, w->db, what);
}

/* Claims page @p pg for this walk: it must exist, not be a meta page and not be
 * claimed already (a page belongs to one place in one tree). */
static int claim(walk *w, uint64_t from, uint64_t pg, const char *what)
{
	if (pg < 2 || pg >= w->npages)
		return DAMAGED(w, from, "%s page number %llu outside 2..%llu", what, (ull)pg, (ull)(w->npages - 1));
	if (w->seen[pg >> 3] & (1u << (pg & 7)))
		return DAMAGED(w, from, "%s page %llu is referenced twice", what, (ull)pg);
	w->seen[pg >> 3] |= (unsigned char)(1u << (pg & 7));
	return 0;
}

static int walk_overflow(walk *w, uint64_t from, uint64_t pg, uint64_t dsize)
{
	int rc = claim(w, from, pg, "overflow");
	if (rc)
		return rc;
	const unsigned char *p = w->map + pg * w->psize;
	uint32_t pages = get32(p + 12);
	if (get64(p) != pg || (get16(p + 10) & ~0x10u) != P_OVERFLOW)
		return DAMAGED(w, pg, "not the overflow page its leaf (page %llu) points to", (ull)from);
	/* LMDB's count: the header and the data, rounded up to whole pages */
	uint64_t want = (PAGEHDR - 1 + dsize) / w->psize + 1;
	if (pages != want || pages > w->npages - pg)
		return DAMAGED(w, pg, "%u overflow pages for %llu bytes (need %llu, the file has %llu after it)",
		               pages, (ull)dsize, (ull)want, (ull)(w->npages - pg));
	for (uint64_t q = pg + 1; q < pg + pages; q++) {
		if (w->seen[q >> 3] & (1u << (q & 7)))
			return DAMAGED(w, pg, "overflow run overlaps page %llu, used elsewhere", (ull)q);
		w->seen[q >> 3] |= (unsigned char)(1u << (q & 7));
	}
	w->noverflow += pages;
	return 0;
}

static int walk_page(walk *w, uint64_t from, uint64_t pg, unsigned level, unsigned depth)
{
	int rc = claim(w, from, pg, level ? "child" : "root");
	if (rc)
		return rc;
	const unsigned char *p = w->map + pg * w->psize;
	uint16_t flags = get16(p + 10) & ~0x10u, lower = get16(p + 12), upper = get16(p + 14);
	int leaf = level + 1 == depth;
	if (get64(p) != pg)
		return DAMAGED(w, pg, "its header says page %llu", (ull)get64(p));
	if (flags != (leaf ? P_LEAF : P_BRANCH))
		return DAMAGED(w, pg, "flags 0x%x where a %s page belongs (level %u of %u)", flags,
		               leaf ? "leaf" : "branch", level + 1, depth);
	if (lower < PAGEHDR + 2 || (lower - PAGEHDR) % 2 || lower > upper || upper > w->psize)
		return DAMAGED(w, pg, "free space bounds %u..%u outside %u..%llu", lower, upper, PAGEHDR + 2,
		               (ull)w->psize);
	unsigned nkeys = (lower - PAGEHDR) / 2u;
	for (unsigned i = 0; i < nkeys; i++) {
		uint64_t off = get16(p + PAGEHDR + 2 * i);
		if (off < upper || off % 2 || off + NODEHDR > w->psize)
			return DAMAGED(w, pg, "node %u at offset %llu, outside %u..%llu", i, (ull)off, upper,
			               (ull)(w->psize - NODEHDR));
		const unsigned char *n = p + off;
		uint64_t lo = get16(n), hi = get16(n + 2), nflags = get16(n + 4), ksize = get16(n + 6);
		uint64_t end = off + NODEHDR + ksize;
		if (ksize > MAX_KEY || end > w->psize)
			return DAMAGED(w, pg, "node %u: key of %llu bytes does not fit", i, (ull)ksize);
		if (!leaf) {
			uint64_t child = lo | hi << 16 | nflags << 32;
			if ((rc = walk_page(w, pg, child, level + 1, depth)))
				return rc;
			continue;
		}
		uint64_t dsize = lo | hi << 16;
		if (nflags == F_BIGDATA) {
			if (end + 8 > w->psize)
				return DAMAGED(w, pg, "node %u: overflow page number past the page's end", i);
			if ((rc = walk_overflow(w, pg, get64(p + end), dsize)))
				return rc;
		} else if (nflags == 0 || (nflags == F_SUBDATA && w->main_db)) {
			if (end + dsize > w->psize)
				return DAMAGED(w, pg, "node %u: %llu data bytes do not fit in the page", i, (ull)dsize);
			if (nflags == F_SUBDATA) {
				if (dsize != DBREC || w->nsub == MAX_DBS)
					return DAMAGED(w, pg, "node %u: a database record of %llu bytes", i, (ull)dsize);
				size_t k = ksize < sizeof w->sub[0].name - 1 ? ksize : sizeof w->sub[0].name - 1;
				memcpy(w->sub[w->nsub].name, n + NODEHDR, k);
				w->sub[w->nsub].name[k] = 0;
				w->sub[w->nsub++].rec = rec_read(p + end);
			}
		} else {
			return DAMAGED(w, pg, "node %u: flags 0x%llx that our files never use", i, (ull)nflags);
		}
		w->nentries++;
	}
	if (leaf)
		w->nleaf++;
	else
		w->nbranch++;
	return 0;
}

/* Walks one database's tree and checks its record's counts against the walk. */
static int walk_db(walk *w, const char *name, const dbrec *r, int main_db)
{
	w->db = name;
	w->main_db = main_db;
	w->nbranch = w->nleaf = w->noverflow = w->nentries = 0;
	/* no key or duplicate flags (DUPSORT, INTEGERKEY...): our databases use none */
	if (r->flags != 0)
		return hog_err_set(w->err, HOG_ECORRUPT, "%s: damaged: LMDB database '%s' has flags 0x%x", w->path,
		                   name, r->flags);
	if (r->root == P_INVALID) {
		if (r->depth || r->entries)
			return hog_err_set(w->err, HOG_ECORRUPT, "%s: damaged: empty LMDB database '%s' claims entries",
			                   w->path, name);
		return 0;
	}
	if (r->depth < 1 || r->depth > MAX_DEPTH)
		return hog_err_set(w->err, HOG_ECORRUPT, "%s: damaged: LMDB database '%s' has depth %u", w->path,
		                   name, r->depth);
	int rc = walk_page(w, r->root, r->root, 0, r->depth);
	if (rc)
		return rc;
	if (w->nentries != r->entries || w->nbranch != r->branch || w->nleaf != r->leaf ||
	    w->noverflow != r->overflow)
		return hog_err_set(w->err, HOG_ECORRUPT,
		                   "%s: damaged: LMDB database '%s' counts %llu entries, %llu branch, %llu leaf and "
		                   "%llu overflow pages; its tree has %llu, %llu, %llu and %llu",
		                   w->path, name, (ull)r->entries, (ull)r->branch, (ull)r->leaf, (ull)r->overflow,
		                   (ull)w->nentries, (ull)w->nbranch, (ull)w->nleaf, (ull)w->noverflow);
	return 0;
}

/* Reads meta page @p i's header fields; 0, or 1 when it is not a meta page. */
static int meta_read(const unsigned char *p, uint32_t *version, uint64_t *psize, dbrec *main,
                     uint64_t *last, uint64_t *txnid)
{
	if ((get16(p + 10) & P_META) == 0 || get32(p + 16) != LMDB_MAGIC)
		return 1;
	*version = get32(p + 20);
	*psize = get32(p + 40); /* the free database record's pad field */
	*main = rec_read(p + 88);
	*last = get64(p + 136);
	*txnid = get64(p + 144);
	return 0;
}

int hog_lmdb_check(const char *path, hog_err *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return hog_err_set(err, errno, "%s: %s", path, strerror(errno));
	struct stat st;
	unsigned char m0[152] = { 0 }, m1[152] = { 0 };
	int rc = 0;
	if (fstat(fd, &st) != 0) {
		rc = hog_err_set(err, errno, "%s: %s", path, strerror(errno));
		close(fd);
		return rc;
	}
	uint64_t fsize = (uint64_t)st.st_size;
	uint32_t v0, v1;
	uint64_t ps0, ps1, last0, last1, tx0, tx1;
	dbrec main0, main1;
	ssize_t got = pread(fd, m0, sizeof m0, 0);
	if (got < 24 || meta_read(m0, &v0, &ps0, &main0, &last0, &tx0) != 0) {
		close(fd);
		return hog_err_set(err, HOG_EFORMAT, "%s" HOG_NOT_LMDB, path);
	}
	if (got < (ssize_t)sizeof m0) {
		close(fd);
		return hog_err_set(err, HOG_ECORRUPT, "%s: truncated: the file has %llu bytes, less than LMDB's meta page",
		                   path, (ull)fsize);
	}
	if (v0 != 1) {
		close(fd);
		return hog_err_set(err, HOG_EFORMAT, "%s: LMDB data version %u, not 1: not a data set this hogwild reads",
		                   path, v0);
	}
	if (ps0 < 512 || ps0 > 65536 || (ps0 & (ps0 - 1))) {
		close(fd);
		return hog_err_set(err, HOG_ECORRUPT, "%s: damaged: LMDB meta page 0 says pages of %llu bytes", path,
		                   (ull)ps0);
	}
	if (fsize < 2 * ps0) {
		close(fd);
		return hog_err_set(err, HOG_ECORRUPT,
		                   "%s: truncated: the file has %llu bytes, less than LMDB's two meta pages (%llu)", path,
		                   (ull)fsize, (ull)(2 * ps0));
	}
	if (pread(fd, m1, sizeof m1, (off_t)ps0) != (ssize_t)sizeof m1 ||
	    meta_read(m1, &v1, &ps1, &main1, &last1, &tx1) != 0 || v1 != 1 || ps1 != ps0) {
		close(fd);
		return hog_err_set(err, HOG_ECORRUPT, "%s: damaged: LMDB meta page 1 is not a valid meta page", path);
	}
	/* LMDB uses the meta page with the larger transaction id (meta 0 on a tie) */
	int cur = tx0 < tx1;
	uint64_t last = cur ? last1 : last0, psize = ps0;
	dbrec main = cur ? main1 : main0;
	uint64_t need;
	if (last < 1 || __builtin_add_overflow(last, 1, &need) || __builtin_mul_overflow(need, psize, &need)) {
		close(fd);
		return hog_err_set(err, HOG_ECORRUPT, "%s: damaged: LMDB meta page %d says the last page is %llu", path,
		                   cur, (ull)last);
	}
	if (fsize < need) {
		close(fd);
		return hog_err_set(err, HOG_ECORRUPT, "%s: truncated: the file has %llu bytes, LMDB's meta page says %llu",
		                   path, (ull)fsize, (ull)need);
	}
	if (need > SIZE_MAX) {
		close(fd);
		return hog_err_set(err, ENOMEM, "%s: too large to map", path);
	}
	void *map = mmap(NULL, (size_t)need, PROT_READ, MAP_PRIVATE, fd, 0);
	int saved = errno;
	close(fd);
	if (map == MAP_FAILED)
		return hog_err_set(err, saved, "%s: mapping: %s", path, strerror(saved));
	walk w = { .path = path, .map = map, .psize = psize, .npages = last + 1, .err = err };
	if (!(w.seen = calloc(1, (size_t)(w.npages / 8 + 1)))) {
		munmap(map, (size_t)need);
		return hog_err_set(err, ENOMEM, "%s: out of memory", path);
	}
	if ((rc = walk_db(&w, "(main)", &main, 1)) == 0)
		for (int i = 0; i < w.nsub && rc == 0; i++) {
			dbrec r = w.sub[i].rec;
			char name[64];
			memcpy(name, w.sub[i].name, sizeof name);
			rc = walk_db(&w, name, &r, 0);
		}
	free(w.seen);
	munmap(map, (size_t)need);
	return rc;
}
