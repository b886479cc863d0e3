/* Not built yet. */
#include "cli/cli.h"
int cmd_demo(int argc, char **argv) { (void)argc; (void)argv; return cli_usage_error("demo", NULL, "not built yet"); }
