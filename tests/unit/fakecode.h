/* fakecode.h -- code the CPU profiler's tests walk and name in their own
 * process: an anonymous executable mapping with three "methods" as the JIT
 * lays them out (a framed one: push rbp; mov rbp, rsp; a frameless one: sub
 * rsp first; an on-stack-replacement one: mov rax, [rbp]; push rax ...; and
 * a Tier0-like one as the OSR method's old code: push rbp; sub rsp, 0x50;
 * lea rbp, [rsp + 0x50]), and native functions of the test binary itself:
 * one built without a frame pointer, one with. Used by test_cpuprof.c (the fold) and
 * test_cpusym.c (prologs, naming). */
#ifndef JITSCOPE_TEST_FAKECODE_H
#define JITSCOPE_TEST_FAKECODE_H

#include <stdint.h>

enum { CODE_FRAMED = 0, CODE_FRAMELESS = 0x100, CODE_OSR = 0x200, CODE_OSR_OLD = 0x300 };

/* The mapping (4096 bytes, read and execute), NULL when it cannot be made;
 * munmap(p, 4096) gives it back. */
uint8_t *fake_code(void);
/* A function of the test binary (a native frame with a symbol). */
int fake_known_function(int x);
/* One without a frame pointer, whatever the build's flags. */
unsigned fake_frameless_function(unsigned x);
/* One that keeps a frame pointer (push rbp; mov rbp, rsp). */
int fake_framed_function(int x);

#endif
