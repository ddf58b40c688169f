/* test_cpusym.c -- unit tests for how the CPU profiler names a sample's
 * addresses: the maps parser (server/procmaps.c) and the whole /proc file it
 * reads (server/procfile.c), ELF symbols (server/elfsyms.c: this test binary,
 * libc, and the variants of tests/helpers/elffix.c the Makefile builds in
 * build/tests/elf: full, stripped with a debug file found by its debug link,
 * by build ID in a debuginfod cache, by CRC without a build ID, MiniDebugInfo
 * in .gnu_debugdata, and debug files of other builds that must not be taken;
 * server/debugfile.c), libc's internal functions named from Debian's
 * libc6-dbg, and the frame naming with its prolog reading (server/cpusym.c,
 * on this process: fakecode.h's "methods", and a stripped library loaded
 * here, named through its debug file as the sampler would).
 * Build: make build/tests/test_cpusym && build/tests/test_cpusym
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check.h"
#include "cpusym.h"
#include "debugfile.h"
#include "elfsyms.h"
#include "fakecode.h"
#include "procfile.h"
#include "procmaps.h"

/* ---- maps ------------------------------------------------------------------------- */

TEST(maps_parsed_and_classified)
{
    static const char text[] =
        "556f5b7f2000-556f5b7fe000 r-xp 00005000 fe:00 345402   /usr/share/dotnet/dotnet\n"
        "556f5b7fe000-556f5b800000 r--p 00011000 fe:00 345402   /usr/share/dotnet/dotnet\n"
        "7f43b6a50000-7f43b6a51000 r-xs 00000000 00:01 170024   /memfd:doublemapper (deleted)\n"
        "7f43b6a90000-7f43b75dc000 r-xp 00000000 fe:00 350922   /x/System.Private.CoreLib.dll\n"
        "7f43b7000000-7f43b7001000 r-xp 00000000 fe:00 350922   /x/overlap.so\n" /* overlaps */
        "7f43b8000000-7f43b8001000 rwxp 00000000 00:00 0 \n"
        "garbage line\n"
        "7ffd1c3f5000-7ffd1c3f7000 r-xp 00000000 00:00 0          [vdso]";
    procmaps m;
    const procmaps_entry *e;

    CHECK(procmaps_parse(&m, text, sizeof(text) - 1) == 0, "parsed");
    CHECK(m.count == 5, "the executable, ordered mappings (%zu)", m.count);
    e = procmaps_find(&m, 0x556f5b7f3000ull);
    CHECK(e && e->kind == PROCMAPS_ELF && e->offset == 0x5000 && e->inode == 345402 &&
              e->dev_major == 0xfe && strcmp(procmaps_path(&m, e), "/usr/share/dotnet/dotnet") == 0,
          "an ELF file with its offset, inode and device");
    e = procmaps_find(&m, 0x7f43b6a50010ull);
    CHECK(e && e->kind == PROCMAPS_JIT, "the JIT's double mapping");
    e = procmaps_find(&m, 0x7f43b6a90010ull);
    CHECK(e && e->kind == PROCMAPS_IMAGE, "a managed image (.dll)");
    e = procmaps_find(&m, 0x7f43b8000010ull);
    CHECK(e && e->kind == PROCMAPS_JIT && procmaps_path(&m, e)[0] == '\0',
          "anonymous executable memory");
    e = procmaps_find(&m, 0x7ffd1c3f5000ull);
    CHECK(e && e->kind == PROCMAPS_SPECIAL, "the vDSO (last line without a newline)");
    CHECK(!procmaps_find(&m, 0x556f5b7fe000ull) && !procmaps_find(&m, 0x1000),
          "a mapping that is not executable, and nothing, are not found");
    procmaps_free(&m);
    CHECK(procmaps_parse(&m, "", 0) == 0 && m.count == 0, "an empty file");
    procmaps_free(&m);
}

/* A whole /proc file: this process's maps, read to its end, name this test
 * binary; under a bound smaller than the file, what fits is kept and it says
 * so; a file that is not there fails with errno. */
