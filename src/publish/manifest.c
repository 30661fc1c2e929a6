/* manifest.c — reading a pulled OCI manifest into what to download: the
 * model layer and its external data, every field a registry sent checked
 * before it is used (digests go into URLs, sizes bound downloads, titles
 * become file names). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "publish/publish.h"

bool pub_json_size(const pub_json *v, uint64_t *out) {
    if (!v || v->kind != PUB_JNUM) return false;
    double d = v->num;
    /* NaN fails every comparison; infinities and fractions fail here too */
    if (!(d >= 0.0 && d <= (double)PUB_MAX_SIZE_EXACT) || floor(d) != d) return false;
    *out = (uint64_t)d;
    return true;
}

/* true for "sha256:" and 64 lowercase hex digits. */
static bool digest_ok(const char *d) {
    if (!d || strncmp(d, "sha256:", 7) != 0 || strlen(d) != 71) return false;
    for (const char *p = d + 7; *p; p++)
        if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f'))) return false;
    return true;
}

/* A layer's title as a plain file name, or NULL when absent or unsafe. */
static const char *safe_title(const pub_json *layer) {
    const char *t = pub_json_str(pub_json_get(layer, "annotations"), "org.opencontainers.image.title");
    if (!t) t = pub_json_str(pub_json_get(layer, "annotations"), PUB_MP_FILEPATH); /* ModelPack */
    if (!t || !*t || strlen(t) > 255 || strcmp(t, ".") == 0 || strcmp(t, "..") == 0) return NULL;
    for (const unsigned char *p = (const unsigned char *)t; *p; p++)
        if (*p < 0x20 || *p == 0x7f || *p == '/' || *p == '\\') return NULL;
    return t;
}

/* Fills one plan entry from layer i; false with err set when a field is bad. */
static bool take_layer(const pub_json *l, int i, uint64_t max_size, pub_pull_layer *out, nnfx_error *err) {
    const char *d = pub_json_str(l, "digest");
    if (!digest_ok(d)) {
        nnfx_error_set(err, NNFX_ERR_PARSE,
                       "the manifest's layer %d: the digest is not sha256: and 64 lowercase hex digits", i);
        return false;
    }
    uint64_t size;
    if (!pub_json_size(pub_json_get(l, "size"), &size)) {
        nnfx_error_set(err, NNFX_ERR_PARSE,
                       "the manifest's layer %d: the size is not a byte count (a whole number from 0 to 2^53)", i);
        return false;
    }
    if (size > max_size) {
        nnfx_error_set(err, NNFX_ERR_PARSE,
                       "the manifest's layer %d: %llu bytes, more than the limit of %llu (--max-size)", i,
                       (unsigned long long)size, (unsigned long long)max_size);
        return false;
    }
    snprintf(out->digest, sizeof out->digest, "%s", d);
    out->size = size;
    return true;
}

nnfx_status pub_manifest_plan(const pub_json *man, const char *out_base, uint64_t max_size, pub_pull_plan *plan,
                              nnfx_error *err) {
    memset(plan, 0, sizeof *plan);
    const pub_json *layers = pub_json_get(man, "layers");
    if (!layers || layers->kind != PUB_JARR || layers->n == 0)
        return nnfx_error_set(err, NNFX_ERR_PARSE, "the manifest has no layers (not a model artifact)");
    /* the model layer: nnfx's media type, else a title ending in .onnx, else the first */
    int model = -1;
    for (int i = 0; i < layers->n && model < 0; i++) {
        const char *mt = pub_json_str(layers->items[i], "mediaType");
        if (mt && strcmp(mt, PUB_MT_MODEL) == 0) model = i;
    }
    for (int i = 0; i < layers->n && model < 0; i++) {
        const char *t = safe_title(layers->items[i]);
        if (t && strlen(t) > 5 && strcmp(t + strlen(t) - 5, ".onnx") == 0) model = i;
    }
    if (model < 0) model = 0;
    for (int i = 0; i < layers->n; i++) {
        const pub_json *l = layers->items[i];
        const char *mt = pub_json_str(l, "mediaType");
        if (i == model || !mt || (strcmp(mt, PUB_MT_DATA) != 0 && strcmp(mt, PUB_MP_WEIGHT) != 0))
            continue; /* not ours to place */
        if (plan->n == PUB_MAX_PULL_LAYERS - 1)
            return nnfx_error_set(err, NNFX_ERR_PARSE, "the manifest has more than %d external-data layers",
                                  PUB_MAX_PULL_LAYERS - 1);
        pub_pull_layer *p = &plan->layers[plan->n];
        if (!take_layer(l, i, max_size, p, err)) return err->status;
        const char *t = safe_title(l);
        if (!t)
            return nnfx_error_set(
                err, NNFX_ERR_PARSE,
                "the manifest's layer %d (external data) has no usable title (a plain file name is needed)", i);
        if (out_base && strcmp(t, out_base) == 0)
            return nnfx_error_set(err, NNFX_ERR_PARSE,
                                  "the manifest's layer %d (external data) is titled as the -o file", i);
        for (int k = 0; k < plan->n; k++)
            if (strcmp(plan->layers[k].title, t) == 0)
                return nnfx_error_set(err, NNFX_ERR_PARSE, "the manifest's layers %d and another have the same title",
                                      i);
        snprintf(p->title, sizeof p->title, "%s", t);
        plan->n++;
    }
    pub_pull_layer *m = &plan->layers[plan->n];
    if (!take_layer(layers->items[model], model, max_size, m, err)) return err->status;
    m->model = true;
    plan->n++;
    return NNFX_OK;
}
