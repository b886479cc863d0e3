/* A rank's watchman: turns the death of a rank's training process into a
 * clear message and exit status 1 for the whole MPI job.
 *
 * When one process of an MPI job is killed (the kernel's OOM killer, kill -9,
 * a crash), mpirun ends the job with the dead process's own status: 137 for
 * SIGKILL, 139 for SIGSEGV, and its own words, which do not say what happened
 * to the training or its checkpoint. A process cannot report its own SIGKILL.
 * So, under mpirun, `hogwild train` and `compare` start as a small parent that
 * runs the real work in a child (fork, then exec of this same program with
 * HOG_SUPERVISED=1 in its environment: a fresh process with no inherited
 * threads, which calls MPI_Init itself; Open MPI 4.1 and MPICH accept it, as
 * the rank's environment names the rank). The parent forwards the signals
 * mpirun and users send (INT, TERM, HUP, USR1, USR2), waits, and:
 *  - child exited: exits with the same status (0, 1, 2 as always);
 *  - child killed by a signal: says which rank, which signal, and that the
 *    checkpoint on disk is the last one written whole (checkpoints are written
 *    to a temporary file and renamed, src/sys/file.c), then exits 1, which
 *    mpirun takes as a failed rank and ends the job with status 1.
 * The child asks the kernel to kill it if the parent dies (PR_SET_PDEATHSIG),
 * so killing the parent never leaves a training process running alone; that
 * case ends as mpirun reports it (137 for SIGKILL).
 */
#include "cli/cli.h"
#include "hogwild.h"
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile pid_t child;
static volatile sig_atomic_t forwarded; /* the last signal passed on to the child */

static void forward(int sig)
{
	forwarded = sig;
	if (child > 0)
		kill(child, sig);
}

/* The value of --checkpoint (or --resume, which checkpoints in place) on the
 * command line, for the message; NULL when none was given there. */
static const char *checkpoint_arg(int argc, char **argv)
{
	const char *path = NULL;
	for (int i = 1; i < argc; i++) {
		static const char *const names[] = { "--checkpoint", "--resume" };
		for (int k = 0; k < 2; k++) {
			size_t n = strlen(names[k]);
			if (strncmp(argv[i], names[k], n))
				continue;
			if (argv[i][n] == '=')
				path = argv[i] + n + 1;
			else if (!argv[i][n] && i + 1 < argc)
				path = argv[i + 1];
			if (k == 0 && path)
				return path; /* --checkpoint wins over --resume */
		}
	}
	return path;
}

int cli_supervise_rank(int argc, char **argv)
{
	if (!hog_mpi_built() || !hog_mpi_launched() || getenv("HOG_SUPERVISED") || argc < 2 ||
	    (strcmp(argv[1], "train") && strcmp(argv[1], "compare")))
		return 0;
	const char *rank = getenv("OMPI_COMM_WORLD_RANK");
	if (!rank)
		rank = getenv("PMI_RANK");
	if (!rank)
		rank = getenv("PMIX_RANK");
	if (setenv("HOG_SUPERVISED", "1", 1))
		return 0; /* no room in the environment: run unsupervised */
	fflush(NULL);
	pid_t parent = getpid(), pid = fork();
	if (pid < 0)
		return 0; /* run unsupervised rather than not at all */
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent) /* the parent died before prctl took hold */
			_exit(1);
		execv("/proc/self/exe", argv);
		fprintf(stderr, "hogwild: rank %s: cannot start the training process: %s\n", rank ? rank : "?",
		        strerror(errno));
		_exit(1);
	}
	child = pid;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = forward;
	sigemptyset(&sa.sa_mask);
	const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGUSR2 };
	for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
		sigaction(sigs[i], &sa, NULL);
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			exit(1);
	if (WIFEXITED(st))
		exit(WEXITSTATUS(st));
	const char *ck = checkpoint_arg(argc, argv);
	int sig = WTERMSIG(st);
	fprintf(stderr, "hogwild: rank %s: the training process (pid %ld) %s signal %d (%s)%s; the job stops.%s%s%s\n",
	        rank ? rank : "?", (long)pid, sig == forwarded ? "ended on" : "was killed by", sig, strsignal(sig),
	        sig == forwarded ? ", sent to this rank (mpirun sends it to every rank when one fails)" : "",
	        ck ? " The last checkpoint written, " : "", ck ? ck : "",
	        ck ? ", is intact (checkpoints are written whole, then renamed): resume it with the same mpirun -np "
	             "and --resume."
	           : "");
	exit(1);
}
