/* Real faults for the tests of the guarded trial runs (test-guarded-run.c, test-bw-trial.c): each
 * raises its signal in the calling thread, as a kernel that faults would. */
#ifndef ROOFTIME_TEST_FAULTS_H
#define ROOFTIME_TEST_FAULTS_H

#include <sys/mman.h>

/* Always an invalid opcode on x86-64 (ud2): SIGILL; elsewhere the compiler's trap instruction. */
static inline void fault_sigill(void)
{
#if defined(__x86_64__)
    __asm__ volatile("ud2");
#else
    __builtin_trap();
#endif
}

/* A store of v into a page mapped without access: a real SIGSEGV (not a null pointer, which UBSan
 * would catch first). */
static inline void fault_sigsegv(char v)
{
    volatile char *p = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p != (volatile char *)MAP_FAILED)
        p[0] = v;
}

#endif
