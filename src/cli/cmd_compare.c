/* Not built yet. */
#include "cli/cli.h"
int cmd_compare(int argc, char **argv) { (void)argc; (void)argv; return cli_usage_error("compare", NULL, "not built yet"); }
