/* module.c — the module tree: type name, forward function, named children
 * and named parameters (PyTorch's nn.Module, without the Python). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/trace_int.h"

static char *dup_str(const char *s) {
    if (!s) return NULL;
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

nnfx_module *trace_module_alloc(const char *type_name, trace_layer layer) {
    nnfx_module *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    m->type_name = dup_str(type_name && *type_name ? type_name : "Module");
    if (!m->type_name) {
        free(m);
        return NULL;
    }
    m->layer = layer;
    m->num_inputs = layer == TL_USER ? -1 : 1;
    return m;
}

void trace_module_set_bad(nnfx_module *m, const char *fmt, ...) {
    if (!m || m->bad) return;
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    m->bad = dup_str(buf);
}

nnfx_module *nnfx_module_new(const char *type_name, nnfx_forward_fn forward, void *user) {
    nnfx_module *m = trace_module_alloc(type_name, TL_USER);
    if (!m) return NULL;
    m->forward = forward;
    m->user = user;
    if (!forward) trace_module_set_bad(m, "module %s has no forward function", m->type_name);
    return m;
}

void nnfx_module_free(nnfx_module *m) {
    if (!m) return;
    for (int i = 0; i < m->nchildren; i++)
        nnfx_module_free(m->children[i]);
    free(m->children);
    ir_strmap_free(&m->child_index);
    for (int i = 0; i < m->nparams; i++) {
        free(m->param_names[i]);
        nnfx_tensor_release(m->params[i]);
    }
    free(m->param_names);
    free(m->params);
    if (m->input_names)
        for (int i = 0; i < m->num_inputs; i++)
            free(m->input_names[i]);
    free(m->input_names);
    free(m->type_name);
    if (m->name != m->name_inline) free(m->name);
    free(m->bad);
    free(m);
}

void *nnfx_module_user(nnfx_module *m) { return m ? m->user : NULL; }

const char *nnfx_module_type(const nnfx_module *m) { return m ? m->type_name : ""; }

/* A valid child or parameter name: non-empty, no '.', not too long. */
static bool good_name(const char *name) { return name && *name && !strchr(name, '.') && strlen(name) < 128; }

/* Modules with up to CHILD_SCAN children are searched by a scan of their
 * children (most have a handful: the scan touches the child structs a
 * trace reads anyway, where a map costs a hash and a probe of its own
 * slot array); child_index holds the children of larger ones. */
#define CHILD_SCAN 8

/* Enters child (already named, not yet in parent->children) in parent's
 * index when parent will have more than CHILD_SCAN children, indexing the
 * earlier ones first; false on OOM (the index is then left as it was, or
 * empty when it was being built). */
static bool index_child(nnfx_module *parent, nnfx_module *child) {
    if (parent->nchildren + 1 <= CHILD_SCAN) return true;
    if (parent->child_index.count == 0)
        for (int i = 0; i < parent->nchildren; i++)
            if (!ir_strmap_put(&parent->child_index, parent->children[i]->name, parent->children[i])) {
                ir_strmap_free(&parent->child_index);
                return false;
            }
    return ir_strmap_put(&parent->child_index, child->name, child);
}

nnfx_module *nnfx_module_add(nnfx_module *parent, const char *name, nnfx_module *child) {
    if (!child) return NULL;
    if (child->parent) return NULL; /* owned by another parent: not ours to free */
    if (!parent || !good_name(name) || nnfx_module_child(parent, name) || child == parent) goto fail;
    for (const nnfx_module *a = parent; a; a = a->parent)
        if (a == child) goto fail; /* would make a cycle */
    if (parent->nchildren == parent->cap_children) {
        int nc = parent->cap_children ? parent->cap_children * 2 : 4;
        nnfx_module **nk = realloc(parent->children, sizeof *nk * (size_t)nc);
        if (!nk) goto fail;
        parent->children = nk;
        parent->cap_children = nc;
    }
    size_t nl = strlen(name);
    if (nl < sizeof child->name_inline) {
        memcpy(child->name_inline, name, nl + 1);
        child->name = child->name_inline;
    } else if (!(child->name = dup_str(name))) {
        goto fail;
    }
    if (!index_child(parent, child)) {
        if (child->name != child->name_inline) free(child->name);
        child->name = NULL;
        goto fail;
    }
    child->parent = parent;
    parent->children[parent->nchildren++] = child;
    return child;
fail:
    /* ownership was passed to us: free the child rather than leak it */
    if (child != parent && !child->parent) nnfx_module_free(child);
    return NULL;
}

nnfx_module *nnfx_module_child(nnfx_module *m, const char *name) {
    if (!m || !name) return NULL;
    if (m->nchildren > CHILD_SCAN) return ir_strmap_get(&m->child_index, name);
    for (int i = 0; i < m->nchildren; i++) {
        const char *cn = m->children[i]->name;
        if (cn[0] == name[0] && strcmp(cn, name) == 0) return m->children[i];
    }
    return NULL;
}