TEST(proc_files_read_whole_or_cut)
{
    char *text = NULL, self[512];
    size_t length = 0;
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    int rc;

    CHECK(n > 0, "readlink");
    self[n > 0 ? n : 0] = '\0';
    rc = procfile_read(getpid(), "maps", 64u << 20, &text, &length);
    CHECK(rc == 0 && text && length > 0, "read to its end (%d, %zu bytes)", rc, length);
    CHECK(text && memmem(text, length, self, strlen(self)) != NULL, "it names this binary (%s)",
          self);
    free(text);
    rc = procfile_read(getpid(), "maps", 1024, &text, &length);
    CHECK(rc == 1 && text == NULL && length == 0, "a bound below the first block: cut (%d)", rc);
    free(text);
    rc = procfile_read(getpid(), "environ", 65536, &text, &length);
    CHECK(rc == 0 || rc == 1, "environ read (%d)", rc);
    free(text);
    errno = 0;
    rc = procfile_read(getpid(), "no-such-file", 65536, &text, &length);
    CHECK(rc == -1 && errno == ENOENT && text == NULL, "a missing file: -1, ENOENT (%d)", rc);
}

/* ---- ELF symbols ------------------------------------------------------------------ */

/* The file offset of addr in this process, and its mapping's path. */
static int own_offset(uint64_t addr, uint64_t *offset, char *path, size_t size)
{
    procmaps m;
    const procmaps_entry *e;

    if (procmaps_read(&m, getpid()) != 0)
        return -1;
    e = procmaps_find(&m, addr);
    if (e) {
        *offset = addr - e->start + e->offset;
        snprintf(path, size, "%s", procmaps_path(&m, e));
    }
    procmaps_free(&m);
    return e ? 0 : -1;
}

TEST(elf_symbols_of_this_binary_and_libc)
{
    uint64_t offset = 0, start = 0;
    char path[PROCMAPS_PATH_MAX + 1] = "";
    const char *name = NULL;
    elfsyms t;
    int fd;

    CHECK(own_offset((uint64_t)(uintptr_t)&fake_known_function + 3, &offset, path, sizeof(path)) ==
              0,
          "this function is in a mapping");
    fd = open(path, O_RDONLY);
    CHECK(fd >= 0 && elfsyms_load(&t, fd) == 0, "this binary's symbols read (%s)", path);
    CHECK(elfsyms_find(&t, offset, &name, &start) == 1 && name &&
              strcmp(name, "fake_known_function") == 0,
          "an address inside a function names it (%s)", name ? name : "none");
    elfsyms_free(&t);
    close(fd);

    CHECK(own_offset((uint64_t)(uintptr_t)&getpid + 1, &offset, path, sizeof(path)) == 0,
          "libc's getpid is in a mapping");
    fd = open(path, O_RDONLY);
    CHECK(fd >= 0 && elfsyms_load(&t, fd) == 0 && t.start_count > 100,
          "libc read, with its unwind table's function starts (%zu)", t.start_count);
    name = NULL;
    CHECK(elfsyms_find(&t, offset, &name, &start) == 1 && name &&
              (strcmp(name, "getpid") == 0 || strcmp(name, "__getpid") == 0),
          "getpid by its exported name (%s in %s)", name ? name : "none", path);
    elfsyms_free(&t);
    close(fd);
    fd = open("/proc/self/status", O_RDONLY);
    CHECK(elfsyms_load(&t, fd) == -1, "a file that is not ELF: refused");
    close(fd);
}

/* ---- debug files --------------------------------------------------------------------- */

static char elf_dir[512];

/* build/tests/elf, next to this binary. */
static const char *elf_path(const char *name, char *out, size_t size)
{
    char self[512];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

    if (!elf_dir[0] && n > 0) {
        self[n] = '\0';
        snprintf(elf_dir, sizeof(elf_dir), "%s/elf", dirname(self));
    }
    snprintf(out, size, "%s/%s", elf_dir, name);
    return out;
}

