/* fuzz_rewrite.c — libFuzzer target for the rule language: the input is a
 * rule; it is parsed, applied to a small graph (conv, relu, add, sigmoid,
 * split), and a result that is accepted must lint, type-check and run. */
#include "fuzz_common.h"

static const char *base_graph =
    "graph():\n"
    "    # param w : float32[4, 3, 3, 3]\n"
    "    # param b : float32[4]\n"
    "    %x : [num_users=2] = placeholder[target=x]  # float32[1, 3, 6, 6]\n"
    "    %w : [num_users=1] = get_attr[target=w]\n"
    "    %b : [num_users=1] = get_attr[target=b]\n"
    "    %conv : [num_users=1] = call_function[target=conv](args = (%x, %w, %b), kwargs = {pads: [1, 1, 1, 1]})\n"
    "    %relu : [num_users=2] = call_function[target=relu](args = (%conv,), kwargs = {})\n"
    "    %sig : [num_users=1] = call_function[target=sigmoid](args = (%relu,), kwargs = {})\n"
    "    %mul : [num_users=1] = call_function[target=mul](args = (%relu, %sig), kwargs = {})\n"
    "    %split : [num_users=2] = call_function[target=split](args = (%mul,), kwargs = {axis: 1, num_outputs: 2})\n"
    "    %s0 : [num_users=1] = call_function[target=getitem](args = (%split, 0), kwargs = {})\n"
    "    %s1 : [num_users=1] = call_function[target=getitem](args = (%split, 1), kwargs = {})\n"
    "    %add : [num_users=1] = call_function[target=add](args = (%s0, %s1), kwargs = {})\n"
    "    %mean : [num_users=1] = call_function[target=reduce_mean](args = (%x,), kwargs = {keepdims: 0})\n"
    "    return (add, mean)\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_limits();
    if (size > 4096) return 0;
    char *rule = malloc(size + 1);
    if (!rule) return 0;
    memcpy(rule, data, size);
    rule[size] = '\0';
    nnfx_error err = {0};
    static nnfx_graph *base; /* parsed once, copied per input */
    if (!base && !(base = nnfx_graph_parse(base_graph, &err))) abort();
    nnfx_graph *g = nnfx_graph_copy(base, NULL, &err);
    if (!g) abort();
    nnfx_graph *pat = NULL, *rep = NULL;
    int n = 0;
    if (nnfx_pattern_parse(rule, &pat, &rep, &err)) {
        fz_check_error(&err);
    } else {
        nnfx_match_list *l = nnfx_find_matches(g, pat, NULL, &err);
        nnfx_match_list_free(l);
        nnfx_graph_free(pat);
        nnfx_graph_free(rep);
        n = nnfx_rewrite_text(g, rule, &err);
        if (n < 0) {
            fz_check_error(&err);
        } else if (n > 0) {
            /* accepted: must be a valid graph */
            if (nnfx_graph_check_types(g, &err)) abort();
        }
    }
    free(rule);
    if (n > 0)
        fz_run_graph(g); /* a rewritten graph must also plan and run */
    else
        nnfx_graph_free(g);
    return 0;
}
