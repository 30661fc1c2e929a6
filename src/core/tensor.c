/* tensor.c — dense tensors: creation, reference counting, element access. */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "rt/nnfx_rt_scalar.h"
#include "core/core_int.h"

size_t nnfx_dtype_size(nnfx_dtype dt) {
    switch (dt) {
    case NNFX_F32: return 4;
    case NNFX_U8: return 1;
    case NNFX_I8: return 1;
    case NNFX_I32: return 4;
    case NNFX_I64: return 8;
    case NNFX_BOOL: return 1;
    case NNFX_F16: return 2;
    case NNFX_F64: return 8;
    case NNFX_U16: return 2;
    case NNFX_I16: return 2;
    case NNFX_U32: return 4;
    case NNFX_U64: return 8;
    default: return 0;
    }
}

static const struct {
    nnfx_dtype dt;
    const char *name;
} dtype_names[] = {{NNFX_F32, "float32"}, {NNFX_U8, "uint8"},  {NNFX_I8, "int8"},     {NNFX_I32, "int32"},
                   {NNFX_I64, "int64"},   {NNFX_BOOL, "bool"}, {NNFX_F16, "float16"}, {NNFX_F64, "float64"},
                   {NNFX_U16, "uint16"},  {NNFX_I16, "int16"}, {NNFX_U32, "uint32"},  {NNFX_U64, "uint64"}};

const char *nnfx_dtype_name(nnfx_dtype dt) {
    for (size_t i = 0; i < sizeof dtype_names / sizeof dtype_names[0]; i++)
        if (dtype_names[i].dt == dt) return dtype_names[i].name;
    return "undefined";
}

nnfx_dtype nnfx_dtype_from_name(const char *name) {
    if (!name) return NNFX_DTYPE_UNDEFINED;
    for (size_t i = 0; i < sizeof dtype_names / sizeof dtype_names[0]; i++)
        if (strcmp(dtype_names[i].name, name) == 0) return dtype_names[i].dt;
    if (strcmp(name, "float") == 0) return NNFX_F32;
    if (strcmp(name, "double") == 0) return NNFX_F64;
    return NNFX_DTYPE_UNDEFINED;
}

nnfx_shape nnfx_shape_of(int rank, ...) {
    nnfx_shape s = {0};
    if (rank < 0 || rank > NNFX_MAX_RANK) return s;
    s.rank = rank;
    va_list ap;
    va_start(ap, rank);
    for (int i = 0; i < rank; i++)
        s.dims[i] = va_arg(ap, int);
    va_end(ap);
    return s;
}

int64_t nnfx_shape_numel(int rank, const int64_t *shape) {
    int64_t n = 1;
    for (int i = 0; i < rank; i++) {
        if (shape[i] < 0) return -1;
        if (shape[i] == 0) n = 0; /* a zero dim: no overflow from the others */
    }
    for (int i = 0; i < rank && n; i++) {
        if (n > INT64_MAX / shape[i]) return -1;
        n *= shape[i];
    }
    return n;
}

int64_t nnfx_tensor_numel(const nnfx_tensor *t) { return t ? nnfx_shape_numel(t->rank, t->shape) : 0; }

char *nnfx_shape_str(int rank, const int64_t *shape, char *buf, size_t len) {
    size_t off = 0;
    if (len == 0) return buf;
    buf[0] = 0;
    off += (size_t)snprintf(buf + off, len - off, "[");
    for (int i = 0; i < rank && off < len; i++)
        off += (size_t)snprintf(buf + off, len - off, "%s%lld", i ? ", " : "", (long long)shape[i]);
    if (off < len) snprintf(buf + off, len - off, "]");
    return buf;
}

/* Checks rank/shape/dtype and computes the byte size. */
static nnfx_status tensor_check(nnfx_dtype dt, int rank, const int64_t *shape, size_t *nbytes, nnfx_error *err) {
    return nnfx_shape_nbytes(dt, rank, shape, nbytes, err);
}

static nnfx_tensor *tensor_alloc_header(nnfx_dtype dt, int rank, const int64_t *shape, size_t nbytes, nnfx_error *err) {
    nnfx_tensor *t = calloc(1, sizeof *t);
    if (!t) {
        nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory allocating a tensor header");
        return NULL;
    }
    t->dtype = dt;
    t->rank = rank;
    for (int i = 0; i < rank; i++)
        t->shape[i] = shape[i];
    t->nbytes = nbytes;
    t->refcount = 1;
    return t;
}

/* nnfx_tensor_new; filled: the caller writes every byte at once (big
 * blocks are then pre-faulted, core_tensor_data_alloc_filled). */
