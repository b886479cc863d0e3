/* A backend handle's life: made around a table and its context by the
 * backend that opens it (hog_backend_wrap), named, closed. Apart from ops.c
 * (the calls through the table, which fall back to cpu.c's ops) so that cpu.c,
 * which makes its handles here, and ops.c, which falls back to cpu.c, do not
 * include each other in a circle. */
#include "backend/backend.h"
#include "sys/err.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

int hog_backend_wrap(hog_backend **out, const hog_backend_ops *ops, void *ctx,
                     const char *device, unsigned flags, hog_err *err)
{
	hog_backend *b = calloc(1, sizeof *b);
	if (!b)
		return hog_err_set(err, ENOMEM, "backend %s: out of memory", device);
	b->ops = ops;
	b->ctx = ctx;
	b->flags = flags;
	snprintf(b->device, sizeof b->device, "%s", device);
	*out = b;
	return 0;
}

void hog_backend_close(hog_backend *b)
{
	if (!b)
		return;
	if (b->ops->free)
		b->ops->free(b);
	free(b->stage);
	free(b);
}

const char *hog_backend_name(const hog_backend *b)
{
	return b->device;
}

int hog_backend_is_host(const hog_backend *b)
{
	return b->ops->alloc == NULL;
}
