/* control_flow.c — a forward function that branches on item(sum(x)) runs
 * eagerly, and tracing it fails with FX's control-flow error naming the
 * node and the C source line.
 *
 * The workflow itself is trace_workflow_control_flow() in examples/seed/seed_workflows.c
 * (shared with `nnfx demo`); the model's forward function is in
 * examples/seed/seed_models.c. Prints every step and check; exits 0 only when
 * every check passes. */
#include <stdio.h>

#include "seed/seed_workflows.h"

int main(void) {
    int failed = trace_workflow_control_flow(stdout);
    printf("%s\n", failed ? "SOME CHECKS FAILED" : "all checks passed");
    return failed ? 1 : 0;
}
