/* `hogwild topo`: shows the machine as hwloc sees it (or a synthetic/XML one),
 * the placement plan for N worker threads with a binding mode, and whether this
 * hogwild was built with hwloc. The same plan is what `hogwild train` follows,
 * so this is the way to check pinning before a long run. */
#include "cli/cli.h"
#include "sys/topo.h"
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#define TOPO_SYNOPSIS "usage: hogwild topo [--threads N] [--bind core|numa|none] [--synthetic DESC]\n"
static const char topo_usage[] =
	TOPO_SYNOPSIS
	"\n"
	"Shows the machine (packages, NUMA nodes, cores, PUs, caches) and where N worker\n"
	"threads would run and their memory would go.\n"
	"\n"
	"  -t, --threads N        workers to plan for (default, or 0: all cores)\n"
	"  -b, --bind MODE        core: one PU per worker; numa: the worker's NUMA node;\n"
	"                         none: not pinned (default: core)\n"
	"  -s, --synthetic DESC   plan for another machine: an hwloc synthetic description\n"
	"                         (\"package:2 core:8 pu:2\", \"numa:4 core:4 pu:1\") or an\n"
	"                         hwloc XML file (a name ending in .xml, from lstopo)\n"
	"                         (default: this machine)\n"
	"  -h, --help             this text\n";

/* The dense compute side: the BLAS the CPU backend runs and the GPUs CUDA sees. */
static void topo_print_compute(void)
{
	char line[256], why[256] = "";
	hog_gpu g[16];
	int n = 0;
	hog_backend_blas_one_thread(); /* what a training run sets, so the line shows what it gets */
	hog_backend_blas_describe(line, sizeof line);
	printf("blas: %s\n", line);
	const char *better = hog_backend_blas_better_core();
	if (better)
		printf("      (slow generic kernels: OPENBLAS_CORETYPE=%s would be faster here)\n",
		       better);
	hog_backend_gpus(g, 16, &n, why, sizeof why);
	if (n == 0)
		printf("gpus: none (%s)\n", why);
	for (int i = 0; i < n; i++)
		printf("gpu %d: %s, %.1f GiB, compute capability %d.%d, %d SMs (--device cuda:%d)\n",
		       g[i].index, g[i].name, g[i].memory / 1073741824.0, g[i].major, g[i].minor,
		       g[i].multiprocessors, g[i].index);
}

int cmd_topo(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "threads", required_argument, NULL, 't' },
		{ "bind", required_argument, NULL, 'b' },
		{ "synthetic", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	long threads = 0;
	enum hog_bind bind = HOG_BIND_CORE;
	const char *synthetic = NULL;
	int c;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":t:b:s:h", opts, NULL)) != -1) {
		switch (c) {
		case 't':
			if (cli_parse_int(optarg, 0, 65536, &threads) != 0) /* (0: every core, as train's) */
				return cli_usage_error("topo", NULL, "--threads: '%s' is not a number "
				                       "from 0 (every core) to 65536", optarg);
			break;
		case 'b':
			if (hog_bind_parse(optarg) < 0)
				return cli_usage_error("topo", NULL, "--bind: '%s' is not core, numa or none",
				                       optarg);
			bind = (enum hog_bind)hog_bind_parse(optarg);
			break;
		case 's':
			if (!*optarg)
				return cli_usage_error("topo", NULL, "--synthetic: empty description");
			synthetic = optarg;
			break;
		case 'h':
			fputs(topo_usage, stdout);
			return 0;
		case ':':
			return cli_usage_error("topo", TOPO_SYNOPSIS, "option '%s' needs a value",
			                       argv[optind - 1]);
		default:
			return cli_unknown_option("topo", TOPO_SYNOPSIS, opts, argv[optind - 1]);
		}
	}
	if (optind < argc)
		return cli_usage_error("topo", TOPO_SYNOPSIS, "unexpected argument '%s'", argv[optind]);

	hog_err err = { 0 };
	hog_topo *t = NULL;
	hog_place *plan = NULL;
	char *text = NULL;
	int rc = hog_topo_open(&t, synthetic, &err);
	if (rc)
		return cli_fail(&err, rc);
	int n = threads > 0 ? (int)threads : hog_topo_cores(t);
	int over = 0, ret = 1;
	/* One line per worker of at most ~80 characters, plus the summary lines. */
	size_t size = 16384 + (size_t)n * 96;
	plan = calloc((size_t)n, sizeof *plan);
	text = malloc(size);
	if (!plan || !text) {
		fprintf(stderr, "hogwild topo: out of memory\n");
		goto out;
	}
	if ((rc = hog_topo_plan(t, n, bind, plan, &over, &err)) != 0) {
		ret = cli_fail(&err, rc);
		goto out;
	}
	hog_topo_describe(t, text, size);
	fputs(text, stdout);
	fputc('\n', stdout);
	hog_topo_plan_describe(t, plan, n, bind, text, size);
	fputs(text, stdout);
	/* replica mode's node replicas for this plan (what train --mode replica does) */
	hog_node_plan np;
	if (bind == HOG_BIND_NONE && hog_topo_is_real(t)) {
		printf("replica mode: workers not bound, no node replicas\n");
	} else if (hog_topo_node_plan(plan, n, 1, &np, &err) == 0) {
		if (np.nodes > 1)
			printf("replica mode: %d node replicas, one per NUMA node with workers\n", np.nodes);
		else
			printf("replica mode: one NUMA node, no node replicas\n");
		for (int r = 0; np.nodes > 1 && r < np.nodes; r++)
			printf("  node replica %d on NUMA node %d: %d worker%s, allocated and synced by worker %d\n", r,
			       np.numa[r], np.members[r], np.members[r] == 1 ? "" : "s", np.owner[r]);
		hog_topo_node_plan_free(&np);
	}
	fputc('\n', stdout);
	if (strcmp(hog_topo_backend(), "none"))
		printf("built with %s%s\n", hog_topo_backend(), hog_topo_is_real(t) ?
		       ": workers are pinned and memory is placed as planned" : "");
	else
		printf("built without hwloc (HWLOC=0): workers are not pinned, memory is placed "
		       "by first touch\n");
	topo_print_compute();
	ret = 0;
out:
	free(text);
	free(plan);
	hog_topo_close(t);
	return ret;
}