static int load(const char *name, elfsyms *t)
{
    char path[768];
    int fd = open(elf_path(name, path, sizeof(path)), O_RDONLY);
    int rc = fd >= 0 ? elfsyms_load(t, fd) : -1;

    if (fd >= 0)
        close(fd);
    return rc;
}

/* The file offset (as a mapping gives it) of a function of the full build. */
static uint64_t offset_of(const char *function)
{
    elfsyms t;
    uint64_t off = 0;

    if (load("full.so", &t) != 0)
        return 0;
    for (size_t i = 0; i < t.symbol_count; i++)
        if (strcmp(t.text + t.symbols[i].name, function) == 0)
            for (unsigned k = 0; k < t.load_count; k++)
                if (t.symbols[i].start >= t.loads[k].vaddr &&
                    t.symbols[i].start - t.loads[k].vaddr < t.loads[k].filesz)
                    off = t.symbols[i].start - t.loads[k].vaddr + t.loads[k].offset + 1;
    elfsyms_free(&t);
    return off;
}

/* What t names at off: the symbol, or "" (an unwind start or nothing). */
static const char *named(const elfsyms *t, uint64_t off)
{
    const char *name = NULL;
    uint64_t start = 0;
    return elfsyms_find(t, off, &name, &start) == 1 && name ? name : "";
}

/* Loads `name`, then its debug file: what it names at off before and after,
 * and what debugfile_add answered. */
static int with_debug(const char *name, uint64_t off, char *before, char *after, char *found)
{
    char path[768];
    elfsyms t;
    int rc;

    if (load(name, &t) != 0)
        return -9;
    snprintf(before, 64, "%s", named(&t, off));
    found[0] = '\0';
    rc = debugfile_add(&t, elf_path(name, path, sizeof(path)), 0, found, 768);
    snprintf(after, 64, "%s", named(&t, off));
    elfsyms_free(&t);
    return rc;
}

TEST(debug_files_name_what_stripping_took_away)
{
    uint64_t hidden = offset_of("elffix_hidden_one"), exported = offset_of("elffix_exported");
    char before[64], after[64], found[768], want[768], cache[768];
    elfsyms t;

    CHECK(hidden && exported, "the full build names its functions");
    CHECK(load("full.so", &t) == 0 && t.names == ELFSYMS_NAMES_SYMTAB && t.build_id_length == 20,
          "full: its own .symtab, a 20-byte build ID");
    elfsyms_free(&t);
    CHECK(load("libfix.so", &t) == 0 && t.names == ELFSYMS_NAMES_EXPORTS &&
              strcmp(t.debuglink, "libfix.so.dbg") == 0 &&
              strcmp(named(&t, exported), "elffix_exported") == 0 && !named(&t, hidden)[0],
          "stripped: exports only (a static function unnamed), its debug link read");
    elfsyms_free(&t);

    CHECK(with_debug("libfix.so", hidden, before, after, found) == 1 && !before[0] &&
              strcmp(after, "elffix_hidden_one") == 0 &&
              strcmp(found, elf_path("libfix.so.dbg", want, sizeof(want))) == 0,
          "the debug file next to it (as dotnet-symbol leaves it) names the static function "
          "(%s from %s)",
          after, found);
    unsetenv("DEBUGINFOD_CACHE_PATH");
    CHECK(with_debug("byid/libfix.so", hidden, before, after, found) == 0 && !after[0],
          "no debug link and no file for its build ID: unnamed");
    setenv("DEBUGINFOD_CACHE_PATH", elf_path("cache", cache, sizeof(cache)), 1);
    CHECK(with_debug("byid/libfix.so", hidden, before, after, found) == 1 &&
              strcmp(after, "elffix_hidden_one") == 0 && strstr(found, "/debuginfo"),
          "by build ID in debuginfod's cache (%s)", found);
    unsetenv("DEBUGINFOD_CACHE_PATH");
    CHECK(with_debug("noid/libnoid.so", hidden, before, after, found) == 1 &&
              strcmp(after, "elffix_hidden_one") == 0,
          "no build ID: the debug link's CRC proves the file");
    CHECK(with_debug("wrongcrc/libnoid.so", hidden, before, after, found) == 0 && !after[0],
          "a file of that name with another CRC: not taken");
    CHECK(with_debug("wrongid/libfix.so", hidden, before, after, found) == 0 && !after[0],
          "a debug file of another build ID: not taken");
    CHECK(load("mini.so", &t) == 0 && t.names == ELFSYMS_NAMES_DEBUGDATA &&
              strcmp(named(&t, hidden), "elffix_hidden_one") == 0,
          "MiniDebugInfo: the xz symbol table in .gnu_debugdata names it");
    elfsyms_free(&t);
}