static nnfx_tensor *tensor_new(nnfx_dtype dt, int rank, const int64_t *shape, bool filled, nnfx_error *err) {
    size_t nbytes;
    if (tensor_check(dt, rank, shape, &nbytes, err)) return NULL;
    nnfx_tensor *t = tensor_alloc_header(dt, rank, shape, nbytes, err);
    if (!t) return NULL;
    /* 64-byte aligned for vector kernels; at least one byte so data != NULL */
    size_t alloc = (nbytes + 63) & ~(size_t)63;
    if (alloc == 0) alloc = 64;
    if (core_budget_take(alloc, "a tensor", err)) {
        char buf[200];
        nnfx_error_prefix(err, "tensor %s %s", nnfx_dtype_name(dt), nnfx_shape_str(rank, shape, buf, sizeof buf));
        free(t);
        return NULL;
    }
    t->data = filled ? core_tensor_data_alloc_filled(alloc) : core_tensor_data_alloc(alloc);
    if (!t->data) {
        core_budget_give(alloc);
        free(t);
        nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory allocating %zu bytes for a tensor", nbytes);
        return NULL;
    }
    t->storage = NNFX_STORAGE_OWNED;
    return t;
}

nnfx_tensor *nnfx_tensor_borrow(nnfx_dtype dt, int rank, const int64_t *shape, void *data, nnfx_error *err) {
    size_t nbytes;
    if (tensor_check(dt, rank, shape, &nbytes, err)) return NULL;
    if (!data && nbytes) {
        nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "borrowed tensor data is NULL");
        return NULL;
    }
    nnfx_tensor *t = tensor_alloc_header(dt, rank, shape, nbytes, err);
    if (!t) return NULL;
    t->data = data;
    t->storage = NNFX_STORAGE_BORROWED;
    return t;
}

nnfx_tensor *nnfx_tensor_mapped(nnfx_dtype dt, int rank, const int64_t *shape, void *data, nnfx_mapping *m,
                                nnfx_error *err) {
    size_t nbytes;
    if (tensor_check(dt, rank, shape, &nbytes, err)) return NULL;
    if (!m) {
        nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "mapped tensor without a mapping");
        return NULL;
    }
    const char *base = nnfx_mapping_data(m);
    const char *p = data;
    if (p < base || (size_t)(p - base) > nnfx_mapping_size(m) || nbytes > nnfx_mapping_size(m) - (size_t)(p - base)) {
        nnfx_error_set(err, NNFX_ERR_PARSE, "tensor data (%zu bytes) lies outside the mapped file", nbytes);
        return NULL;
    }
    nnfx_tensor *t = tensor_alloc_header(dt, rank, shape, nbytes, err);
    if (!t) return NULL;
    t->data = data;
    t->storage = NNFX_STORAGE_MAPPED;
    t->mapping = nnfx_mapping_retain(m);
    return t;
}

nnfx_tensor *nnfx_tensor_new(nnfx_dtype dt, int rank, const int64_t *shape, nnfx_error *err) {
    return tensor_new(dt, rank, shape, false, err);
}

nnfx_tensor *nnfx_tensor_clone(const nnfx_tensor *src, nnfx_error *err) {
    if (!src) {
        nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "clone of a NULL tensor");
        return NULL;
    }
    nnfx_tensor *t = tensor_new(src->dtype, src->rank, src->shape, true, err);
    if (t && src->nbytes) memcpy(t->data, src->data, src->nbytes);
    return t;
}

nnfx_tensor *nnfx_tensor_from_floats(int rank, const int64_t *shape, const float *values, nnfx_error *err) {
    nnfx_tensor *t = nnfx_tensor_new(NNFX_F32, rank, shape, err);
    if (t && values && t->nbytes) memcpy(t->data, values, t->nbytes);
    return t;
}

nnfx_tensor *nnfx_tensor_scalar_f32(float v, nnfx_error *err) {
    nnfx_tensor *t = nnfx_tensor_new(NNFX_F32, 0, NULL, err);
    if (t) *(float *)t->data = v;
    return t;
}

nnfx_tensor *nnfx_tensor_scalar_i64(int64_t v, nnfx_error *err) {
    nnfx_tensor *t = nnfx_tensor_new(NNFX_I64, 0, NULL, err);
    if (t) *(int64_t *)t->data = v;
    return t;
}

nnfx_tensor *nnfx_tensor_retain(nnfx_tensor *t) {
    if (t) t->refcount++;
    return t;
}

void nnfx_tensor_release(nnfx_tensor *t) {
    if (!t) return;
    if (--t->refcount > 0) return;
    if (t->storage == NNFX_STORAGE_OWNED) {
        size_t alloc = t->nbytes ? (t->nbytes + 63) & ~(size_t)63 : 64;
        core_tensor_data_free(t->data, alloc);
        core_budget_give(alloc);
    }
    if (t->mapping) nnfx_mapping_release(t->mapping);
    free(t);
}

