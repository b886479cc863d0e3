/* Commands not built yet. */
#include "cli/cli.h"
int cmd_train(int argc, char **argv) { (void)argc; (void)argv; return cli_usage_error("train", NULL, "not built yet"); }
int cmd_eval(int argc, char **argv) { (void)argc; (void)argv; return cli_usage_error("eval", NULL, "not built yet"); }
int cmd_predict(int argc, char **argv) { (void)argc; (void)argv; return cli_usage_error("predict", NULL, "not built yet"); }
int cmd_compare(int argc, char **argv) { (void)argc; (void)argv; return cli_usage_error("compare", NULL, "not built yet"); }
int cmd_topo(int argc, char **argv) { (void)argc; (void)argv; return cli_usage_error("topo", NULL, "not built yet"); }
int cmd_demo(int argc, char **argv) { (void)argc; (void)argv; return cli_usage_error("demo", NULL, "not built yet"); }
int cmd_data(int argc, char **argv) { (void)argc; (void)argv; return cli_usage_error("data", NULL, "not built yet"); }
