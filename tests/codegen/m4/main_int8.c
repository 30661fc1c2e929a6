/* Runs an integer-only generated model (`nnfx codegen --int8-io`) on the
 * int8 samples of samples8.h (written by qemu_m4.py) and prints each
 * output byte in hex, one line per sample, plus the SysTick ticks of each
 * inference, through semihosting. */
#include <stdint.h>
#include <string.h>

#include "model.h"
#include "samples8.h"

int sh_call(int op, const void *arg);

#define SYST_CSR (*(volatile uint32_t *)0xE000E010)
#define SYST_RVR (*(volatile uint32_t *)0xE000E014)
#define SYST_CVR (*(volatile uint32_t *)0xE000E018)

static void put_hex(char *p, uint32_t v, int digits) {
    int i;
    for (i = 0; i < digits; i++)
        p[i] = "0123456789abcdef"[(v >> (4 * (digits - 1 - i))) & 15];
}

int main(void) {
    static int8_t in[model_INPUT0_SIZE], out[model_OUTPUT0_SIZE];
    static char line[3 * model_OUTPUT0_SIZE + 16];
    const int8_t *ins[1] = {in};
    int8_t *outs[1] = {out};
    int k, i;
    SYST_RVR = 0xFFFFFF;
    SYST_CVR = 0;
    SYST_CSR = 5; /* processor clock, enabled */
    for (k = 0; k < NSAMPLES; k++) {
        uint32_t t0, t1;
        memcpy(in, samples8[k], sizeof in);
        t0 = SYST_CVR;
        if (model_run_int8(ins, outs) != 0) return 1;
        t1 = SYST_CVR;
        for (i = 0; i < model_OUTPUT0_SIZE; i++) {
            put_hex(line + 3 * i, (uint8_t)out[i], 2);
            line[3 * i + 2] = ' ';
        }
        put_hex(line + 3 * model_OUTPUT0_SIZE, (t0 - t1) & 0xFFFFFF, 8);
        line[3 * model_OUTPUT0_SIZE + 8] = '\n';
        line[3 * model_OUTPUT0_SIZE + 9] = 0;
        sh_call(0x04, line);
    }
    return 0;
}
