/* codegen.c — `nnfx codegen`: the model as standalone C99 for embedded
 * targets (src/codegen): NAME.h, NAME.c, NAME_weights.c and a report. */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/report_graph.h"
#include "core/files.h"

static const char codegen_help[] =
    "usage: nnfx codegen MODEL -o DIR [--name NAME] [--shape INPUT=D0xD1x...]...\n"
    "                    [--value INPUT=V0,V1,...|FILE]... [--outputs NAME,...] [--int8 [--int8-io]]\n"
    "                    [--forbid OP,...]\n"
    "                    [--optimize speed|size] [--report FILE] [--ram-limit BYTES]\n"
    "\n"
    "Writes the model as standalone C99: DIR/NAME.h, DIR/NAME.c and DIR/NAME_weights.c.\n"
    "No malloc and no globals but the constant weights and one static arena of\n"
    "NAME_ARENA_BYTES (the same lifetime-based plan nnfx's runtime uses); libc only for\n"
    "memcpy/memset/memmove, libm only for ops that need it (Exp, Sigmoid, Tanh, Erf,\n"
    "BatchNormalization's and LayerNormalization's sqrt, Softmax...). The API:\n"
    "  int NAME_run(const float *const inputs[], float *const outputs[]);  /* 0: ok */\n"
    "  int NAME_run_arena(const float *const inputs[], float *const outputs[], void *arena);\n"
    "with NAME_NUM_INPUTS, NAME_INPUT0_SIZE, NAME_INPUT0_SHAPE, ... macros. Kernels are\n"
    "copied only for the ops used; weights are exact (hexadecimal float literals); the\n"
    "same model gives the same bytes. A report (arena and weight bytes, per op) goes to\n"
    "stdout, or as JSON to --report FILE. Nothing is written when generation fails.\n"
    "\n"
    "options:\n"
    "  -o, --output DIR        folder to write into (created if missing)\n"
    "  --name NAME             C identifier prefix (default: the model file's stem)\n"
    "  --shape INPUT=D0xD1...  fix an input's shape (needed for dynamic dims; the\n"
    "                          declared rank and static dims must be kept)\n"
    "  --value INPUT=V0,V1,... fix an input's values (its element count, in its type;\n"
    "                          or a tensor file: INPUT=FILE.npy or FILE.pb): for an\n"
    "                          input that is constant where the model runs, such as a\n"
    "                          Reshape's shape, Resize's scales or TopK's K, so sizes\n"
    "                          that depend on it become static. The input stays in the\n"
    "                          API; NAME_run returns 1 when it holds other values\n"
    "  --outputs NAME,...      generate only the part of the model that computes these\n"
    "                          values (names as nnfx inspect prints them), as its\n"
    "                          outputs: e.g. the static part before a data-dependent\n"
    "                          node, whose rest you run in your own code\n"
    "  --int8                  require int8 kernels: fail (exit 3) unless the model is\n"
    "                          a QDQ model with int8 islands (see below)\n"
    "  --int8-io               integer-only C (implies --int8; a model quantized with\n"
    "                          --activations int8): int8 inputs and outputs (the\n"
    "                          model's input QuantizeLinear and output\n"
    "                          DequantizeLinear left to the caller: header macros\n"
    "                          NAME_INPUTi_SCALE/_ZERO_POINT, NAME_OUTPUTi_...), only\n"
    "                          int NAME_run_int8(const int8_t *const inputs[],\n"
    "                          int8_t *const outputs[]); no float, double or libm in\n"
    "                          the code (TFLite's fixed-point requantization, tables\n"
    "                          for sigmoid-like regions); exit 3 naming a node that\n"
    "                          is not integer\n"
    "  --ram-limit BYTES       fail (exit 1, nothing written) when the activation\n"
    "                          arena needs more (e.g. 64K), naming the step where\n"
    "                          the most activations are alive\n"
    "  --forbid OP,...         fail (exit 1) listing the nodes using these ops, e.g.\n"
    "                          Exp,Sigmoid,Tanh for a target without exp()\n"
    "  --optimize speed|size   speed (default): conv weights re-laid out at generation\n"
    "                          for a register-tiled kernel (output channels in blocks\n"
    "                          of 16, zero-padded) with bias, residual and ReLU fused;\n"
    "                          compiled by GCC/Clang for x86-64 or AArch64 (no\n"
    "                          AVX-512) the convs run as matrix-product tiles over\n"
    "                          inputs gathered into a 48 KiB stack buffer;\n"
    "                          size: weights as in the model and the smallest (direct\n"
    "                          loop) kernels, for flash-bound microcontrollers\n"
    "  --report FILE           write the report as JSON (FILE.html: a page with RAM\n"
    "                          and flash per op charted)\n"
    "  -h, --help              this text\n"
    "\n"
    "Values whose size depends on the data (after a NonZero, Compress, Unique or\n"
    "NonMaxSuppression: torch.nonzero, x[mask], a detector's nms and the Gather of\n"
    "the kept boxes) are computed over a bound, the actual extent known at run time;\n"
    "a node that cannot take such a value exits 3 naming it and the --outputs that\n"
    "generate the part before it. Sizes computed from such a value (a Shape of it\n"
    "through Gather, Concat, ReduceMin, arithmetic) may size a TopK's K, the shape\n"
    "of a ConstantOfShape, Expand or Reshape, a Slice's ends or a Range's limit; a\n"
    "Concat may join along such a dim; an If whose condition is known at generation\n"
    "becomes its branch, and one whose one branch is an empty constant\n"
    "(torchvision's batched_nms) runs its other branch always, cut to no rows when\n"
    "the empty one is taken. So whole detectors (SSDlite, FCOS, RetinaNet, Faster\n"
    "R-CNN) generate; a size past its buffer's bound makes NAME_run return 2.\n"
    "A model output of such a value has SIZE/SHAPE\n"
    "macros giving the most it can hold and NAME_OUTPUTk_BOUNDED; the run writes its\n"
    "values first (zeros after) and NAME_run_dims(inputs, outputs, dims) also writes\n"
    "every output's actual dims. NAME_run returns 2 where the interpreter refuses\n"
    "the values (a DynamicQuantizeLinear of NaN, a MaxUnpool index out of range...;\n"
    "the header says when it may).\n"
    "\n"
    "Control flow: an If becomes if/else, a Loop or Scan a C for loop. A Loop whose\n"
    "shapes change from trip to trip (a Slice at the trip number, a value grown by a\n"
    "Concat per trip) is unrolled when its trip count is known at generation and\n"
    "nothing can stop it early (at most 1024 trips); a Loop whose number of trips\n"
    "depends on model inputs is refused, naming the --value that would fix them.\n"
    "\n"
    "Exit: 0 written; 1 a forbidden op is used or --ram-limit is exceeded; 2 usage;\n"
    "3 bad model or an op the generator does not support (the node and op are named).\n"
    "\n"
    "int8: a QDQ model (e.g. from nnfx quantize) always generates int8 code, with or\n"
    "without --int8: each DequantizeLinear -> Conv | Gemm | MatMul (+ bias, Relu/Clip,\n"
    "residual Add) -> QuantizeLinear chain the runtime runs as one int8 kernel becomes\n"
    "a u8/s8 x s8 kernel with int32 accumulation and the runtime's own requantize\n"
    "epilogue (int8 max / global average pooling likewise); weights are int8 arrays\n"
    "(1 byte each in the report), Q/DQ run as the reference does; none needs libm.\n"
    "Every int8 value equals `nnfx run`'s bit for bit (float layers of the model may\n"
    "differ in summation order). The API stays float in, float out (but --int8-io).\n"
    "\n"
    "examples:\n"
    "  nnfx codegen kws.onnx -o out --shape x=1x1x31x20\n"
    "  nnfx codegen kws.onnx -o out --shape x=1x1x31x20 --forbid Exp,Sigmoid,Tanh\n"
    "  nnfx codegen kws.onnx -o out --shape x=1x1x31x20 --optimize size\n"
    "  nnfx codegen topk.onnx -o out --value k=5\n"
    "  nnfx codegen detector.onnx -o out --outputs boxes,scores\n"
    "  nnfx quantize kws.onnx -o kws_q.onnx --calib x=calib.npy\n"
    "  nnfx codegen kws_q.onnx -o out_q --shape x=1x1x31x20 --int8\n"
    "  cc -std=c99 -O2 -c out/kws.c out/kws_weights.c\n";

