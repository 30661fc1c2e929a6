/* node_hint.c — what to say when an option names a node the graph does not
 * have. nnfx names each node after the value it computes (an ONNX node's
 * first output, made an identifier: '/conv2/Conv_output_0' becomes
 * '_conv2_Conv_output_0'), not after the ONNX node's own `name` field, so a
 * name copied from Netron or onnx.helper is often the ONNX node name. The
 * hint says which nnfx node that is, or lists the closest names. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/cli.h"
#include "io/onnx_info.h"

/* Case-insensitive Levenshtein distance of a and b (two rows; names longer
 * than 256 bytes count as far). */
static int edit_distance(const char *a, const char *b) {
    size_t la = strlen(a), lb = strlen(b);
    if (la > 256 || lb > 256) return 1 << 20;
    int prev[257], cur[257];
    for (size_t j = 0; j <= lb; j++)
        prev[j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = (int)i;
        for (size_t j = 1; j <= lb; j++) {
            int c = prev[j - 1] + (tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]));
            if (prev[j] + 1 < c) c = prev[j] + 1;
            if (cur[j - 1] + 1 < c) c = cur[j - 1] + 1;
            cur[j] = c;
        }
        memcpy(prev, cur, (lb + 1) * sizeof prev[0]);
    }
    return prev[lb];
}

/* True when hay contains needle, ignoring case. */
static bool contains_nocase(const char *hay, const char *needle) {
    size_t n = strlen(needle);
    if (!n) return false;
    for (; *hay; hay++)
        if (strncasecmp(hay, needle, n) == 0) return true;
    return false;
}

void cli_node_name_hint(const nnfx_graph *g, const char *name, bool (*want)(const nnfx_node *n), char *buf,
                        size_t size) {
    if (!size) return;
    buf[0] = '\0';
    const onnx_model_info *info = onnx_info_of(g);
    /* the ONNX node name, or the ONNX output name before it was made an identifier */
    for (int i = 0; info && i < info->nnode_names; i++)
        if (strcmp(info->node_names[i].value, name) == 0) {
            snprintf(buf, size,
                     "'%s' is the ONNX node's own name; nnfx names each node after the value it computes, here "
                     "'%s' (write that)",
                     name, info->node_names[i].key);
            return;
        }
    for (int i = 0; info && i < info->nnames; i++)
        if (strcmp(info->names[i].value, name) == 0) {
            snprintf(buf, size, "the ONNX value '%s' is the node nnfx names '%s' (write that)", name,
                     info->names[i].key);
            return;
        }
    /* the three closest node names (of the nodes want accepts) */
    const nnfx_node *best[3] = {NULL, NULL, NULL};
    int bestd[3] = {0, 0, 0};
    for (const nnfx_node *n = nnfx_graph_first(g); n; n = nnfx_node_next(n)) {
        if (want && !want(n)) continue;
        /* names containing it first ('conv2' -> '_conv2_Conv_output_0'), then by edit distance */
        const char *nn = nnfx_node_name(n);
        int d = contains_nocase(nn, name) ? (int)(strlen(nn) - strlen(name)) : (1 << 21) + edit_distance(name, nn);
        for (int k = 0; k < 3; k++)
            if (!best[k] || d < bestd[k]) {
                for (int m = 2; m > k; m--) {
                    best[m] = best[m - 1];
                    bestd[m] = bestd[m - 1];
                }
                best[k] = n;
                bestd[k] = d;
                break;
            }
    }
    size_t at = (size_t)snprintf(buf, size,
                                 "nnfx names each node after the value it computes (its ONNX output), not "
                                 "the ONNX node's name; `nnfx inspect MODEL` lists them");
    for (int k = 0; k < 3 && best[k] && at < size; k++)
        at += (size_t)snprintf(buf + at, size - at, "%s'%s'", k ? ", " : "; the closest: ", nnfx_node_name(best[k]));
}
