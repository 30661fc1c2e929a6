/* shape_error.c — SimpleNet whose forward skips the pooling layer feeds
 * 14,400 features into Linear(16, 10): nnfx reports it at trace time,
 * naming the node, the module and the C line.
 *
 * The workflow itself is trace_workflow_shape_error() in examples/seed/seed_workflows.c
 * (shared with `nnfx demo`); the model's forward function is in
 * examples/seed/seed_models.c. Prints every step and check; exits 0 only when
 * every check passes. */
#include <stdio.h>

#include "seed/seed_workflows.h"

int main(void) {
    int failed = trace_workflow_shape_error(stdout);
    printf("%s\n", failed ? "SOME CHECKS FAILED" : "all checks passed");
    return failed ? 1 : 0;
}