/* The file's stem as a C identifier: "mobilenet-v2.onnx" -> "mobilenet_v2". */
static char *stem_ident(const char *path) {
    const char *b = cli_basename(path);
    size_t len = strlen(b);
    const char *dot = strrchr(b, '.');
    if (dot && dot != b) len = (size_t)(dot - b);
    char *s = malloc(len + 2);
    if (!s) return NULL;
    size_t k = 0;
    if (len == 0 || isdigit((unsigned char)b[0])) s[k++] = '_';
    for (size_t i = 0; i < len; i++)
        s[k++] = isalnum((unsigned char)b[i]) ? b[i] : '_';
    s[k] = 0;
    return s;
}

/* Writes NAME.h, NAME.c, NAME_weights.c into dir and the report into
 * report (NULL or "-": not into a file), all or none. */
static nnfx_status write_all(const char *dir, const char *name, const nnfx_codegen_files *f, const char *report,
                             nnfx_error *err) {
    static const char *const suffix[3] = {".h", ".c", "_weights.c"};
    const char *data[4] = {f->header, f->source, f->weights, f->report};
    char *paths[4] = {0};
    const int n = report && strcmp(report, "-") != 0 ? 4 : 3;
    nnfx_status st = NNFX_OK;
    for (int i = 0; i < 3 && !st; i++) {
        size_t len = strlen(dir) + strlen(name) + 16;
        if (!(paths[i] = malloc(len))) st = nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
        if (!st) snprintf(paths[i], len, "%s/%s%s", dir, name, suffix[i]);
    }
    paths[3] = (char *)report;
    if (!st) st = cli_write_files(n, (const char *const *)paths, data, err);
    for (int i = 0; i < 3; i++)
        free(paths[i]);
    return st;
}

