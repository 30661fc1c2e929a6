/* simplenet.c — trace SimpleNet, print it, replace every relu by leaky_relu(0.1)
 * with a node loop and with a Transformer, and check each result against
 * eager runs of the C forward function.
 *
 * The workflow itself is trace_workflow_simplenet() in examples/seed/seed_workflows.c
 * (shared with `nnfx demo`); the model's forward function is in
 * examples/seed/seed_models.c. Prints every step and check; exits 0 only when
 * every check passes. */
#include <stdio.h>

#include "seed/seed_workflows.h"

int main(void) {
    int failed = trace_workflow_simplenet(stdout);
    printf("%s\n", failed ? "SOME CHECKS FAILED" : "all checks passed");
    return failed ? 1 : 0;
}
