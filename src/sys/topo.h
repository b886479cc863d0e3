/* Topology and placement: what the machine looks like (packages, NUMA nodes,
 * cores, PUs, caches), where each worker thread should run, how to pin it there,
 * and where to put memory. One interface, two implementations chosen by the
 * Makefile: topo_hwloc.c (HWLOC=1) and topo_stub.c (HWLOC=0, no pinning, one
 * NUMA node); callers never see an #if. hwloc also reads synthetic descriptions
 * and XML files, so a plan for a machine we do not have can be tested here.
 *
 * Placement policy (docs/architecture.md §7), decided in one place, hog_topo_plan():
 *  - compact: worker i goes to the i-th core in topology order, which fills NUMA
 *    node 0's cores, then node 1's ..., so that threads sharing one model span as
 *    few nodes as possible;
 *  - more workers than cores: a second round over the cores uses each core's
 *    second PU (SMT sibling), then the third ...; more workers than PUs wraps
 *    around and the plan says it is oversubscribed;
 *  - memory: each worker's shard on the worker's own node (hog_topo_alloc_local()
 *    from the bound worker thread); the shared model interleaved across the
 *    machine's nodes when the workers span more than one node, on the workers'
 *    node when they all sit on one (hog_topo_model_interleaved() says which);
 *  - replica mode on several nodes: one replica of the model per node with
 *    workers, allocated by the node's first worker (hog_topo_node_plan()).
 *
 * Thread safety: a hog_topo is read-only after hog_topo_open(); every function
 * here may be called from any number of threads at once, except hog_topo_close().
 * The library stays quiet: descriptions are returned as text, errors in hog_err.
 */
#ifndef HOG_SYS_TOPO_H
#define HOG_SYS_TOPO_H
#include "hogwild.h"
#include <stddef.h>

/** A loaded topology (this machine, a synthetic description or an XML file). */
typedef struct hog_topo hog_topo;

/** Where one worker runs. Indexes are hwloc logical indexes (0..n-1 in topology
 * order) except @c pu, the OS index of the PU (what sched_getcpu() returns). */
typedef struct hog_place {
	int worker; /**< worker number, 0..nthreads-1 */
	int core;   /**< logical index of the core */
	int numa;   /**< logical index of the core's NUMA node */
	int pu;     /**< OS index of the PU to run on */
} hog_place;

/** Loads a topology. @p synthetic NULL: this machine (hwloc also honours the
 * HWLOC_XMLFILE and HWLOC_SYNTHETIC environment variables then); a name ending in
 * ".xml": an hwloc XML file (as written by `lstopo file.xml`); anything else: an
 * hwloc synthetic description such as "package:2 core:8 pu:1" or
 * "numa:4 core:4 pu:2". Only this machine can be bound to: with the other two,
 * hog_topo_bind_self() does nothing.
 * @return 0; HOG_ECONFIG (a synthetic description hwloc does not accept);
 *         HOG_EDATA (an XML file hwloc cannot read); ENOENT, EACCES... (the XML
 *         file); HOG_ENOTSUP (a synthetic or XML topology in a build without
 *         hwloc); ENOMEM. */
int hog_topo_open(hog_topo **t, const char *synthetic, hog_err *err);
/** Frees a topology. NULL is fine. */
void hog_topo_close(hog_topo *t);

/** Number of cores (at least 1; a machine that reports PUs but no cores counts
 * each PU as a core). */
int hog_topo_cores(const hog_topo *t);
/** Number of PUs (hardware threads) that the process may use. */
int hog_topo_pus(const hog_topo *t);
/** Number of NUMA nodes (at least 1). */
int hog_topo_numa_nodes(const hog_topo *t);
/** 1 when @p t is the machine we run on (binding and memory placement are real),
 * 0 for a synthetic or XML topology or a build without hwloc. */
int hog_topo_is_real(const hog_topo *t);
/** The size in bytes of the smallest L2 cache the topology names (the cache a
 * worker's hottest state lives in), or 0 when it names none (synthetic ones). */
size_t hog_topo_l2_bytes(const hog_topo *t);
/** What placement is built with: "hwloc 2.9.0", or "none" for HWLOC=0 builds. */
const char *hog_topo_backend(void);

/** Plans where @p nthreads workers run (the policy at the top of this file) and
 * fills @p out[0..nthreads-1]. @p bind does not change the places, only what
 * hog_topo_bind_self() does with them. @p oversubscribed (may be NULL) is set to
 * 1 when there are more workers than PUs, 0 otherwise.
 * @return 0 or HOG_ECONFIG (nthreads < 1, an unknown @p bind). */
int hog_topo_plan(const hog_topo *t, int nthreads, enum hog_bind bind, hog_place *out,
                  int *oversubscribed, hog_err *err);