/* --report FILE.html: RAM (the arena) and flash (weights) in figures,
 * weight bytes and MACs per op type, and the activations alive at each layer
 * of g (shapes inferred by the generator), read from f->report's JSON.
 * Malloc'd; NULL on out of memory. */
static char *report_html(const char *model, const nnfx_codegen_files *f, const nnfx_graph *g) {
    enum { MAXOPS = 256 };
    char ops[MAXOPS][64], tw[MAXOPS][64], tm[MAXOPS][64], h[32], h2[32];
    const char *label[MAXOPS], *wtext[MAXOPS], *mtext[MAXOPS];
    double wv[MAXOPS], mv[MAXOPS];
    int n = 0;
    for (const char *p = strstr(f->report, "{\"op\": "); p && n < MAXOPS; p = strstr(p + 1, "{\"op\": ")) {
        int nodes = 0;
        long long wb = 0, macs = 0;
        if (sscanf(p, "{\"op\": \"%63[^\"]\", \"nodes\": %d, \"weight_bytes\": %lld, \"macs\": %lld}", ops[n], &nodes,
                   &wb, &macs) != 4)
            continue;
        label[n] = ops[n];
        wv[n] = (double)wb;
        mv[n] = (double)macs;
        snprintf(tw[n], sizeof tw[n], "%s in %d node%s", cli_human_bytes(wb, h, sizeof h), nodes,
                 nodes == 1 ? "" : "s");
        snprintf(tm[n], sizeof tm[n], "%s MACs", cli_human_count(macs, h, sizeof h));
        wtext[n] = tw[n];
        mtext[n] = tm[n];
        n++;
    }
    sbuf s = {0}, c = {0};
    sb_printf(&s,
              "<p class=\"verdict good\"><b>Generated.</b> RAM: an arena of %s; flash: %s of weights (plus the "
              "code); %s; %d int8 steps.</p>",
              cli_human_bytes(f->arena_bytes, h, sizeof h), cli_human_bytes(f->weight_bytes, h2, sizeof h2),
              f->libm ? "calls libm" : "no libm", f->int8_steps);
    if (n) {
        cli_bar_chart w = {"flash", "Flash per op type (weight bytes)", NULL, n, label, wtext, wv, NULL, NULL, 0};
        cli_bar_chart m = {"macs", "MACs per op type", NULL, n, label, mtext, mv, NULL, NULL, 0};
        sb_printf(&c, "<h2>Per op</h2>");
        cli_html_bars(&c, &w);
        cli_html_bars(&c, &m);
    }
    sb_printf(&c, "<h2>RAM per layer</h2>");
    cli_live_memory_chart(&c, g, f->arena_bytes, "the generated code's arena (buffers reused)");
    char *sum = sb_finish(&s), *charts = sb_finish(&c), title[512];
    snprintf(title, sizeof title, "nnfx codegen: %s", model);
    char *page = cli_rewrite_page(title, sum, NULL, NULL, NULL, NULL, charts);
    free(sum);
    free(charts);
    return page;
}

