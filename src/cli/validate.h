/* validate.h — running two models on the same inputs and comparing them:
 * output tolerance checks, the first diverging node, top-1 accuracy.
 * Shared by `nnfx optimize --validate` and `nnfx compare`. */
#ifndef NNFX_CLI_VALIDATE_H
#define NNFX_CLI_VALIDATE_H

#include "cli/cli.h"

/* Where the inputs come from. */
typedef struct cli_samples {
    int nfiles;
    char **files; /* --input NAME=FILE specs (one sample, maybe a batch) */
    long random;  /* > 0: that many seeded random samples                */
} cli_samples;

typedef struct cli_compare_result {
    int samples;         /* samples run                                    */
    int outputs;         /* outputs compared per sample                    */
    double max_abs;      /* largest |a - b| over all outputs and samples   */
    double max_rel;      /* largest |a - b| / |a| (|a| > 0)                */
    bool passed;         /* every element within atol + rtol * |a|         */
    char detail[512];    /* what failed: output, sample, element, values   */
    char diverging[256]; /* first corresponding node whose value differs   */
    double ms;           /* time spent                                     */
    long rows;           /* samples counted as rows: a batch of N is N     */
} cli_compare_result;

/* Runs a and b (borrowed; copies are compiled) on the samples and compares
 * their outputs with |a - b| <= atol + rtol * |a|. On failure looks for the
 * first node of b whose value differs from the node of the same name in a
 * (with the same op and the same argument names). Errors are printed
 * (naming file_a/file_b) and returned as exit codes; a failed check is
 * not an error (see r->passed). */
int cli_compare_graphs(const char *cmd, const nnfx_graph *a, const char *file_a, const nnfx_graph *b,
                       const char *file_b, const cli_samples *s, double atol, double rtol, bool quiet,
                       cli_compare_result *r);

typedef struct cli_accuracy {
    long samples;
    double acc_a, acc_b; /* top-1 accuracy in percent */
    double drop;         /* acc_a - acc_b, percentage points */
} cli_accuracy;

/* Top-1 accuracy of a and b on the inputs of s (files only) against labels
 * (an .npy of class indices, one per row of the first output). */
int cli_accuracy_graphs(const char *cmd, const nnfx_graph *a, const nnfx_graph *b, const cli_samples *s,
                        const char *labels, cli_accuracy *acc);
/* Appends the members (no braces) "samples", "top1_before", "top1_after",
 * "drop_points", "max_drop_points" (null when max_drop < 0, no gate) and
 * "passed" (the drop is within max_drop). */
void cli_accuracy_json(sbuf *b, const cli_accuracy *acc, double max_drop);

#endif
