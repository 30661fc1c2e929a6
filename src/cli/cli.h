/* cli.h — subcommands of the nnfx command (src/cli/<command>.c). Each takes
 * argc/argv starting at the command's own name and returns the exit code. */
#ifndef NNFX_CLI_H
#define NNFX_CLI_H

/* nnfx demo [--no-text] [workflow ...]: runs the seed workflows (simplenet,
 * sigmoid_to_clip, remove_bn, control_flow, shape_error), printing graphs
 * before and after and every check; exit 0 when all checks pass, 1 when
 * one fails, 2 on a usage error. */
int cli_demo(int argc, char **argv);

#endif