/* Debian's libc6-dbg (scripts/deps.sh installs it for the tests) names libc's
 * internal functions, start_thread among them: the root of every thread. */
TEST(libc_internals_named_from_its_debug_package)
{
    char path[PROCMAPS_PATH_MAX + 1] = "", found[768] = "";
    uint64_t offset = 0, start = 0;
    const char *name = NULL;
    elfsyms t;
    int fd;

    CHECK(own_offset((uint64_t)(uintptr_t)&getpid + 1, &offset, path, sizeof(path)) == 0,
          "libc is mapped");
    fd = open(path, O_RDONLY);
    CHECK(fd >= 0 && elfsyms_load(&t, fd) == 0 && t.names == ELFSYMS_NAMES_EXPORTS &&
              t.build_id_length,
          "libc: stripped to its exports, with a build ID (%s)", path);
    close(fd);
    for (size_t i = 0; i < t.symbol_count && !start; i++)
        start = strcmp(t.text + t.symbols[i].name, "start_thread") == 0;
    CHECK(!start, "start_thread is not exported");
    CHECK(debugfile_add(&t, path, getpid(), found, sizeof(found)) == 1 &&
              strstr(found, "/usr/lib/debug/.build-id/"),
          "its debug file found by build ID (%s)", found);
    for (size_t i = 0; i < t.symbol_count && !start; i++)
        if (strcmp(t.text + t.symbols[i].name, "start_thread") == 0)
            start = t.symbols[i].start;
    for (unsigned k = 0; k < t.load_count && start; k++)
        if (start >= t.loads[k].vaddr && start - t.loads[k].vaddr < t.loads[k].filesz)
            offset = start - t.loads[k].vaddr + t.loads[k].offset;
    CHECK(start && elfsyms_find(&t, offset + 4, &name, &start) == 1 && name &&
              strcmp(name, "start_thread") == 0,
          "start_thread named (%s)", name ? name : "none");
    elfsyms_free(&t);
}

/* The sampler's path: an address in a stripped library this process loaded
 * is named from the debug file next to the library. */
TEST(stripped_library_named_through_its_debug_file)
{
    char path[768];
    void *lib = dlopen(elf_path("libfix.so", path, sizeof(path)), RTLD_NOW | RTLD_LOCAL);
    void *exported = lib ? dlsym(lib, "elffix_exported") : NULL;
    uint64_t hidden = offset_of("elffix_hidden_one"), exp_off = offset_of("elffix_exported");
    cpusym y;
    cpusym_ip *e;

    CHECK(exported && hidden && exp_off, "loaded (%s)", lib ? "ok" : dlerror());
    if (!exported)
        return;
    CHECK(cpusym_init(&y, getpid()) == 0, "naming set up on this process");
    e = cpusym_lookup(&y, (uint64_t)(uintptr_t)exported + (hidden - exp_off), 0);
    CHECK(e && e->kind == CPUSYM_NATIVE &&
              strcmp(y.names[e->symbol].name, "elffix_hidden_one") == 0 &&
              strcmp(y.names[e->symbol].module, "libfix.so") == 0,
          "the static function by its name, in its module (%s)",
          e ? y.names[e->symbol].name : "none");
    cpusym_free(&y);
    dlclose(lib);
}

