/* Not built yet. */
#include "cli/cli.h"
int cmd_data(int argc, char **argv) { (void)argc; (void)argv; return cli_usage_error("data", NULL, "not built yet"); }
