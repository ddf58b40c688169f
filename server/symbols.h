/* symbols.h -- names for the FunctionIDs of a response, copied out of a session.
 *
 * Stack and profile responses are built after the sessions lock is released;
 * while it is held, the route copies what it needs, and the names of the
 * functions it will show go into one of these tables: each distinct FunctionID
 * once, with its name (the function's, or its id as "0x..." when the agent
 * never named it) and its module's name (or none). FunctionID 0, a native
 * run, is "[native]"; labels ("[truncated]") are entries of their own, and so
 * are a CPU profile's native functions (with their module) and labels.
 * A table holds at most SYMBOLS_MAX entries, each name at most
 * WIRE_MAX_STRING bytes. */
#ifndef JITSCOPE_SYMBOLS_H
#define JITSCOPE_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

#include "idmap.h"

#define SYMBOLS_MAX (1u << 22)

/* What a frame is: a managed method (named or "0x..."), a native function
 * (a CPU profile's, with its module), native work without a name ([native]
 * runs, a CPU sample's [kernel] and [unmapped]), or a label that says
 * something about the stack itself ([unknown], [truncated], [missing frame:
 * ...]). Labels and nameless native work are markers, not code to search for. */
enum symbol_kind {
    SYMBOL_METHOD = 0,
    SYMBOL_NATIVE = 1,
    SYMBOL_NATIVE_LABEL = 2,
    SYMBOL_LABEL = 3
};

typedef struct symbol {
    uint64_t function_id; /* 0 for [native] and labels */
    char *name;
    char *module;  /* NULL: none known */
    int kind;      /* symbol_kind */
    char *file;    /* the method's source file (srcline.h), NULL: none */
    uint32_t line; /* a line of it: the method's first, or a split frame's; 0 none */
    uint32_t base; /* a split frame's: the method's own symbol; else its own index */
    int split;     /* 1: a frame of the method at one line (profile_view_lines) */
} symbol;

typedef struct symbols {
    symbol *items;
    size_t count, cap;
    idmap index;           /* FunctionID -> item */
    uint32_t native_plus1; /* index of [native] + 1, 0 until needed */
    size_t text_bytes;     /* bytes of names and modules copied */
} symbols;

struct session;

/* The entry of a FunctionID, added on first use. Caller holds the sessions
 * lock. 0, or -1 when out of memory or full. */
int symbols_function(symbols *t, struct session *s, uint64_t function_id, uint32_t *index);
/* The entry of a name that is not a FunctionID's (a CPU profile's native
 * function or label, profile.h's PROFILE_FRAME_SYMBOL keys), added on first
 * use of `key` with its kind (symbol_kind). 0 or -1. */
int symbols_named(symbols *t, uint64_t key, const char *name, const char *module, int kind,
                  uint32_t *index);
/* A new entry that is only a label. 0 or -1. */
int symbols_label(symbols *t, const char *label, uint32_t *index);
/* A copy of entry `base` at one line of file (a split frame). 0 or -1. */
int symbols_line(symbols *t, uint32_t base, const char *file, uint32_t line, uint32_t *index);
/* The [native] entry (FunctionID 0), made on first use. 0 or -1. */
int symbols_native(symbols *t, uint32_t *index);
void symbols_free(symbols *t);

#endif