/* The command line of `nnfx codegen`. */
typedef struct codegen_opts {
    const char *model, *out, *name, *forbid, *report;
    nnfx_codegen_optimize optimize;
    bool int8, int8_io;
    int64_t ram_limit;   /* --ram-limit: most bytes of arena (0: none) */
    const char **shapes; /* the --shape values (nshapes; caller frees the array) */
    int nshapes;
    const char **values; /* the --value bindings (nvalues; caller frees the array) */
    int nvalues;
    const char *outputs; /* --outputs: a comma-separated list, or NULL */
} codegen_opts;

/* Reads the options into o; -1 when they are usable, else the exit code
 * (the usage error already printed). */
static int codegen_args(int argc, char **argv, codegen_opts *o) {
    o->optimize = NNFX_CODEGEN_SPEED;
    o->shapes = calloc((size_t)argc + 1, sizeof *o->shapes);
    o->values = calloc((size_t)argc + 1, sizeof *o->values);
    if (!o->shapes || !o->values) {
        cli_error("codegen", "out of memory");
        return CLI_EXIT_BAD_INPUT;
    }
    cli_args a;
    cli_args_init(&a, "codegen", argc, argv);
    while (cli_args_more(&a)) {
        const char *v;
        if (cli_opt_once(&a, "--output", "-o", &o->out) || cli_opt_once(&a, "--name", NULL, &o->name) ||
            cli_opt_once(&a, "--outputs", NULL, &o->outputs) || cli_opt_once(&a, "--forbid", NULL, &o->forbid) ||
            cli_opt_once(&a, "--report", NULL, &o->report))
            continue;
        if (cli_opt(&a, "--shape", NULL, &v))
            o->shapes[o->nshapes++] = v;
        else if (cli_opt(&a, "--value", NULL, &v))
            o->values[o->nvalues++] = v;
        else if (cli_opt(&a, "--optimize", NULL, &v)) {
            if (strcmp(v, "speed") != 0 && strcmp(v, "size") != 0)
                return cli_usage_error("codegen", "--optimize %s: expected speed or size", v);
            o->optimize = strcmp(v, "size") == 0 ? NNFX_CODEGEN_SIZE : NNFX_CODEGEN_SPEED;
        } else if (cli_opt(&a, "--ram-limit", NULL, &v)) {
            size_t lim;
            if (!cli_parse_size(v, &lim) || lim == 0)
                return cli_usage_error("codegen", "--ram-limit %s: expected a byte count (e.g. 65536, 64K)", v);
            o->ram_limit = (int64_t)lim;
        } else if (cli_flag(&a, "--int8-io", NULL)) {
            o->int8 = o->int8_io = true;
        } else if (cli_flag(&a, "--int8", NULL)) {
            o->int8 = true;
        } else {
            const char *p = cli_positional(&a);
            if (!p) break;
            if (o->model) return cli_usage_error("codegen", "one model at a time ('%s' and '%s' given)", o->model, p);
            o->model = p;
        }
    }
    if (a.bad) return CLI_EXIT_USAGE;
    if (!o->model || !o->out)
        return cli_usage_error("codegen", !o->model ? "no model given" : "no output folder given (-o DIR)");
    for (int k = 0; k < 2; k++) { /* one --shape and one --value per input */
        const char *const *list = k ? o->values : o->shapes;
        const int n = k ? o->nvalues : o->nshapes;
        for (int i = 0; i < n; i++)
            for (int j = 0; j < i; j++) {
                const char *ei = strchr(list[i], '='), *ej = strchr(list[j], '=');
                if (ei && ej && ei - list[i] == ej - list[j] && strncmp(list[i], list[j], (size_t)(ei - list[i])) == 0)
                    return cli_usage_error("codegen", "%s given twice for input '%.*s' (%s and %s)",
                                           k ? "--value" : "--shape", (int)(ei - list[i]), list[i], list[j], list[i]);
            }
    }
    return -1;
}