/* ---- naming and prologs ---------------------------------------------------------------- */

TEST(prologs_read_from_the_process)
{
    uint8_t *code = fake_code();
    cpusym y;
    cpusym_code c;
    cpusym_ip *e;

    CHECK(code != NULL, "an executable mapping");
    if (!code)
        return;
    CHECK(cpusym_init(&y, getpid()) == 0, "naming set up on this process");
    c = cpusym_code_info(&y, (uint64_t)(uintptr_t)code + CODE_FRAMED);
    CHECK(c.flags == (CPUSYM_CODE_KNOWN | CPUSYM_CODE_FRAMED | CPUSYM_CODE_FP_DELTA) &&
              c.prolog_end == 4 && c.fp_delta == 0,
          "push rbp; mov rbp, rsp: framed, the frame set after 4 bytes, rbp = rsp (%u, %u, %u)",
          c.flags, c.prolog_end, c.fp_delta);
    c = cpusym_code_info(&y, (uint64_t)(uintptr_t)code + CODE_OSR_OLD);
    CHECK(c.flags == (CPUSYM_CODE_KNOWN | CPUSYM_CODE_FRAMED | CPUSYM_CODE_FP_DELTA) &&
              c.prolog_end == 10 && c.fp_delta == 0x50,
          "push rbp; sub rsp, 0x50; lea rbp, [rsp + 0x50]: rbp - rsp 0x50 (%u, %u, %#x)", c.flags,
          c.prolog_end, c.fp_delta);
    {
        uint32_t d0 = 1, d1 = 0, d4 = 0, d5 = 0, d9 = 0, d10 = 0;
        CHECK(cpusym_prolog_depth(&c, 0, &d0) && d0 == 0 && cpusym_prolog_depth(&c, 1, &d1) &&
                  d1 == 8 && cpusym_prolog_depth(&c, 4, &d4) && d4 == 8 &&
                  cpusym_prolog_depth(&c, 5, &d5) && d5 == 0x58 &&
                  cpusym_prolog_depth(&c, 9, &d9) && d9 == 0x58 &&
                  !cpusym_prolog_depth(&c, 10, &d10),
              "the return address in the prolog: at rsp, after push rbp rsp + 8, after sub rsp "
              "rsp + 0x58; once rbp is set the chain has it (%u %u %u %u %u)",
              d0, d1, d4, d5, d9);
    }
    c = cpusym_code_info(&y, (uint64_t)(uintptr_t)code + CODE_FRAMELESS);
    CHECK(c.flags == CPUSYM_CODE_KNOWN, "sub rsp first: no frame pointer (%u)", c.flags);
    c = cpusym_code_info(&y, (uint64_t)(uintptr_t)code + CODE_OSR);
    CHECK(c.flags == (CPUSYM_CODE_KNOWN | CPUSYM_CODE_FRAMED | CPUSYM_CODE_OSR) &&
              c.prolog_end == 14,
          "mov rax, [rbp]; push rax ...: on-stack replacement, frame set after 14 bytes (%u, %u)",
          c.flags, c.prolog_end);
    c = cpusym_code_info(&y, 0x10);
    CHECK(c.flags == 0, "an address that cannot be read: nothing known");
    CHECK(cpusym_code_peek(&y, (uint64_t)(uintptr_t)code + CODE_FRAMED, &c) &&
              c.flags & CPUSYM_CODE_FRAMED,
          "read once, then cached");
    e = cpusym_lookup(&y, (uint64_t)(uintptr_t)code + 5, 0);
    CHECK(e && e->kind == CPUSYM_MANAGED && e->state == CPUSYM_UNKNOWN,
          "anonymous executable memory: managed, not known yet");
    e = cpusym_lookup(&y, (uint64_t)(uintptr_t)&fake_known_function + 2, 0);
    CHECK(e && e->kind == CPUSYM_NATIVE && e->symbol >= CPUSYM_LABELS &&
              strcmp(y.names[e->symbol].name, "fake_known_function") == 0 &&
              y.names[e->symbol].module && strcmp(y.names[e->symbol].module, "test_cpusym") == 0,
          "a function of this binary: its name and module");
    e = cpusym_lookup(&y, 0x10, 0);
    CHECK(e && e->kind == CPUSYM_NATIVE && e->symbol == CPUSYM_LABEL_UNMAPPED,
          "an address in no mapping");
    CHECK(cpusym_lookup(&y, 0x10, 0) == e, "cached");
    cpusym_free(&y);
    munmap(code, 4096);
}

