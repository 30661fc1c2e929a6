/* remove_bn.c — remove every batch_normalization from a traced SimpleNet (its
 * users take its input) and check against an eager SimpleNet without BN.
 *
 * The workflow itself is trace_workflow_remove_bn() in examples/seed/seed_workflows.c
 * (shared with `nnfx demo`); the model's forward function is in
 * examples/seed/seed_models.c. Prints every step and check; exits 0 only when
 * every check passes. */
#include <stdio.h>

#include "seed/seed_workflows.h"

int main(void) {
    int failed = trace_workflow_remove_bn(stdout);
    printf("%s\n", failed ? "SOME CHECKS FAILED" : "all checks passed");
    return failed ? 1 : 0;
}