/* Fixes the input shapes given by --shape; -1 when done, else the exit
 * code (the usage error already printed). */
static int apply_shapes(nnfx_graph *g, const codegen_opts *o) {
    for (int i = 0; i < o->nshapes; i++) {
        char *in = NULL;
        const char *val;
        nnfx_shape sh;
        if (!cli_split_binding(o->shapes[i], &in, &val) || !cli_parse_shape(val, &sh)) {
            free(in);
            return cli_usage_error("codegen", "--shape %s: expected INPUT=D0xD1x... (e.g. x=1x3x224x224)",
                                   o->shapes[i]);
        }
        nnfx_node *ph = nnfx_graph_find(g, in);
        if (!ph || nnfx_node_opcode(ph) != NNFX_PLACEHOLDER) {
            int rc = cli_usage_error("codegen", "--shape %s: the model has no input named '%s'", o->shapes[i], in);
            free(in);
            return rc;
        }
        free(in);
        nnfx_meta *m = nnfx_node_meta(ph, 0);
        /* a dynamic dim takes any size; the declared rank and static dims must be kept (nnfx run refuses an
         * input of another shape) */
        int bad = m->rank >= 0 && m->rank != sh.rank ? 0 : -1;
        for (int d = 0; bad < 0 && m->rank >= 0 && d < m->rank; d++)
            if (m->dims[d].value >= 0 && m->dims[d].value != sh.dims[d]) bad = d + 1;
        if (bad >= 0) {
            char ms[160];
            nnfx_meta_str(m, ms, sizeof ms);
            if (bad == 0)
                return cli_usage_error("codegen", "--shape %s: the model declares %s as %s, of rank %d", o->shapes[i],
                                       nnfx_node_name(ph), ms, m->rank);
            return cli_usage_error("codegen", "--shape %s: the model declares %s as %s: dim %d is %lld", o->shapes[i],
                                   nnfx_node_name(ph), ms, bad - 1, (long long)m->dims[bad - 1].value);
        }
        nnfx_meta_set_shape(m, m->dtype, sh.rank, sh.dims);
    }
    return -1;
}

/* Whether s names a tensor file (.npy or .pb) rather than a list. */
static bool names_tensor_file(const char *s) {
    size_t n = strlen(s);
    return (n > 4 && strcmp(s + n - 4, ".npy") == 0) || (n > 3 && strcmp(s + n - 3, ".pb") == 0);
}

/* Parses "V0,V1,..." into a new rank-1 tensor of type dt; NULL when an
 * item is not a number of that type. */
static nnfx_tensor *parse_value_list(const char *list, nnfx_dtype dt) {
    int64_t n = 1;
    for (const char *q = list; *q; q++)
        n += *q == ',';
    nnfx_tensor *t = nnfx_tensor_new(dt, 1, &n, NULL);
    if (!t) return NULL;
    const char *q = list;
    for (int64_t i = 0; i < n; i++) {
        char *end;
        const char *item = q;
        while (*item == ' ')
            item++;
        errno = 0;
        bool ok = *item && *item != ',';
        if (dt == NNFX_F32 || dt == NNFX_F64) {
            double v = strtod(item, &end);
            if (dt == NNFX_F32)
                ((float *)t->data)[i] = (float)v;
            else
                ((double *)t->data)[i] = v;
        } else { /* an integer type (float16 values come from a tensor file: read_values) */
            long long v = strtoll(item, &end, 10);
            ok &= errno == 0;
            switch (dt) {
            case NNFX_I64: ((int64_t *)t->data)[i] = v; break;
            case NNFX_I32: ok &= v >= INT32_MIN && v <= INT32_MAX, ((int32_t *)t->data)[i] = (int32_t)v; break;
            case NNFX_I8: ok &= v >= -128 && v <= 127, ((int8_t *)t->data)[i] = (int8_t)v; break;
            case NNFX_U8: ok &= v >= 0 && v <= 255, ((uint8_t *)t->data)[i] = (uint8_t)v; break;
            case NNFX_BOOL: ok &= v == 0 || v == 1, ((uint8_t *)t->data)[i] = (uint8_t)v; break;
            default: ok = false;
            }
        }
        while (ok && *end == ' ')
            end++;
        if (!ok || (*end != ',' && *end != 0)) {
            nnfx_tensor_release(t);
            return NULL;
        }
        q = end + (*end == ',');
    }
    return t;
}

