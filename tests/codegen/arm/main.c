/* Runs a generated model on the samples of samples.h (written by
 * qemu_arm.py) and prints, through semihosting, first a calibration line
 * (the SysTick ticks of CALIB_LOOPS iterations of a two-instruction loop,
 * so the harness converts ticks to instructions under QEMU's -icount
 * whatever the board's clock), then one line per sample: each output
 * element in hex (a float's bits, or with IO_INT8 an int8 byte) and the
 * SysTick ticks of that inference. With IO_INT8 (samples.h) the model is
 * called through NAME_run_int8 (`nnfx codegen --int8 --int8-io`). */
#include <stdint.h>
#include <string.h>

#include "model.h"
#include "samples.h"

int sh_call(int op, const void *arg);

#define SYST_CSR    (*(volatile uint32_t *)0xE000E010)
#define SYST_RVR    (*(volatile uint32_t *)0xE000E014)
#define SYST_CVR    (*(volatile uint32_t *)0xE000E018)
#define CALIB_LOOPS 100000u

#ifdef IO_INT8
typedef int8_t io_t;
#define HEX_DIGITS 2
#define RUN        model_run_int8
#else
typedef float io_t;
#define HEX_DIGITS 8
#define RUN        model_run
#endif

/* Writes the low 4*n bits of v as n hex digits at p. */
static void put_hex(char *p, uint32_t v, int n) {
    int i;
    for (i = 0; i < n; i++)
        p[i] = "0123456789abcdef"[(v >> (4 * (n - 1 - i))) & 15];
}

/* Prints ticks as a line "c TICKS". */
static void calibrate(void) {
    static char line[16];
    uint32_t t0, t1, n = CALIB_LOOPS;
    t0 = SYST_CVR;
#ifdef __ARM_ARCH_6M__ /* Thumb-1: gcc's inline assembly is in divided syntax, where sub sets the flags */
    __asm__ volatile("1: sub %0, #1\n bne 1b" : "+l"(n) : : "cc");
#else
    __asm__ volatile("1: subs %0, %0, #1\n bne 1b" : "+l"(n) : : "cc");
#endif
    t1 = SYST_CVR;
    line[0] = 'c';
    line[1] = ' ';
    put_hex(line + 2, (t0 - t1) & 0xFFFFFF, 8);
    line[10] = '\n';
    line[11] = 0;
    sh_call(0x04, line);
}

int main(void) {
    static io_t in[model_INPUT0_SIZE], out[model_OUTPUT0_SIZE];
    static char line[(HEX_DIGITS + 1) * model_OUTPUT0_SIZE + 16];
    const io_t *ins[1] = {in};
    io_t *outs[1] = {out};
    int k, i;
    SYST_RVR = 0xFFFFFF;
    SYST_CVR = 0;
    SYST_CSR = 5; /* processor clock, enabled */
    calibrate();
    for (k = 0; k < NSAMPLES; k++) {
        uint32_t t0, t1;
        char *p = line;
        memcpy(in, samples[k], sizeof in);
        t0 = SYST_CVR;
        if (RUN(ins, outs) != 0) return 1;
        t1 = SYST_CVR;
        for (i = 0; i < model_OUTPUT0_SIZE; i++) {
            uint32_t b = 0;
            memcpy(&b, &out[i], sizeof out[i]);
            put_hex(p, b, HEX_DIGITS);
            p[HEX_DIGITS] = ' ';
            p += HEX_DIGITS + 1;
        }
        put_hex(p, (t0 - t1) & 0xFFFFFF, 8);
        p[8] = '\n';
        p[9] = 0;
        sh_call(0x04, line);
    }
    return 0;
}
