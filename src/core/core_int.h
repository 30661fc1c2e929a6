/* core_int.h — private helpers of the core layer. */
#ifndef NNFX_CORE_INT_H
#define NNFX_CORE_INT_H

#include "core/clock.h"
#include "core/files.h"
#include "core/budget.h"
#include "nnfx.h"

/* splitmix64 step: next pseudo-random 64-bit value. */
uint64_t core_rng_next(uint64_t *state);
/* Uniform float in [lo, hi) from the generator state. */
float core_rng_uniform(uint64_t *state, float lo, float hi);
/* IEEE half -> float. */
float core_half_to_float(uint16_t h);
/* double -> IEEE half, rounded to nearest even in one step (no double
 * rounding through float); overflow gives +-inf, NaN a quiet NaN. */
uint16_t core_double_to_half(double v);

/* double -> int64 without undefined behaviour: saturates out of range
 * (2^63 and beyond to INT64_MAX), NaN gives 0. */
int64_t core_double_to_i64(double v);
/* Element i as int64: exact for integer dtypes, core_double_to_i64 for
 * floating-point ones (uint64 above INT64_MAX saturates). */
int64_t core_tensor_get_i64(const nnfx_tensor *t, int64_t i);

/* True for a mapped tensor whose data is not aligned for its dtype. The
 * ONNX loader leaves large unaligned initializers (raw_data rarely lands on
 * a 4-byte boundary) in the file instead of copying them at load time; the
 * graph's parameter accessors call core_tensor_materialize on first use. */
bool core_tensor_unaligned(const nnfx_tensor *t);
/* Copies an unaligned mapped tensor into aligned owned memory, in place
 * (same tensor object), releases its mapping reference and drops the file
 * pages it covered from the process. No-op for any other tensor. */
nnfx_status core_tensor_materialize(nnfx_tensor *t, nnfx_error *err);

/* True when the AVX2 + FMA kernel paths may run: the CPU has them and
 * NNFX_ISA=portable is not set in the environment. Probed once. */
bool core_cpu_avx2_fma(void);
/* True when the AVX2 integer paths (int8 kernels) may run; same rule. */
bool core_cpu_avx2(void);
/* True when AVX-512 F+BW+VL+DQ paths may run (CPU and OS); same rule. */
bool core_cpu_avx512f(void);
/* True when AVX-512 VNNI (vpdpbusd on EVEX registers) may run; same rule. */
bool core_cpu_avx512vnni(void);
/* True when AVX-512 VBMI (byte permutes across a zmm) may run; same rule. */
bool core_cpu_avx512vbmi(void);
/* True when AVX-VNNI (the VEX-encoded vpdpbusd on ymm) may run; same rule. */
bool core_cpu_avxvnni(void);
/* Name of the vector path the kernels take ("avx2+fma" or "portable"). */
const char *core_cpu_isa_name(void);

/* Auto-vectorised kernels compiled for three instruction sets from one body:
 * write `static inline CORE_ALWAYS_INLINE void NAME_body(PARAMS)`, then
 * CORE_ISA_VARIANTS(NAME, (PARAMS), (ARGS)) defines NAME_avx512 (AVX-512,
 * 512-bit vectors), NAME_avx2 (compiled for AVX2) and NAME_portable (the
 * baseline), and CORE_ISA_PICK(NAME) is the one to call, chosen by
 * core_cpu_avx512f() / core_cpu_avx2() — so NNFX_ISA=avx2 and
 * NNFX_ISA=portable run the others on any host and the tests execute each
 * one the host has. No variant contracts a multiply and an add (ISO C
 * mode: -ffp-contract=off), so all give the same floats. (GCC's
 * target_clones would pick by CPU alone, and compile variants for
 * instruction sets no test of ours executes.) */
#if defined(__GNUC__) && defined(__x86_64__)
#define CORE_ALWAYS_INLINE __attribute__((always_inline))
#if defined(__clang__)
#define CORE_AVX512_TARGET __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx2")))
#else
#define CORE_AVX512_TARGET __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx2,prefer-vector-width=512")))
#endif
#define CORE_ISA_VARIANTS(name, params, args)                                                                          \
    CORE_AVX512_TARGET static void name##_avx512 params { name##_body args; }                                          \
    __attribute__((target("avx2"))) static void name##_avx2 params { name##_body args; }                               \
    static void name##_portable params { name##_body args; }
#define CORE_ISA_PICK(name) (core_cpu_avx512f() ? name##_avx512 : core_cpu_avx2() ? name##_avx2 : name##_portable)
#else
#define CORE_ALWAYS_INLINE
#define CORE_ISA_VARIANTS(name, params, args)                                                                          \
    static void name##_portable params { name##_body args; }
#define CORE_ISA_PICK(name) name##_portable
#endif

/* Unmaps from this process the whole pages of [p, p + nbytes) that lie in
 * mapping m (read-only, private: the file and its page cache are not
 * touched, a later read faults the pages in again). No-op for NULL m or a
 * range outside it. */
void core_mapping_drop(const nnfx_mapping *m, const void *p, size_t nbytes);

/* nnfx_mapping_open; with nofollow, a symbolic link as the last path
 * component is refused (O_NOFOLLOW). FIFOs and devices are refused without
 * blocking. */
nnfx_mapping *core_mapping_open(const char *path, bool nofollow, nnfx_error *err);

/* True when mapping m maps the file at path (same device and inode). */
bool core_mapping_is_file(const nnfx_mapping *m, const char *path);

/* Zero-filled storage of n bytes (a multiple of 64) for an owned tensor,
 * 64-byte aligned; blocks of 4 MiB and more are anonymous pages, so a
 * tensor nobody writes or reads (a text IR's declared parameters under
 * inspect or analyze) costs address space, not memory. NULL when out of
 * memory (or chosen to fail by nnfx_alloc_fail_at). Freed only with
 * core_tensor_data_free(p, n), n the same. */
void *core_tensor_data_alloc(size_t n);
/* core_tensor_data_alloc for a block the caller writes whole at once (a
 * copy): big blocks are faulted in by the kernel in one go (MAP_POPULATE)
 * rather than one page fault per page as they are written. */
void *core_tensor_data_alloc_filled(size_t n);
void core_tensor_data_free(void *p, size_t n);

#endif
