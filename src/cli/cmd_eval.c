/* Not built yet. */
#include "cli/cli.h"
int cmd_eval(int argc, char **argv) { (void)argc; (void)argv; return cli_usage_error("eval", NULL, "not built yet"); }
