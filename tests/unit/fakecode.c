/* fakecode.c -- code for the CPU profiler's tests to walk (see fakecode.h). */
#include "fakecode.h"

#include <string.h>
#include <sys/mman.h>

__attribute__((noinline)) int fake_known_function(int x) { return x * 7 + 1; }

uint8_t *fake_code(void)
{
    static const uint8_t framed[] = {0x55, 0x48, 0x8b, 0xec, 0x90, 0x90, 0x90,
                                     0x90, 0x90, 0x90, 0x90, 0x90, 0x5d, 0xc3};
    static const uint8_t frameless[] = {0x48, 0x83, 0xec, 0x28, 0x90, 0x90, 0x90,
                                        0x90, 0x48, 0x83, 0xc4, 0x28, 0xc3};
    static const uint8_t osr[] = {0x48, 0x8b, 0x45, 0x00, 0x50, 0x48, 0x83, 0xec, 0x10,
                                  0x48, 0x8d, 0x6c, 0x24, 0x10, 0x90, 0x90, 0x90, 0xc3};
    uint8_t *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

    if (p == MAP_FAILED)
        return NULL;
    memset(p, 0xcc, 4096);
    memcpy(p + CODE_FRAMED, framed, sizeof(framed));
    memcpy(p + CODE_FRAMELESS, frameless, sizeof(frameless));
    memcpy(p + CODE_OSR, osr, sizeof(osr));
    memcpy(p + CODE_OSR_OLD, framed, sizeof(framed));
    if (mprotect(p, 4096, PROT_READ | PROT_EXEC) != 0) {
        munmap(p, 4096);
        return NULL;
    }
    return p;
}
