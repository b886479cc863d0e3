/* What an unknown option may have meant: shared by the commands with the one
 * table of options (opts.c, which defines it) and those with their own. */
#ifndef HOG_CLI_SUGGEST_H
#define HOG_CLI_SUGGEST_H
#include <getopt.h>
#include <stddef.h>

/* After getopt's '?' for the word @p arg of a command whose getopt table is
 * @p lo (ended by a zero entry): into @p buf, "" or
 * a hint that follows "unknown option '--x'": the options it abbreviates where
 * it is ambiguous, else the option meant by a name other trainers use
 * (--hidden: --layers) or the one a letter or two away (--epoch: --epochs). */
void cli_opt_suggest(const struct option *lo, const char *arg, char *buf, size_t size);

#endif
