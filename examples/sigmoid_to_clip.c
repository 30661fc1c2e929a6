/* sigmoid_to_clip.c — replace the sigmoid of a linear-relu-linear-sigmoid MLP by
 * clip(x, 0, 1) of the sigmoid's input (the seed article's snippet made a
 * self-loop in torch.fx) and check it against an eager run using clip.
 *
 * The workflow itself is trace_workflow_sigmoid_to_clip() in examples/seed/seed_workflows.c
 * (shared with `nnfx demo`); the model's forward function is in
 * examples/seed/seed_models.c. Prints every step and check; exits 0 only when
 * every check passes. */
#include <stdio.h>

#include "seed/seed_workflows.h"

int main(void) {
    int failed = trace_workflow_sigmoid_to_clip(stdout);
    printf("%s\n", failed ? "SOME CHECKS FAILED" : "all checks passed");
    return failed ? 1 : 0;
}
