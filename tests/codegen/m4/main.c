/* Runs a generated model on the samples of samples.h (written by
 * qemu_m4.py) and prints each output float's bits in hex, one line per
 * sample, plus the SysTick ticks of each inference, through semihosting. */
#include <stdint.h>
#include <string.h>

#include "model.h"
#include "samples.h"

int sh_call(int op, const void *arg);

#define SYST_CSR (*(volatile uint32_t *)0xE000E010)
#define SYST_RVR (*(volatile uint32_t *)0xE000E014)
#define SYST_CVR (*(volatile uint32_t *)0xE000E018)

static void put_hex(char *p, uint32_t v) {
    int i;
    for (i = 0; i < 8; i++)
        p[i] = "0123456789abcdef"[(v >> (28 - 4 * i)) & 15];
}

int main(void) {
    static float in[model_INPUT0_SIZE], out[model_OUTPUT0_SIZE];
    static char line[9 * model_OUTPUT0_SIZE + 16];
    const float *ins[1] = {in};
    float *outs[1] = {out};
    int k, i;
    SYST_RVR = 0xFFFFFF;
    SYST_CVR = 0;
    SYST_CSR = 5; /* processor clock, enabled */
    for (k = 0; k < NSAMPLES; k++) {
        uint32_t t0, t1;
        memcpy(in, samples[k], sizeof in);
        t0 = SYST_CVR;
        if (model_run(ins, outs) != 0) return 1;
        t1 = SYST_CVR;
        for (i = 0; i < model_OUTPUT0_SIZE; i++) {
            uint32_t b;
            memcpy(&b, &out[i], 4);
            put_hex(line + 9 * i, b);
            line[9 * i + 8] = ' ';
        }
        put_hex(line + 9 * model_OUTPUT0_SIZE, (t0 - t1) & 0xFFFFFF);
        line[9 * model_OUTPUT0_SIZE + 8] = '\n';
        line[9 * model_OUTPUT0_SIZE + 9] = 0;
        sh_call(0x04, line);
    }
    return 0;
}
