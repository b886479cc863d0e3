/* Not built yet. */
#include "cli/cli.h"
int cmd_predict(int argc, char **argv) { (void)argc; (void)argv; return cli_usage_error("predict", NULL, "not built yet"); }