/* The unwind rules of this binary's own functions, from its .eh_frame: at a
 * function's first byte the return address is at rsp (CFA rsp + 8); after
 * push rbp at rsp + 8 (CFA rsp + 16, rbp saved at CFA - 16); after mov rbp,
 * rsp the CFA is rbp + 16. */
TEST(unwind_rules_of_this_binary)
{
    const uint8_t *f = (const uint8_t *)(uintptr_t)&fake_framed_function;
    uint64_t at = (uint64_t)(uintptr_t)f;
    cpusym y;
    cpusym_ip *e;
    size_t push = 0, mov = 0, i;

    for (i = 0; i + 3 <= 16; i++) {
        if (!push && f[i] == 0x55)
            push = i + 1;
        if (push && f[i] == 0x48 && f[i + 1] == 0x89 && f[i + 2] == 0xe5) {
            mov = i + 3;
            break;
        }
    }
    CHECK(push && mov, "fake_framed_function begins with push rbp; mov rbp, rsp");
    CHECK(cpusym_init(&y, getpid()) == 0, "naming set up on this process");
    e = cpusym_lookup(&y, at, 0);
    CHECK(e && cpusym_leaf_rule(&y, e) == CPUSYM_RULE_RSP && e->cfa_off == 8 && !e->rbp_saved,
          "at its first byte: CFA rsp + 8 (%u, %u)", e ? e->rule : 0, e ? e->cfa_off : 0);
    e = cpusym_lookup(&y, at + push, 0);
    CHECK(e && cpusym_leaf_rule(&y, e) == CPUSYM_RULE_RSP && e->cfa_off == 16 && e->rbp_saved &&
              e->rbp_off == -16,
          "after push rbp: CFA rsp + 16, rbp at CFA - 16 (%u, %u, %d)", e ? e->rule : 0,
          e ? e->cfa_off : 0, e ? e->rbp_off : 0);
    e = cpusym_lookup(&y, at + mov, 0);
    CHECK(e && cpusym_leaf_rule(&y, e) == CPUSYM_RULE_RBP, "after mov rbp, rsp: CFA rbp-based");
    e = cpusym_lookup(&y, (uint64_t)(uintptr_t)&fake_frameless_function + 1, 0);
    CHECK(e && cpusym_leaf_rule(&y, e) == CPUSYM_RULE_RSP && e->cfa_off == 8,
          "a function without a frame pointer: CFA rsp + 8 inside it");
    e = cpusym_lookup(&y, 0x10, 0);
    CHECK(e && cpusym_leaf_rule(&y, e) == CPUSYM_RULE_NONE, "an address in no mapping: no rule");
    cpusym_free(&y);
}

static const check_test tests[] = {TEST_ENTRY(maps_parsed_and_classified),
                                   TEST_ENTRY(proc_files_read_whole_or_cut),
                                   TEST_ENTRY(elf_symbols_of_this_binary_and_libc),
                                   TEST_ENTRY(debug_files_name_what_stripping_took_away),
                                   TEST_ENTRY(libc_internals_named_from_its_debug_package),
                                   TEST_ENTRY(stripped_library_named_through_its_debug_file),
                                   TEST_ENTRY(prologs_read_from_the_process),
                                   TEST_ENTRY(unwind_rules_of_this_binary),
                                   TEST_END};

int main(int argc, char **argv) { return check_main(argc, argv, tests); }
