/* Reads requantization cases from stdin, one a line, and prints the
 * results of src/rt/nnfx_rt_qfixed.h, one a line, for
 * check_qfixed.py to compare with its own integer reimplementation of
 * TFLite's formulas:
 *   s A B          -> nnfx_rt_qf_srdhm(A, B)
 *   r X E          -> nnfx_rt_qf_rdbpot(X, E)
 *   m X QM SHIFT   -> nnfx_rt_qf_mul(X, QM, SHIFT)
 *   q BITS         -> "QM SHIFT" of nnfx_rt_qf_quantize_multiplier(the
 *                     double whose IEEE bits are BITS, hex)
 *   a A AZP B BZP SA SB SY YZP LO HI SUB (scales as hex double bits)
 *                  -> nnfx_rt_qf_add after nnfx_rt_qf_quantize_add
 *   u A AZP B BZP QM SHIFT YZP LO HI -> nnfx_rt_qf_mul_q8
 *   f X QM SHIFT ZP -> nnfx_rt_qf_fast(X, ...) after nnfx_rt_qf_fast_k(QM,
 *                     SHIFT, ZP), or "-" where that declines */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "nnfx_rt_qfixed.h"

static double dbl(uint64_t bits) {
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

int main(void) {
    char op[4];
    while (scanf("%3s", op) == 1) {
        long long a, b, c, d, e, f, g, h, i;
        unsigned long long s1, s2, s3;
        if (op[0] == 's' && scanf("%lld %lld", &a, &b) == 2)
            printf("%" PRId32 "\n", nnfx_rt_qf_srdhm((int32_t)a, (int32_t)b));
        else if (op[0] == 'r' && scanf("%lld %lld", &a, &b) == 2)
            printf("%" PRId32 "\n", nnfx_rt_qf_rdbpot((int32_t)a, (int)b));
        else if (op[0] == 'm' && scanf("%lld %lld %lld", &a, &b, &c) == 3)
            printf("%" PRId32 "\n", nnfx_rt_qf_mul((int32_t)a, (int32_t)b, (int)c));
        else if (op[0] == 'q' && scanf("%llx", &s1) == 1) {
            int32_t qm;
            int sh;
            nnfx_rt_qf_quantize_multiplier(dbl(s1), &qm, &sh);
            printf("%" PRId32 " %d\n", qm, sh);
        } else if (op[0] == 'a' && scanf("%lld %lld %lld %lld %llx %llx %llx %lld %lld %lld %lld", &a, &b, &c, &d, &s1,
                                         &s2, &s3, &e, &f, &g, &h) == 11) {
            nnfx_rt_qf_addp p;
            nnfx_rt_qf_quantize_add(dbl(s1), (int32_t)b, dbl(s2), (int32_t)d, dbl(s3), (int32_t)e, (int32_t)f,
                                    (int32_t)g, &p);
            printf("%d\n", nnfx_rt_qf_add(&p, (int32_t)a, (int32_t)c, (int)h));
        } else if (op[0] == 'u' &&
                   scanf("%lld %lld %lld %lld %lld %lld %lld %lld %lld", &a, &b, &c, &d, &e, &f, &g, &h, &i) == 9)
            printf("%d\n", nnfx_rt_qf_mul_q8((int32_t)a, (int32_t)b, (int32_t)c, (int32_t)d, (int32_t)e, (int)f,
                                             (int32_t)g, (int32_t)h, (int32_t)i));
        else if (op[0] == 'f' && scanf("%lld %lld %lld %lld", &a, &b, &c, &d) == 4) {
            int64_t k;
            int s1;
            if (nnfx_rt_qf_fast_k((int32_t)b, (int)c, (int32_t)d, &k, &s1))
                printf("%" PRId32 "\n", nnfx_rt_qf_fast((int32_t)a, (int32_t)b, k, s1));
            else
                printf("-\n");
        } else {
            fprintf(stderr, "qfixed_driver: bad case '%s'\n", op);
            return 2;
        }
    }
    return 0;
}
