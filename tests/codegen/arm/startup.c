/* Minimal Cortex-M start-up for QEMU's MPS2/MPS3 boards with semihosting
 * (mps2-an385 Cortex-M3, mps2-an386 Cortex-M4, mps3-an547 Cortex-M55; also
 * linked, not run, for the Cortex-M0+): a vector table, .data/.bss set-up,
 * the FPU (and on the M55 Helium, which shares its enable) turned on when
 * the build uses one, main(), and exit through semihosting (no newlib start
 * files). */
#include <stdint.h>

extern uint32_t _data_load[], _data_start[], _data_end[], _bss_start[], _bss_end[], _stack_top[];
int main(void);
void reset_handler(void);

/* Semihosting call `op` with parameter block `arg`; returns r0. */
int sh_call(int op, const void *arg) {
    register int r0 __asm__("r0") = op;
    register const void *r1 __asm__("r1") = arg;
    __asm__ volatile("bkpt 0xAB" : "+r"(r0) : "r"(r1) : "memory");
    return r0;
}

static void fault_handler(void) {
    sh_call(0x04, "hard fault\n");
    sh_call(0x18, (const void *)0x20023); /* ADP_Stopped_RunTimeErrorUnknown: exit 1 */
    for (;;) {
    }
}

__attribute__((section(".vectors"), used)) static const void *const vectors[16] = {_stack_top,
                                                                                   (const void *)reset_handler,
                                                                                   (const void *)fault_handler,
                                                                                   (const void *)fault_handler,
                                                                                   (const void *)fault_handler,
                                                                                   (const void *)fault_handler,
                                                                                   (const void *)fault_handler,
                                                                                   (const void *)fault_handler};

/* Reset entry: copies .data, clears .bss, enables the FPU, runs main()
 * and exits QEMU with main's status (0 -> exit 0, else exit 1). */
void reset_handler(void) {
    uint32_t *s = _data_load, *d = _data_start;
    while (d < _data_end)
        *d++ = *s++;
    for (d = _bss_start; d < _bss_end;)
        *d++ = 0;
#if defined(__ARM_FP) || defined(__ARM_FEATURE_MVE)
    *(volatile uint32_t *)0xE000ED88 |= 0xFu << 20; /* CPACR: CP10, CP11 full access */
#endif
    __asm__ volatile("dsb\n isb");
    int rc = main();
    /* ADP_Stopped_ApplicationExit (0x20026): QEMU exits 0; anything else: 1 */
    sh_call(0x18, (const void *)(rc == 0 ? 0x20026 : 0x20023));
    for (;;) {
    }
}
