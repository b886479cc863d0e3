/* Not built yet. */
#include "cli/cli.h"
int cmd_train(int argc, char **argv) { (void)argc; (void)argv; return cli_usage_error("train", NULL, "not built yet"); }
