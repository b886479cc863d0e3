/* train's held-out set read a chunk at a time (--test, or --validation FILE,
 * with --stream, or whenever the set decoded would take more than half the
 * memory available: cli_stream_auto): matched to the training set once, as
 * cli_match_test() matches a loaded one, then evaluated after every epoch on
 * the model as it stands (hog_train_opts.test_eval), a chunk at a time into
 * the exact accumulator, so the figures are those of the set in memory. */
#include "cli/train_opts.h"
#include <stdio.h>
#include <string.h>

int cli_held_wanted(const char *cmd, const char *path, int stream)
{
	hog_data *h;
	hog_err err = { 0 };
	if (stream || !path)
		return stream;
	if (hog_data_load_header(&h, path, &err))
		return 0; /* (refused when it is loaded, with its message) */
	int r = cli_stream_auto(cmd, path, &h->meta);
	hog_data_free(h);
	return r;
}

int cli_held_open(cli_held *h, const char *cmd, const hog_data *tr, const char *trn, const char *path, int strict)
{
	hog_err err = { 0 };
	hog_data *head = NULL;
	hog_data_ref ref;
	memset(h, 0, sizeof *h);
	h->path = path;
	int rc = hog_chunks_open(&h->c, path, 0, &err);
	if (rc)
		return cli_fail(&err, rc);
	hog_chunks_resize(h->c, cli_chunk_examples(&hog_chunks_header(h->c)->meta));
	if (cli_refuse_unlabelled(cmd, path, hog_chunks_header(h->c)))
		return 1;
	if (!tr && (rc = hog_data_load_header(&head, trn, &err))) /* a streamed training set */
		return cli_fail(&err, rc);
	hog_data_ref_of(tr ? tr : head, &ref);
	if ((rc = hog_data_match_begin(&h->x, h->c, path, &ref, trn, &err)))
		hog_data_ref_free(&ref);
	/* (a warning: said even with --quiet) */
	const int refused = !rc && (cli_split_overlap(cmd, trn, (tr ? tr : head)->split, (tr ? tr : head)->origin, path,
	                                              hog_chunks_header(h->c)->split, hog_chunks_header(h->c)->origin,
	                                              strict) |
	                            cli_same_set(cmd, trn, &(tr ? tr : head)->meta, path, &hog_chunks_header(h->c)->meta,
	                                         strict));
	hog_data_free(head);
	if (rc)
		return cli_fail(&err, rc);
	return refused;
}

int cli_held_eval(cli_held *h, const hog_model *m, hog_eval *ev, hog_err *err)
{
	hog_eval_acc *a;
	hog_data *d;
	hog_chunks_rewind(h->c);
	int rc = hog_model_eval_begin(m, hog_chunks_header(h->c), 0, &a, err);
	while (!rc && !(rc = hog_chunks_next(h->c, &d, err)) && d) {
		hog_data_match_chunk(h->x, d);
		rc = hog_model_eval_add(a, d, err);
	}
	hog_model_eval_end(a, rc ? NULL : ev, NULL);
	if (!rc && !h->passes++)
		hog_data_match_fit(h->x, &h->fit);
	return rc;
}

void cli_held_close(cli_held *h, const char *cmd, const char *trn, int quiet)
{
	if (h->passes && !quiet) {
		hog_data n = { .n = hog_chunks_header(h->c)->meta.examples }; /* (what the note reads) */
		cli_fit_note(cmd, &h->fit, &n, h->path, trn);
	}
	hog_data_match_end(h->x, NULL);
	hog_chunks_close(h->c);
	memset(h, 0, sizeof *h);
}
