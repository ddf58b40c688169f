/* fakecode.c -- code for the CPU profiler's tests to walk (see fakecode.h). */
#include "fakecode.h"

#include <string.h>
#include <sys/mman.h>

__attribute__((noinline)) int fake_known_function(int x) { return x * 7 + 1; }

__attribute__((noinline, optimize("omit-frame-pointer"), no_sanitize_address,
               no_sanitize("undefined"))) unsigned
fake_frameless_function(unsigned x)
{
    return x * 7u + 1u;
}

__attribute__((noinline, optimize("no-omit-frame-pointer"))) int fake_framed_function(int x)
{
    return fake_known_function(x) + 3;
}

uint8_t *fake_code(void)
{
    static const uint8_t framed[] = {0x55, 0x48, 0x8b, 0xec, 0x90, 0x90, 0x90,
                                     0x90, 0x90, 0x90, 0x90, 0x90, 0x5d, 0xc3};
    static const uint8_t frameless[] = {0x48, 0x83, 0xec, 0x28, 0x90, 0x90, 0x90,
                                        0x90, 0x48, 0x83, 0xc4, 0x28, 0xc3};
    static const uint8_t osr[] = {0x48, 0x8b, 0x45, 0x00, 0x50, 0x48, 0x83, 0xec, 0x10,
                                  0x48, 0x8d, 0x6c, 0x24, 0x10, 0x90, 0x90, 0x90, 0xc3};
    /* Tier0-like: push rbp; sub rsp, 0x50; lea rbp, [rsp + 0x50]: rbp - rsp is 0x50 */
    static const uint8_t tier0[] = {0x55, 0x48, 0x83, 0xec, 0x50, 0x48, 0x8d,
                                    0x6c, 0x24, 0x50, 0x90, 0x90, 0x5d, 0xc3};
    uint8_t *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

    if (p == MAP_FAILED)
        return NULL;
    memset(p, 0xcc, 4096);
    memcpy(p + CODE_FRAMED, framed, sizeof(framed));
    memcpy(p + CODE_FRAMELESS, frameless, sizeof(frameless));
    memcpy(p + CODE_OSR, osr, sizeof(osr));
    memcpy(p + CODE_OSR_OLD, tier0, sizeof(tier0));
    if (mprotect(p, 4096, PROT_READ | PROT_EXEC) != 0) {
        munmap(p, 4096);
        return NULL;
    }
    return p;
}
