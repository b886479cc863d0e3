/* Not built yet. */
#include "cli/cli.h"
int cmd_topo(int argc, char **argv) { (void)argc; (void)argv; return cli_usage_error("topo", NULL, "not built yet"); }
