/* op_table.c — the op table built from include/nnfx/ops.def, and lookups. */
#include <ctype.h>
#include <pthread.h>
#include <string.h>

#include "ir/ir_int.h"
#include "ir/op_table.h"

static const nnfx_op_info op_table[NNFX_OP_COUNT] = {
    [NNFX_OP_NONE] = {"none", "", 0, 0, 0, 0, "", NULL, NULL, NULL},
#define NNFX_OP(e, name, onnx, mi, ma, no, fl, at, inf, ker, cst, emt)                                                 \
    [NNFX_OP_##e] = {name, onnx, mi, ma, no, fl, at, inf, ker, cst},
#include "nnfx/ops.def"
#undef NNFX_OP
};

const nnfx_op_info *ir_op_info(nnfx_op op) {
    if ((int)op <= 0 || op >= NNFX_OP_COUNT) return &op_table[0];
    return &op_table[op];
}

const char *nnfx_op_name(nnfx_op op) { return ir_op_info(op)->name; }
const char *nnfx_op_onnx_type(nnfx_op op) { return ir_op_info(op)->onnx_type; }
unsigned nnfx_op_flags(nnfx_op op) { return ir_op_info(op)->flags; }
const char *nnfx_op_attr_schema(nnfx_op op) { return ir_op_info(op)->attr_schema; }

void nnfx_op_arity(nnfx_op op, int *min_inputs, int *max_inputs, int *outputs) {
    const nnfx_op_info *info = ir_op_info(op);
    if (min_inputs) *min_inputs = info->min_inputs;
    if (max_inputs) *max_inputs = info->max_inputs;
    if (outputs) *outputs = info->outputs;
}

/* Compares ignoring case and underscores: "LeakyRelu" == "leaky_relu". */
static bool loose_equal(const char *a, const char *b) {
    for (;;) {
        while (*a == '_')
            a++;
        while (*b == '_')
            b++;
        if (!*a || !*b) return !*a && !*b;
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b)) return false;
        a++, b++;
    }
}

nnfx_op nnfx_op_find(const char *name) {
    if (!name || !*name) return NNFX_OP_NONE;
    for (int op = 1; op < NNFX_OP_COUNT; op++)
        if (strcmp(op_table[op].name, name) == 0 || strcmp(op_table[op].onnx_type, name) == 0) return (nnfx_op)op;
    for (int op = 1; op < NNFX_OP_COUNT; op++)
        if (loose_equal(op_table[op].name, name) ||
            (op_table[op].onnx_type[0] && loose_equal(op_table[op].onnx_type, name)))
            return (nnfx_op)op;
    return NNFX_OP_NONE;
}

/* Attribute schemas, parsed once from the ops.def strings. */
#define SCHEMA_MAX_ATTRS 16
typedef struct schema_attr {
    char name[40];
    nnfx_attr_kind kind;
    char dflt[40];
    bool has_default;
    bool list; /* "strs": a list of strings held as one comma-joined string */
} schema_attr;

static schema_attr schemas[NNFX_OP_COUNT][SCHEMA_MAX_ATTRS];
static int schema_counts[NNFX_OP_COUNT];
static pthread_once_t schema_once = PTHREAD_ONCE_INIT;

static nnfx_attr_kind kind_from_text(const char *k, size_t kl) {
    if (kl == 1 && *k == 'f') return NNFX_ATTR_FLOAT;
    if (kl == 1 && *k == 's') return NNFX_ATTR_STRING;
    if (kl == 4 && strncmp(k, "strs", 4) == 0) return NNFX_ATTR_STRING;
    if (kl == 1 && *k == 't') return NNFX_ATTR_TENSOR;
    if (kl == 1 && *k == 'g') return NNFX_ATTR_GRAPH;
    if (kl == 4 && strncmp(k, "ints", 4) == 0) return NNFX_ATTR_INTS;
    if (kl == 6 && strncmp(k, "floats", 6) == 0) return NNFX_ATTR_FLOATS;
    return NNFX_ATTR_INT;
}

/* Copies [s, s+n) into a fixed buffer of size cap, NUL-terminated. */
static void copy_span(char *dst, size_t cap, const char *s, size_t n) {
    if (n >= cap) n = cap - 1;
    memcpy(dst, s, n);
    dst[n] = 0;
}

