/* rewrite_int.h — private interfaces of the rewrite layer: compiled
 * patterns, the match search and match lists. */
#ifndef NNFX_REWRITE_INT_H
#define NNFX_REWRITE_INT_H

#include "nnfx.h"

/* A pattern node with its arguments resolved to pattern indices. */
typedef struct rw_pnode {
    const nnfx_node *n;
    int ph;   /* placeholder index (placeholder order), or -1           */
    int *arg; /* per argument: index of the pattern node it names, or -1 */
    bool returned;
    bool live; /* reachable from a returned value                         */
} rw_pnode;

/* A pattern graph prepared for matching. */
typedef struct rw_pattern {
    const nnfx_graph *g;
    int np;
    rw_pnode *p;
    int nph;
    int *ph_node; /* placeholder k -> pattern node index */
    int nret;
    int *ret;  /* returned values -> pattern node index (call nodes) */
    int nlive; /* live non-placeholder nodes */
} rw_pattern;

/* Prepares pattern pg; errors for a pattern without output, returning
 * nothing, or returning a wildcard or literal. */
/* A replacement node's attribute of this name (kind string) names a pattern
 * node whose matched node's attributes the replacement takes (the rule
 * language's **NODE); explicit attributes override them. */
#define RW_COPY_ATTRS "**"

nnfx_status rw_pattern_compile(const nnfx_graph *pg, rw_pattern *cp, nnfx_error *err);
void rw_pattern_free(rw_pattern *cp);

struct nnfx_match_list {
    int n, cap;
    nnfx_match *m;
    int nc, capc;
    nnfx_candidate *c;
    char warning[1100];
};

/* An empty list (NULL on OOM). */
nnfx_match_list *rw_list_new(void);
/* Frees the owned parts of one match. */
void rw_match_clear(nnfx_match *m);
/* Grows a malloc'd array to hold at least need elements of size sz. */
bool rw_reserve(void **arr, int *cap, int need, size_t sz);

/* Finds matches of cp in g into list (see nnfx_find_matches). */
nnfx_status rw_find(const nnfx_graph *g, const rw_pattern *cp, const nnfx_rewrite_options *opts, nnfx_match_list *list,
                    nnfx_error *err);

#endif
