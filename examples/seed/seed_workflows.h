/* seed_workflows.h — the five seed workflows (trace, print, rewrite, check
 * numerically), shared by examples/ (one program each, run by CTest) and
 * the `nnfx demo` command. Internal: not part of the public API.
 *
 * Each workflow prints what it does to out (graphs before and after as
 * gm.code, every check with its result) and returns the number of failed
 * checks (0: all passed). They never crash on errors: a failed step is a
 * failed check with its message. */
#ifndef NNFX_SEED_WORKFLOWS_H
#define NNFX_SEED_WORKFLOWS_H

#include <stdbool.h>
#include <stdio.h>

/* Whether graphs are also printed in FX's text form (default: gm.code only). */
void trace_workflows_show_text(bool on);

/* SimpleNet: trace; relu -> leaky_relu(0.1) by a node loop and by a
 * Transformer; each checked against eager runs. */
int trace_workflow_simplenet(FILE *out);
/* linear-relu-linear-sigmoid: sigmoid -> clip(sigmoid's input, 0, 1),
 * checked against an eager run with clip; shows that the seed's snippet
 * cannot make a self-loop here. */
int trace_workflow_sigmoid_to_clip(FILE *out);
/* SimpleNet: remove every batch_normalization (users take its input),
 * checked against an eager SimpleNet without BN. */
int trace_workflow_remove_bn(FILE *out);
/* A forward branching on item(sum(x)): runs eagerly, and tracing it fails
 * with FX's control-flow error naming the node and the C line. */
int trace_workflow_control_flow(FILE *out);
/* SimpleNet without its pooling layer: the 14,400-features-into-Linear(16)
 * shape error is found at trace time, naming node, module and line. */
int trace_workflow_shape_error(FILE *out);

#endif