/* Reads the --value bindings into names[]/values[] (o->nvalues each; the
 * caller frees the names and releases the tensors); -1 when done, else the
 * exit code (the error already printed). */
static int read_values(nnfx_graph *g, const codegen_opts *o, char **names, nnfx_tensor **values) {
    for (int i = 0; i < o->nvalues; i++) {
        const char *val;
        if (!cli_split_binding(o->values[i], &names[i], &val) || !*val)
            return cli_usage_error("codegen", "--value %s: expected INPUT=V0,V1,... or INPUT=FILE.npy|FILE.pb",
                                   o->values[i]);
        nnfx_node *ph = nnfx_graph_find(g, names[i]);
        if (!ph || nnfx_node_opcode(ph) != NNFX_PLACEHOLDER)
            return cli_usage_error("codegen", "--value %s: the model has no input named '%s'", o->values[i], names[i]);
        const nnfx_dtype dt = nnfx_node_meta(ph, 0)->dtype;
        if (names_tensor_file(val)) {
            nnfx_error err = {0};
            if (!(values[i] = cli_load_tensor(val, &err))) return cli_fail("codegen", val, &err);
        } else if (dt == NNFX_F16) {
            return cli_usage_error("codegen",
                                   "--value %s: a float16 input's values come from a tensor file "
                                   "(INPUT=FILE.npy or FILE.pb)",
                                   o->values[i]);
        } else if (!(values[i] = parse_value_list(val, dt))) {
            return cli_usage_error("codegen",
                                   "--value %s: expected comma-separated %s values (or a .npy / .pb tensor file)",
                                   o->values[i], nnfx_dtype_name(dt));
        }
    }
    return -1;
}

/* The exit code for a failed generation: a forbidden op is a failed check
 * (1), a bad option a usage error (2), anything else bad input (3). */
static int generation_failed(const char *model, const nnfx_error *err) {
    if (err->status == NNFX_ERR_RUNTIME) { /* a forbidden op */
        cli_error("codegen", "%s: %s", model, err->msg);
        return CLI_EXIT_CHECK;
    }
    cli_fail("codegen", model, err);
    return err->status == NNFX_ERR_INVALID_ARG ? CLI_EXIT_USAGE : CLI_EXIT_BAD_INPUT;
}

/* The output rule: the model, its values or external data and the --value
 * files against the three generated files and the report; CLI_EXIT_OK or
 * the exit code (message printed). g: the loaded model, or NULL before. */
static int check_paths(const codegen_opts *o, const char *ident, const nnfx_graph *g) {
    static const char *const suffix[3] = {".h", ".c", "_weights.c"};
    static const char *const what[3] = {"the generated header", "the generated source", "the generated weights"};
    cli_io io;
    cli_io_init(&io, "codegen");
    cli_io_model_in(&io, "the model", o->model);
    if (g) cli_io_graph_in(&io, "the model", g);
    for (int i = 0; i < o->nvalues; i++) {
        const char *eq = strchr(o->values[i], '=');
        if (eq && names_tensor_file(eq + 1)) cli_io_in(&io, "--value", eq + 1);
    }
    if (!*o->out) cli_io_out(&io, "-o", o->out); /* the folder: only its files are outputs */
    for (int i = 0; i < 3 && *o->out; i++) {
        size_t len = strlen(o->out) + strlen(ident) + 16;
        char *p = malloc(len);
        if (!p) {
            io.oom = true;
            break;
        }
        snprintf(p, len, "%s/%s%s", o->out, ident, suffix[i]);
        cli_io_out(&io, what[i], p);
        free(p);
    }
    cli_io_out(&io, "--report", o->report);
    int rc = cli_io_check(&io);
    cli_io_free(&io);
    return rc;
}