/** Binds the calling thread for place @p p: HOG_BIND_CORE to the single PU
 * @p p->pu (one of its core's PUs), HOG_BIND_NUMA to the PUs of its NUMA node,
 * HOG_BIND_NONE nothing. A topology that is not this machine: nothing, returns 0.
 * @return 0; HOG_ECONFIG (a place outside the topology, an unknown @p bind);
 *         an errno value when the system refuses (EPERM, EINVAL, ENOSYS, EXDEV:
 *         a container may forbid it; the caller may warn and go on unbound). */
int hog_topo_bind_self(const hog_topo *t, const hog_place *p, enum hog_bind bind, hog_err *err);

/** @p bytes of zeroed, page-aligned memory on the NUMA node the calling thread
 * is bound to (bind the worker first); plain memory placed by first touch when
 * the thread is not bound to a single node or binding memory is not possible.
 * Free with hog_topo_free() and the same @p bytes. NULL when out of memory. */
void *hog_topo_alloc_local(const hog_topo *t, size_t bytes);
/** @p bytes of zeroed, page-aligned memory interleaved page by page over all the
 * NUMA nodes (plain memory on one-node machines or when not possible). Free with
 * hog_topo_free(). NULL when out of memory. */
void *hog_topo_alloc_interleaved(const hog_topo *t, size_t bytes);
/** Frees memory from hog_topo_alloc_local() or hog_topo_alloc_interleaved() of
 * the same topology; @p bytes as allocated. NULL is fine. */
void hog_topo_free(const hog_topo *t, void *p, size_t bytes);

/** Number of distinct NUMA nodes that the @p n places of @p plan use. */
int hog_topo_plan_nodes(const hog_place *plan, int n);
/** 1 when the shared model should be interleaved for this plan (the workers span
 * more than one NUMA node, or are not bound on a machine with several nodes),
 * 0 when it belongs on the one node the workers use (allocate it with
 * hog_topo_alloc_local() from a thread bound there). */
int hog_topo_model_interleaved(const hog_topo *t, const hog_place *plan, int n,
                               enum hog_bind bind);

/** Replica mode on several NUMA nodes (one replica per node, DimmWitted's
 * PerNode): the workers' private replicas flush into a replica of the model on
 * their own node, and each node replica exchanges its changes with the one
 * global model less often. This is the plan of that hierarchy, a pure function
 * of the places hog_topo_plan() made, so it is tested on synthetic machines. */
typedef struct hog_node_plan {
	int nodes;     /**< node replicas: one per NUMA node that has workers (at least 1) */
	int *replica;  /**< [n] the node replica worker i flushes into, 0..nodes-1, numbered
	                    in the order of the nodes' first workers */
	int *slot;     /**< [n] worker i's position among its replica's workers (0: the owner) */
	int *numa;     /**< [nodes] the NUMA node (logical index) each replica sits on */
	int *owner;    /**< [nodes] the worker that allocates the replica (from its bound
	                    thread, so on its node) and syncs it with the global model: the
	                    node's lowest-numbered worker */
	int *members;  /**< [nodes] workers flushing into each replica */
	int *phase;    /**< [nodes] replica r syncs at its owner's flushes f (1, 2, ...)
	                    with (f + phase[r]) % every == 0: the nodes' syncs, which cross
	                    the interconnect, are spread evenly over the interval instead of
	                    falling together (replica 0 first, at f = every) */
} hog_node_plan;

/** Plans the node replicas for the @p n places of @p plan, node syncs every
 * @p every flushes of an owner: fills @p out (free with hog_topo_node_plan_free()).
 * One node: nodes = 1, every worker in replica 0, owner worker 0 (the caller then
 * keeps the flat, one-level replica mode).
 * @return 0; HOG_ECONFIG (n < 1, every < 1, a place with a negative NUMA node);
 *         ENOMEM. */
int hog_topo_node_plan(const hog_place *plan, int n, int every, hog_node_plan *out, hog_err *err);
/** Frees what hog_topo_node_plan() allocated. NULL or a zeroed plan is fine. */
void hog_topo_node_plan_free(hog_node_plan *p);

/** Writes a multi-line summary of the machine into @p buf: where the topology
 * came from, packages, NUMA nodes with their memory and PUs, cores, PUs, L2/L3
 * cache sizes when known. Always NUL-terminated when @p size > 0.
 * @return 0, or ERANGE when @p size was too small (the text is cut). */
int hog_topo_describe(const hog_topo *t, char *buf, size_t size);
/** Writes the plan: a line on the binding mode, one line per worker
 * ("worker 0 -> core 0 (PU 0), NUMA node 0"), a line saying where the model memory
 * goes (interleaved across N NUMA nodes, or node K) and a warning line when the
 * plan is oversubscribed. @return 0, or ERANGE when @p size was too small. */
int hog_topo_plan_describe(const hog_topo *t, const hog_place *plan, int n, enum hog_bind bind,
                           char *buf, size_t size);

#endif
