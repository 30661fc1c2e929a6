/* op_table.c — the op table built from include/nnfx/ops.def, and lookups. */
#include <ctype.h>
#include <string.h>

#include "ir/ir_int.h"
#include "ir/op_table.h"

static const nnfx_op_info op_table[NNFX_OP_COUNT] = {
    [NNFX_OP_NONE] = {"none", "", 0, 0, 0, 0, "", NULL, NULL, NULL},
#define NNFX_OP(e, name, onnx, mi, ma, no, fl, at, inf, ker, cst) \
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
        while (*a == '_') a++;
        while (*b == '_') b++;
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
        if (loose_equal(op_table[op].name, name) || (op_table[op].onnx_type[0] && loose_equal(op_table[op].onnx_type, name)))
            return (nnfx_op)op;
    return NNFX_OP_NONE;
}

bool ir_schema_lookup(nnfx_op op, const char *name, nnfx_attr_kind *kind, const char **default_text) {
    const char *s = ir_op_info(op)->attr_schema;
    size_t nl = strlen(name);
    while (s && *s) {
        const char *end = strchr(s, ',');
        if (!end) end = s + strlen(s);
        const char *colon = memchr(s, ':', (size_t)(end - s));
        if (colon && (size_t)(colon - s) == nl && strncmp(s, name, nl) == 0) {
            const char *k = colon + 1;
            const char *eq = memchr(k, '=', (size_t)(end - k));
            size_t kl = (size_t)((eq ? eq : end) - k);
            nnfx_attr_kind kk = NNFX_ATTR_INT;
            if (kl == 1 && *k == 'i') kk = NNFX_ATTR_INT;
            else if (kl == 1 && *k == 'f') kk = NNFX_ATTR_FLOAT;
            else if (kl == 1 && *k == 's') kk = NNFX_ATTR_STRING;
            else if (kl == 1 && *k == 't') kk = NNFX_ATTR_TENSOR;
            else if (kl == 4 && strncmp(k, "ints", 4) == 0) kk = NNFX_ATTR_INTS;
            else if (kl == 6 && strncmp(k, "floats", 6) == 0) kk = NNFX_ATTR_FLOATS;
            if (kind) *kind = kk;
            if (default_text) *default_text = eq ? eq + 1 : NULL;
            return true;
        }
        s = *end ? end + 1 : end;
    }
    return false;
}

int ir_node_num_outputs_for(nnfx_op op, const nnfx_node *n) {
    const nnfx_op_info *info = ir_op_info(op);
    if (info->outputs >= 0) return info->outputs;
    /* Split: num_outputs attribute, else length of the split input if known */
    if (n) {
        int64_t k = nnfx_node_attr_int(n, "num_outputs", 0);
        if (k > 0) return (int)k;
        if (n->nout > 0) return n->nout;
    }
    return 1;
}