/* Prints what was written and the report. */
static void print_summary(const char *out, const char *ident, const nnfx_codegen_files *f) {
    printf("wrote %s/%s.h, %s/%s.c, %s/%s_weights.c\n"
           "  flash: weights %lld bytes (+ code: measure with size(1))\n"
           "  RAM:   arena %lld bytes (NAME_ARENA_BYTES; inputs and outputs are the caller's)\n"
           "  libm:  %s\n"
           "per op: %s",
           out, ident, out, ident, out, ident, (long long)f->weight_bytes, (long long)f->arena_bytes,
           f->libm ? "needed" : "not needed", f->report);
}

/* Splits --outputs NAME,NAME,... in place in a copy (*copy, freed by the
 * caller, as *names): the names and their count in *n. 0, or the exit code of
 * an empty name (usage) or of running out of memory, reported. */
static int split_outputs(const char *outputs, char **copy, char ***names, int *n) {
    if (!(*copy = strdup(outputs)) || !(*names = calloc(strlen(outputs) + 1, sizeof(char *)))) {
        cli_error("codegen", "out of memory");
        return CLI_EXIT_BAD_INPUT;
    }
    for (char *p = *copy, *q; p; p = q) {
        q = strchr(p, ',');
        if (q) *q++ = 0;
        if (!*p) return cli_usage_error("codegen", "--outputs %s: an empty name (expected NAME,NAME,...)", outputs);
        (*names)[(*n)++] = p;
    }
    return 0;
}

/* The checks on what was generated before anything is written: the arena
 * within --ram-limit (else CLI_EXIT_CHECK) and, with --int8, an int8 island
 * (else CLI_EXIT_BAD_INPUT); 0 when they hold, the break reported. */
static int check_generated(const codegen_opts *o, const nnfx_codegen_files *f) {
    if (o->ram_limit && f->arena_bytes > o->ram_limit) {
        cli_error("codegen",
                  "%s: the activation arena needs %lld bytes, over --ram-limit %lld: at its peak, step %s (%s), "
                  "%lld bytes of values are alive together; nothing written",
                  o->model, (long long)f->arena_bytes, (long long)o->ram_limit, f->peak_node, f->peak_op,
                  (long long)f->peak_live_bytes);
        return CLI_EXIT_CHECK;
    }
    if (o->int8 && f->int8_steps == 0) {
        cli_error("codegen",
                  "%s: --int8: the model has no int8 island (DequantizeLinear -> Conv/Gemm/MatMul/pooling -> "
                  "QuantizeLinear); quantize it first: nnfx quantize MODEL -o MODEL_q.onnx --calib INPUT=X.npy",
                  o->model);
        return CLI_EXIT_BAD_INPUT;
    }
    return 0;
}