static void parse_schemas(void) {
    for (int op = 1; op < NNFX_OP_COUNT; op++) {
        const char *s = op_table[op].attr_schema;
        int k = 0;
        while (s && *s && k < SCHEMA_MAX_ATTRS) {
            const char *end = strchr(s, ',');
            if (!end) end = s + strlen(s);
            const char *colon = memchr(s, ':', (size_t)(end - s));
            if (colon) {
                schema_attr *a = &schemas[op][k++];
                copy_span(a->name, sizeof a->name, s, (size_t)(colon - s));
                const char *kt = colon + 1;
                const char *eq = memchr(kt, '=', (size_t)(end - kt));
                a->kind = kind_from_text(kt, (size_t)((eq ? eq : end) - kt));
                a->list = (eq ? eq : end) - kt == 4 && strncmp(kt, "strs", 4) == 0;
                a->has_default = eq != NULL;
                if (eq) copy_span(a->dflt, sizeof a->dflt, eq + 1, (size_t)(end - eq - 1));
            }
            s = *end ? end + 1 : end;
        }
        schema_counts[op] = k;
    }
}

bool ir_schema_lookup(nnfx_op op, const char *name, nnfx_attr_kind *kind, const char **default_text) {
    if ((int)op <= 0 || op >= NNFX_OP_COUNT || !name) return false;
    pthread_once(&schema_once, parse_schemas);
    for (int i = 0; i < schema_counts[op]; i++) {
        const schema_attr *a = &schemas[op][i];
        if (a->name[0] != name[0] || strcmp(a->name, name) != 0) continue; /* most differ in the first byte */
        if (kind) *kind = a->kind;
        if (default_text) *default_text = a->has_default ? a->dflt : NULL;
        return true;
    }
    return false;
}

int64_t ir_attr_int(const nnfx_node *n, const char *name) { return nnfx_node_attr_int(n, name, 0); }

double ir_attr_float(const nnfx_node *n, const char *name) { return nnfx_node_attr_float(n, name, 0.0); }

const char *ir_attr_string(const nnfx_node *n, const char *name) {
    const nnfx_attr *a = nnfx_node_attr(n, name);
    if (a && a->kind == NNFX_ATTR_STRING) return a->u.s;
    const char *d = NULL;
    if (n && n->opcode == NNFX_CALL_FUNCTION && ir_schema_lookup(n->op, name, NULL, &d) && d) return d;
    return "";
}

bool ir_schema_string_list(nnfx_op op, const char *name) {
    if ((int)op <= 0 || op >= NNFX_OP_COUNT || !name) return false;
    pthread_once(&schema_once, parse_schemas);
    for (int i = 0; i < schema_counts[op]; i++)
        if (schemas[op][i].name[0] == name[0] && strcmp(schemas[op][i].name, name) == 0) return schemas[op][i].list;
    return false;
}

int ir_schema_floats(nnfx_op op, const char **names, int max) {
    if ((int)op <= 0 || op >= NNFX_OP_COUNT) return 0;
    pthread_once(&schema_once, parse_schemas);
    int k = 0;
    for (int i = 0; i < schema_counts[op] && k < max; i++)
        if (schemas[op][i].kind == NNFX_ATTR_FLOAT) names[k++] = schemas[op][i].name;
    return k;
}

int ir_node_num_outputs_for(nnfx_op op, const nnfx_node *n) {
    const nnfx_op_info *info = ir_op_info(op);
    if (info->outputs >= 0) return info->outputs;
    if (ir_op_is_ctrl(op)) { /* what the body returns (If: a branch; Loop: less its condition) */
        int k = ir_graph_num_outputs(ir_ctrl_body(n, op == NNFX_OP_IF ? "then_branch" : "body"));
        if (op == NNFX_OP_LOOP) k--;
        return k >= 1 ? k : 1;
    }
    /* Split: num_outputs attribute, else length of the split input if known */
    if (n) {
        int64_t k = nnfx_node_attr_int(n, "num_outputs", 0);
        if (k > 0) return (int)k;
        if (n->nout > 0) return n->nout;
    }
    return 1;
}
