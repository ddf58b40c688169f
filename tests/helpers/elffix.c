/* elffix.c -- a small shared library for the ELF symbol tests
 * (tests/unit/test_cpusym.c): one exported function and two that only a full
 * symbol table names (static), so a stripped copy keeps the first in .dynsym
 * and loses the others, which its debug file, or its .gnu_debugdata, names
 * again. The Makefile builds the variants into build/tests/elf/. */
__attribute__((visibility("default"))) int elffix_exported(int x);

__attribute__((noinline)) static int elffix_hidden_one(int x) { return x * 3 + 1; }

__attribute__((noinline)) static int elffix_hidden_two(int x) { return elffix_hidden_one(x) ^ 5; }

int elffix_exported(int x) { return elffix_hidden_two(x) + elffix_hidden_one(x + 1); }
