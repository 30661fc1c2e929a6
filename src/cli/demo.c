/* demo.c — `nnfx demo`: the seed articles' FX workflows on models written
 * in C (examples/seed/seed_workflows.c), each step printed and checked. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "seed_workflows.h"

typedef struct demo_workflow {
    const char *name;
    int (*run)(FILE *out);
    const char *what;
} demo_workflow;

static const demo_workflow k_workflows[] = {
    {"simplenet", trace_workflow_simplenet, "trace SimpleNet; relu -> leaky_relu by a node loop and a Transformer"},
    {"sigmoid_to_clip", trace_workflow_sigmoid_to_clip, "sigmoid -> clip(x, 0, 1) of the sigmoid's input"},
    {"remove_bn", trace_workflow_remove_bn, "remove every batch_normalization"},
    {"control_flow", trace_workflow_control_flow, "data-dependent control flow is a trace error"},
    {"shape_error", trace_workflow_shape_error, "a shape bug found at trace time"},
};
#define NUM_WORKFLOWS (sizeof k_workflows / sizeof k_workflows[0])

static void usage(FILE *f) {
    fprintf(f, "usage: nnfx demo [--no-text] [workflow ...]\n\nworkflows (default: all):\n");
    for (size_t i = 0; i < NUM_WORKFLOWS; i++)
        fprintf(f, "  %-16s %s\n", k_workflows[i].name, k_workflows[i].what);
    fprintf(f, "\n  --no-text  print graphs as gm.code only (not also in FX's text form)\n");
}

int cli_demo(int argc, char **argv) {
    bool want[NUM_WORKFLOWS] = {false};
    bool any = false, text = true;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        }
        if (strcmp(argv[i], "--no-text") == 0) {
            text = false;
            continue;
        }
        size_t k = 0;
        while (k < NUM_WORKFLOWS && strcmp(argv[i], k_workflows[k].name) != 0)
            k++;
        if (k == NUM_WORKFLOWS) {
            fprintf(stderr, "nnfx demo: unknown workflow '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        }
        want[k] = any = true;
    }
    trace_workflows_show_text(text);
    int failed_workflows = 0, ran = 0;
    char summary[NUM_WORKFLOWS][96];
    for (size_t k = 0; k < NUM_WORKFLOWS; k++) {
        summary[k][0] = 0;
        if (any && !want[k]) continue;
        int failures = k_workflows[k].run(stdout);
        snprintf(summary[k], sizeof summary[k], "%-16s %s", k_workflows[k].name,
                 failures ? "FAILED" : "all checks passed");
        failed_workflows += failures != 0;
        ran++;
        printf("\n");
        fflush(stdout);
    }
    printf("== summary ==\n");
    for (size_t k = 0; k < NUM_WORKFLOWS; k++)
        if (summary[k][0]) printf("  %s\n", summary[k]);
    printf("%d of %d workflows passed\n", ran - failed_workflows, ran);
    return failed_workflows ? 1 : 0;
}
