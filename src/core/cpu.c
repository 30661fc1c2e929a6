/* cpu.c — the one place that decides which instruction-set paths the
 * kernels may take. Features are probed once. NNFX_ISA=portable in the
 * environment turns every vector path off, and NNFX_ISA=avx2 the AVX-512 and
 * VNNI ones, so tests can run each path the hardware has and compare them. */
#include <pthread.h>
#if defined(__GNUC__) && defined(__x86_64__)
#include <cpuid.h>
#endif
#include <stdlib.h>
#include <string.h>

#include "core/core_int.h"

static bool g_avx2_fma, g_avx2, g_avx512f, g_avx512vnni, g_avx512vbmi, g_avxvnni;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void probe(void) {
    const char *isa = getenv("NNFX_ISA");
    if (isa && strcmp(isa, "portable") == 0) return;
    bool avx2_only = isa && strcmp(isa, "avx2") == 0; /* NNFX_ISA=avx2: no AVX-512 or VNNI path */
    (void)avx2_only;
#if defined(__GNUC__) && defined(__x86_64__)
    __builtin_cpu_init();
    g_avx2 = __builtin_cpu_supports("avx2");
    g_avx2_fma = g_avx2 && __builtin_cpu_supports("fma");
    /* AVX-512 (F, BW, VL; the CPU check includes the OS saving zmm state) */
    g_avx512f = !avx2_only && g_avx2_fma && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq");
    g_avx512vnni = g_avx512f && __builtin_cpu_supports("avx512vnni");
    g_avx512vbmi = g_avx512f && __builtin_cpu_supports("avx512vbmi");
    /* AVX-VNNI is CPUID leaf 7, subleaf 1, EAX bit 4 (not every compiler's
     * __builtin_cpu_supports knows it) */
    unsigned a = 0, b = 0, c = 0, d = 0;
    g_avxvnni = !avx2_only && g_avx2 && __get_cpuid_count(7, 1, &a, &b, &c, &d) && (a >> 4 & 1);
#endif
}

bool core_cpu_avx2_fma(void) {
    pthread_once(&g_once, probe);
    return g_avx2_fma;
}

bool core_cpu_avx2(void) {
    pthread_once(&g_once, probe);
    return g_avx2;
}

bool core_cpu_avx512f(void) {
    pthread_once(&g_once, probe);
    return g_avx512f;
}

bool core_cpu_avx512vnni(void) {
    pthread_once(&g_once, probe);
    return g_avx512vnni;
}

bool core_cpu_avx512vbmi(void) {
    pthread_once(&g_once, probe);
    return g_avx512vbmi;
}

bool core_cpu_avxvnni(void) {
    pthread_once(&g_once, probe);
    return g_avxvnni;
}

const char *core_cpu_isa_name(void) { return core_cpu_avx2_fma() ? "avx2+fma" : "portable"; }

unsigned nnfx_cpu_features(void) {
    return (core_cpu_avx2_fma() ? NNFX_CPU_AVX2_FMA : 0u) | (core_cpu_avx512f() ? NNFX_CPU_AVX512 : 0u) |
           (core_cpu_avx512vnni() || core_cpu_avxvnni() ? NNFX_CPU_INT8_DOT : 0u) |
           (core_cpu_avx512vbmi() ? NNFX_CPU_AVX512_VBMI : 0u);
}
