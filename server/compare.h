/* compare.h -- two sessions side by side (GET /api/compare, docs/API.md):
 * which methods one JITed and the other did not, JIT time per method and per
 * module with deltas, modules loaded in only one.
 *
 * Sessions are of different processes, so runtime IDs never match. A module
 * is matched by its identity: the assembly's simple name, else its file name
 * without ".dll"/".exe", "(dynamic)" for dynamic methods (no module) and
 * "(unknown module)" for a function whose module the session never heard of.
 * A method is matched by (module identity, name with its parameter list, as
 * the server names it). Instances of one method in one session (the same
 * assembly loaded in two load contexts or at two paths, a collectible
 * assembly loaded again) are summed into one row; a function without a name
 * is not matched, only counted. A dynamic method whose name carries a number
 * the runtime counts up per process (compare_stable_name) is matched by the
 * rest of its name: its instances are summed under the stable name.
 *
 * Use: under the sessions lock, compare_snapshot_take() copies what the
 * comparison needs out of a session (strings included); release the lock,
 * then compare_build() and compare_select() work on the copies alone. Pure
 * otherwise: no lock, no I/O. */
#ifndef JITSCOPE_COMPARE_H
#define JITSCOPE_COMPARE_H

#include <stddef.h>
#include <stdint.h>

#include "session.h"

#define COMPARE_DYNAMIC "(dynamic)"
#define COMPARE_UNKNOWN "(unknown module)"

typedef struct compare_arena compare_arena; /* the copies' strings */

/* One JIT-compiled function of a snapshot. */
typedef struct compare_fn {
    const char *module, *name; /* module identity; name (never NULL) */
    uint64_t jit_ns;           /* all live compilations */
    int64_t last_jit_ns;
    uint32_t compilations, tier, il_size, native_size;
} compare_fn;

/* One module instance of a snapshot. */
typedef struct compare_mod {
    const char *module, *path; /* identity; path (NULL when none) */
} compare_mod;

typedef struct compare_snapshot {
    compare_fn *fns;
    size_t fn_count;
    compare_mod *mods;
    size_t mod_count;
    size_t functions;       /* functions JITed (what /functions lists), named or not */
    size_t unnamed;         /* of those, without a name: not matched */
    uint64_t compilations;  /* live JIT compilations */
    uint64_t jit_ns;        /* their total JIT time */
    compare_arena *strings; /* owns every string above */
} compare_snapshot;

/* The part of a dynamic method's name (as the agent names it: "[dynamic]
 * Regex12_Scan(RegexRunner, ReadOnlySpan<char>)") that is the same in every
 * process: the runtime numbers some of the methods it emits with a counter of
 * its own (compiled Regex: "Regex<N>_Scan", "_TryFindNextPossibleStartingPosition",
 * "_TryMatchAtCurrentPosition", and .NET 5/6's "_Go", "_FindFirstChar",
 * "_InitTrackCount"; expression trees: "lambda_method<N>"), so the number is
 * replaced by '*' ("[dynamic] Regex*_Scan(...)"). Writes the stable name,
 * never longer than name (cut to outsz - 1 bytes), and returns 1 when there
 * is such a number; else returns 0 and writes nothing. Pure. */
int compare_stable_name(const char *name, char *out, size_t outsz);

/* Copies session s (caller holds the sessions lock). 0, or -1 out of memory
 * (snap is then empty and may be freed). */
int compare_snapshot_take(compare_snapshot *snap, session *s);
void compare_snapshot_free(compare_snapshot *snap);

/* One side of a matched method or module. */
typedef struct compare_side {
    uint64_t jit_ns;
    int64_t last_jit_ns;
    uint32_t functions;    /* functions summed into the row (methods: instances) */
    uint32_t compilations; /* live compilations */
    uint32_t tier;         /* methods: the tier of the latest compilation */
    uint32_t il_size, native_size;
} compare_side;

enum { COMPARE_IN_A = 1, COMPARE_IN_B = 2, COMPARE_IN_BOTH = 3 };

typedef struct compare_method {
    const char *module, *name; /* point into the snapshots */
    unsigned in;               /* COMPARE_IN_A, _B or _BOTH */
    compare_side a, b;         /* zero on the side it is not in */
} compare_method;

typedef struct compare_module {
    const char *module;
    const char *a_path, *b_path; /* the first instance's path, NULL when none */
    unsigned in;                 /* loaded (or has methods) in A, B or both */
    uint32_t a_loads, b_loads;   /* module instances (0 for dynamic/unknown) */
    compare_side a, b;           /* functions = methods JITed in it */
    uint32_t only_a, only_b;     /* its methods JITed in only one */
} compare_module;

typedef struct compare_result {
    compare_method *methods; /* ordered by (module, name) */
    size_t method_count;
    compare_module *modules; /* ordered by module */
    size_t module_count;
    size_t methods_in[4]; /* by `in`: [1] only A, [2] only B, [3] both */
    size_t modules_in[4];
} compare_result;

/* Matches a against b. 0, or -1 out of memory. The result points into the
 * snapshots' strings: free it before them. */
int compare_build(const compare_snapshot *a, const compare_snapshot *b, compare_result *r);
void compare_result_free(compare_result *r);

enum compare_sort {
    COMPARE_SORT_JIT_TIME, /* the larger side's JIT time */
    COMPARE_SORT_DELTA,    /* b - a JIT time (a missing side counts 0) */
    COMPARE_SORT_ABS_DELTA,
    COMPARE_SORT_A_JIT_TIME,
    COMPARE_SORT_B_JIT_TIME,
    COMPARE_SORT_COMPILATIONS, /* the larger side's */
    COMPARE_SORT_NAME,         /* methods: name; modules: module */
    COMPARE_SORT_MODULE,       /* module, then name */
};

/* Signed b - a of one side pair's JIT time (saturating). */
int64_t compare_delta_ns(const compare_side *a, const compare_side *b);

/* Which rows compare_select() keeps, by their `in`: an OR of these. */
#define COMPARE_SEL_A (1u << COMPARE_IN_A)
#define COMPARE_SEL_B (1u << COMPARE_IN_B)
#define COMPARE_SEL_BOTH (1u << COMPARE_IN_BOTH)
#define COMPARE_SEL_ALL (COMPARE_SEL_A | COMPARE_SEL_B | COMPARE_SEL_BOTH)

/* Indexes of the rows whose `in` is selected by in_mask (COMPARE_SEL_*), whose name holds
 * q and whose module holds module (case-insensitive substrings; NULL or ""
 * matches all), sorted; ties in (module, name) order. methods: rows of
 * r->methods, else of r->modules (q then matches the module). *out is
 * malloc'd (free it). 0, or -1 out of memory. */
int compare_select(const compare_result *r, int methods, unsigned in_mask, const char *q,
                   const char *module, enum compare_sort sort, int descending, size_t **out,
                   size_t *count);

#endif