int cli_codegen(int argc, char **argv) {
    if (cli_wants_help(argc, argv)) {
        fputs(codegen_help, stdout);
        return CLI_EXIT_OK;
    }
    codegen_opts o = {0};
    int rc = codegen_args(argc, argv, &o);
    char **value_names = calloc((size_t)o.nvalues + 1, sizeof *value_names);
    nnfx_tensor **value_tensors = calloc((size_t)o.nvalues + 1, sizeof *value_tensors);
    if (rc < 0 && (!value_names || !value_tensors)) {
        cli_error("codegen", "out of memory");
        rc = CLI_EXIT_BAD_INPUT;
    }
    if (rc >= 0) {
        free(o.shapes);
        free(o.values);
        free(value_names);
        free(value_tensors);
        return rc;
    }
    rc = CLI_EXIT_OK;
    char *outputs_copy = NULL, **output_names = NULL;
    char *ident = o.name ? strdup(o.name) : stem_ident(o.model);
    nnfx_error err = {0};
    nnfx_graph *g = NULL;
    nnfx_codegen_files f = {0};
    if (!ident) {
        cli_error("codegen", "out of memory");
        rc = CLI_EXIT_BAD_INPUT;
        goto done;
    }
    if ((rc = check_paths(&o, ident, NULL))) goto done;
    g = cli_load_model(o.model, &err);
    if (!g) {
        rc = cli_fail("codegen", o.model, &err);
        goto done;
    }
    if ((rc = check_paths(&o, ident, g))) goto done; /* and the files its weights came from */
    int src = apply_shapes(g, &o);
    if (src >= 0) {
        rc = src;
        goto done;
    }
    if ((src = read_values(g, &o, value_names, value_tensors)) >= 0) {
        rc = src;
        goto done;
    }
    nnfx_codegen_options copts = {0};
    copts.name = ident, copts.forbid = o.forbid, copts.optimize = o.optimize;
    copts.nfixed = o.nvalues;
    copts.int8_io = o.int8_io;
    copts.fixed_inputs = (const char *const *)value_names;
    copts.fixed_values = (const nnfx_tensor *const *)value_tensors;
    if (o.outputs) {
        if ((rc = split_outputs(o.outputs, &outputs_copy, &output_names, &copts.noutputs))) goto done;
        copts.outputs = (const char *const *)output_names;
    }
    if (nnfx_codegen(g, &copts, &f, &err)) {
        rc = generation_failed(o.model, &err);
        goto done;
    }
    if ((rc = check_generated(&o, &f))) goto done;
    /* a new folder is written as a temporary folder beside it and renamed into place at once; into an
     * existing one, the files are renamed together (undone if one fails) */
    cli_new_dir nd;
    if (!cli_out_new_dir(&nd, "codegen", o.out)) {
        rc = CLI_EXIT_BAD_INPUT;
        goto done;
    }
    char *report_in = NULL; /* a --report inside the new folder goes into the temporary one */
    if (nd.dir && o.report && strcmp(o.report, "-") != 0) {
        const char *rb = cli_basename(o.report);
        char *rdir = strlen(rb) < strlen(o.report) ? strndup(o.report, strlen(o.report) - strlen(rb)) : strdup(".");
        char *r1 = rdir ? cli_resolved_name(rdir) : NULL, *r2 = r1 ? cli_resolved_name(o.out) : NULL;
        if (r1 && r2 && strcmp(r1, r2) == 0 && (report_in = malloc(strlen(nd.tmp) + strlen(rb) + 2)))
            sprintf(report_in, "%s/%s", nd.tmp, rb);
        bool oom = !rdir || !r1 || !r2 || (strcmp(r1, r2) == 0 && !report_in);
        free(rdir);
        free(r1);
        free(r2);
        if (oom) {
            cli_error("codegen", "out of memory");
            cli_out_new_dir_done(&nd, false);
            rc = CLI_EXIT_BAD_INPUT;
            goto done;
        }
    }
    char *json = f.report; /* the terminal summary shows it; FILE.html gets the page */
    if (o.report && cli_report_is_html(o.report) && !(f.report = report_html(o.model, &f, g))) {
        f.report = json;
        cli_error("codegen", "out of memory");
        cli_out_new_dir_done(&nd, false);
        free(report_in);
        rc = CLI_EXIT_BAD_INPUT;
        goto done;
    }
    cli_out_begin(); /* the files are renamed into place together, or none is */
    if (write_all(nd.dir ? nd.tmp : o.out, ident, &f, report_in ? report_in : o.report, &err))
        rc = cli_fail("codegen", o.out, &err);
    if (f.report != json) {
        free(f.report);
        f.report = json;
    }
    if (!rc && nd.dir && core_files_stage_dir(nd.tmp, o.out, &err)) {
        rc = cli_fail("codegen", o.out, &err);
        cli_out_failed();
    }
    rc = cli_out_end("codegen", rc);
    cli_out_new_dir_done(&nd, rc == CLI_EXIT_OK);
    free(report_in);
    if (rc) goto done;
    if (o.report && strcmp(o.report, "-") == 0 && cli_write_file("-", f.report, strlen(f.report), &err)) {
        rc = cli_fail("codegen", o.out, &err);
        goto done;
    }
    if (!o.report || strcmp(o.report, "-") != 0) print_summary(o.out, ident, &f);
done:
    nnfx_codegen_files_free(&f);
    nnfx_graph_free(g);
    free(ident);
    free(o.shapes);
    for (int i = 0; i < o.nvalues; i++) {
        free(value_names[i]);
        nnfx_tensor_release(value_tensors[i]);
    }
    free(value_names);
    free(value_tensors);
    free(o.values);
    free(outputs_copy);
    free(output_names);
    return rc;
}