void *nnfx_tensor_data_mut(nnfx_tensor *t, nnfx_error *err) {
    if (!t) {
        nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "data_mut: NULL tensor");
        return NULL;
    }
    if (t->storage == NNFX_STORAGE_MAPPED) {
        char buf[160];
        nnfx_error_set(err, NNFX_ERR_INVALID_ARG,
                       "tensor %s %s is mapped read-only from a file; write a copy (nnfx_tensor_clone) or, "
                       "for a graph parameter, the tensor nnfx_graph_param_mut returns",
                       nnfx_dtype_name(t->dtype), nnfx_shape_str(t->rank, t->shape, buf, sizeof buf));
        return NULL;
    }
    return t->data;
}

bool core_tensor_unaligned(const nnfx_tensor *t) {
    if (!t || t->storage != NNFX_STORAGE_MAPPED || !t->nbytes) return false;
    size_t es = nnfx_dtype_size(t->dtype);
    return es > 1 && (uintptr_t)t->data % es != 0;
}

nnfx_status core_tensor_materialize(nnfx_tensor *t, nnfx_error *err) {
    if (!core_tensor_unaligned(t)) return NNFX_OK;
    size_t alloc = (t->nbytes + 63) & ~(size_t)63;
    if (core_budget_take(alloc, "copying a mapped tensor", err)) return err ? err->status : NNFX_ERR_NOMEM;
    void *data = core_tensor_data_alloc(alloc);
    if (!data) {
        core_budget_give(alloc);
        return nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory copying %zu bytes of a mapped tensor", t->nbytes);
    }
    long page = sysconf(_SC_PAGESIZE);
    if (alloc >= ((size_t)2 << 20)) /* large copies: fewer page faults with huge pages, where enabled */
        madvise((void *)((uintptr_t)data & ~((uintptr_t)page - 1)), alloc, MADV_HUGEPAGE);
    memcpy(data, t->data, t->nbytes);
    core_mapping_drop(t->mapping, t->data, t->nbytes);
    t->data = data;
    t->storage = NNFX_STORAGE_OWNED;
    nnfx_mapping_release(t->mapping);
    t->mapping = NULL;
    return NNFX_OK;
}

double nnfx_tensor_get(const nnfx_tensor *t, int64_t i) {
    switch (t->dtype) {
    case NNFX_F32: return ((const float *)t->data)[i];
    case NNFX_F64: return ((const double *)t->data)[i];
    case NNFX_I64: return (double)((const int64_t *)t->data)[i];
    case NNFX_I32: return ((const int32_t *)t->data)[i];
    case NNFX_I8: return ((const int8_t *)t->data)[i];
    case NNFX_U8: return ((const uint8_t *)t->data)[i];
    case NNFX_BOOL: return ((const uint8_t *)t->data)[i] ? 1.0 : 0.0;
    case NNFX_F16: return core_half_to_float(((const uint16_t *)t->data)[i]);
    case NNFX_U16: return ((const uint16_t *)t->data)[i];
    case NNFX_I16: return ((const int16_t *)t->data)[i];
    case NNFX_U32: return ((const uint32_t *)t->data)[i];
    case NNFX_U64: return (double)((const uint64_t *)t->data)[i]; /* exact below 2^53 */
    default: return 0.0;
    }
}

uint64_t core_rng_next(uint64_t *state) {
    /* splitmix64 */
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

float core_rng_uniform(uint64_t *state, float lo, float hi) {
    double u = (double)(core_rng_next(state) >> 11) * (1.0 / 9007199254740992.0);
    return (float)(lo + (hi - lo) * u);
}

void nnfx_tensor_fill_uniform(nnfx_tensor *t, uint64_t seed, float lo, float hi) {
    if (!t || t->dtype != NNFX_F32 || t->storage == NNFX_STORAGE_MAPPED) return;
    uint64_t st = seed;
    float *p = t->data;
    int64_t n = nnfx_tensor_numel(t);
    for (int64_t i = 0; i < n; i++)
        p[i] = core_rng_uniform(&st, lo, hi);
}

/* The runtime's conversions (src/rt/nnfx_rt_scalar.h), so the
 * generated C's float16 values are the interpreter's. */
float core_half_to_float(uint16_t h) { return nnfx_rt_half_to_float(h); }

uint16_t core_double_to_half(double v) { return nnfx_rt_double_to_half(v); }

int64_t core_double_to_i64(double v) {
    if (!(v == v)) return 0;                          /* NaN */
    if (v >= 9223372036854775807.0) return INT64_MAX; /* 2^63 and above */
    if (v <= -9223372036854775808.0) return INT64_MIN;
    return (int64_t)v;
}

int64_t core_tensor_get_i64(const nnfx_tensor *t, int64_t i) {
    switch (t->dtype) {
    case NNFX_I64: return ((const int64_t *)t->data)[i];
    case NNFX_U64: {
        uint64_t u = ((const uint64_t *)t->data)[i];
        return u > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)u;
    }
    default: return core_double_to_i64(nnfx_tensor_get(t, i));
    }
}