int nnfx_module_num_children(const nnfx_module *m) { return m ? m->nchildren : 0; }

nnfx_module *nnfx_module_child_at(nnfx_module *m, int i) {
    if (!m || i < 0 || i >= m->nchildren) return NULL;
    return m->children[i];
}

nnfx_status nnfx_module_add_param(nnfx_module *m, const char *name, nnfx_tensor *t, nnfx_error *err) {
    if (!m || !t) return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "module_add_param: NULL module or tensor");
    if (!good_name(name))
        return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "module_add_param: bad parameter name '%s' (empty or has '.')",
                              name ? name : "(null)");
    for (int i = 0; i < m->nparams; i++)
        if (strcmp(m->param_names[i], name) == 0) {
            nnfx_tensor_retain(t);
            nnfx_tensor_release(m->params[i]);
            m->params[i] = t;
            return NNFX_OK;
        }
    if (m->nparams == m->cap_params) {
        int nc = m->cap_params ? m->cap_params * 2 : 4;
        char **nn = realloc(m->param_names, sizeof *nn * (size_t)nc);
        if (!nn) return nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
        m->param_names = nn;
        nnfx_tensor **nt = realloc(m->params, sizeof *nt * (size_t)nc);
        if (!nt) return nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
        m->params = nt;
        m->cap_params = nc;
    }
    char *nm = dup_str(name);
    if (!nm) return nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
    m->param_names[m->nparams] = nm;
    m->params[m->nparams] = nnfx_tensor_retain(t);
    m->nparams++;
    return NNFX_OK;
}

int trace_module_param_slot(const nnfx_module *m, const char *name) {
    for (int i = 0; m && name && i < m->nparams; i++) /* the first byte first: most names differ there */
        if (m->param_names[i][0] == name[0] && strcmp(m->param_names[i], name) == 0) return i;
    return -1;
}

nnfx_tensor *trace_module_own_param(const nnfx_module *m, const char *name) {
    int i = trace_module_param_slot(m, name);
    return i >= 0 ? m->params[i] : NULL;
}

nnfx_tensor *nnfx_module_param(nnfx_module *m, const char *path) {
    if (!m || !path) return NULL;
    const char *dot;
    while ((dot = strchr(path, '.')) != NULL) {
        char part[128];
        size_t len = (size_t)(dot - path);
        if (len == 0 || len >= sizeof part) return NULL;
        memcpy(part, path, len);
        part[len] = 0;
        m = nnfx_module_child(m, part);
        if (!m) return NULL;
        path = dot + 1;
    }
    return trace_module_own_param(m, path);
}

nnfx_status nnfx_module_set_inputs(nnfx_module *m, int nin, const char *const *names, nnfx_error *err) {
    if (!m) return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "module_set_inputs: NULL module");
    if (nin < 0 || nin > 1024)
        return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "module_set_inputs: bad input count %d", nin);
    if (m->layer != TL_USER && nin != 1)
        return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "module_set_inputs: %s takes exactly one input", m->type_name);
    char **nn = NULL;
    if (names && nin > 0) {
        nn = calloc((size_t)nin, sizeof *nn);
        if (!nn) return nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
        for (int i = 0; i < nin; i++) {
            if (names[i] && !*names[i]) {
                for (int k = 0; k < i; k++)
                    free(nn[k]);
                free(nn);
                return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "module_set_inputs: input %d has an empty name", i);
            }
            nn[i] = dup_str(names[i]);
            if (names[i] && !nn[i]) {
                for (int k = 0; k < i; k++)
                    free(nn[k]);
                free(nn);
                return nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
            }
        }
    }
    if (m->input_names)
        for (int i = 0; i < m->num_inputs; i++)
            free(m->input_names[i]);
    free(m->input_names);
    m->input_names = nn;
    m->num_inputs = nin;
    return NNFX_OK;
}

char *trace_module_path(const nnfx_module *root, const nnfx_module *m) {
    size_t len = 0;
    const nnfx_module *a = m;
    for (; a != root; a = a->parent) {
        if (!a || !a->parent) return NULL; /* reached the top without meeting root */
        len += strlen(a->name) + 1;
    }
    char *s = malloc(len + 1);
    if (!s) return NULL;
    s[len] = 0;
    size_t end = len;
    for (a = m; a != root; a = a->parent) {
        size_t l = strlen(a->name);
        if (end < len) s[--end] = '.';
        end -= l;
        memcpy(s + end, a->name, l);
    }
    /* a path of k parts has k-1 dots: the extra byte counted above is unused
     * at the front; shift the text down. */
    if (end > 0) memmove(s, s + end, len - end + 1);
    return s;
}
