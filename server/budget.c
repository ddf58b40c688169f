/* budget.c -- the server-wide memory budget for what sessions hold (see budget.h). */
#include "budget.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t budget_bytes; /* 0: not set yet, the default applies */
static uint64_t budget_total; /* what all sessions hold */
static unsigned budget_connected;
static budget_unwritten_fn budget_unwritten_of;

/* MemTotal from /proc/meminfo, in bytes; 0 when it cannot be read. */
static uint64_t budget_mem_total(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[128];
    unsigned long long kb = 0;

    if (!f)
        return 0;
    while (fgets(line, sizeof(line), f)) {
        char *end;
        if (strncmp(line, "MemTotal:", 9) != 0)
            continue;
        errno = 0;
        kb = strtoull(line + 9, &end, 10);
        if (errno || end == line + 9)
            kb = 0;
        break;
    }
    fclose(f);
    return kb > (UINT64_MAX >> 10) ? 0 : (uint64_t)kb << 10;
}

uint64_t budget_default(void)
{
    uint64_t total = budget_mem_total(), quarter = total / 4;

    if (total == 0)
        return 1ull << 30;
    return quarter < BUDGET_MIN ? BUDGET_MIN : quarter;
}

int budget_parse_size(const char *text, uint64_t *out)
{
    uint64_t v = 0, scale = 1;
    size_t i, digits = 0;

    if (!text)
        return -1;
    for (i = 0; text[i] >= '0' && text[i] <= '9'; i++, digits++) {
        if (v > (UINT64_MAX - 9) / 10)
            return -1;
        v = v * 10 + (uint64_t)(text[i] - '0');
    }
    if (digits == 0 || digits > 19 || (text[0] == '0' && digits > 1))
        return -1;
    if (text[i] == '%' && text[i + 1] == '\0') {
        uint64_t total = budget_mem_total();
        if (v < 1 || v > 100 || total == 0)
            return -1;
        v = total / 100 * v;
    } else {
        switch (text[i]) {
        case '\0': break;
        case 'K':
        case 'k': scale = 1ull << 10; break;
        case 'M':
        case 'm': scale = 1ull << 20; break;
        case 'G':
        case 'g': scale = 1ull << 30; break;
        case 'T':
        case 't': scale = 1ull << 40; break;
        default: return -1;
        }
        if (text[i] && text[i + 1] != '\0')
            return -1;
        if (v > UINT64_MAX / scale)
            return -1;
        v *= scale;
    }
    if (v < BUDGET_MIN)
        return -1;
    *out = v;
    return 0;
}

void budget_set_max(uint64_t bytes) { budget_bytes = bytes; }

uint64_t budget_max(void)
{
    if (!budget_bytes)
        budget_bytes = budget_default();
    return budget_bytes;
}

void budget_held_change(int64_t delta)
{
    if (delta < 0 && (uint64_t)-delta > budget_total)
        budget_total = 0; /* never below nothing (a bug would show as too little, not a wrap) */
    else
        budget_total = (uint64_t)((int64_t)budget_total + delta);
}

uint64_t budget_held(void) { return budget_total; }

void budget_live_change(int delta)
{
    if (delta < 0 && (unsigned)-delta > budget_connected)
        budget_connected = 0;
    else
        budget_connected = (unsigned)((int)budget_connected + delta);
}

unsigned budget_live(void) { return budget_connected; }

void budget_set_unwritten(budget_unwritten_fn fn) { budget_unwritten_of = fn; }

uint64_t budget_unwritten(int session_id)
{
    return budget_unwritten_of ? budget_unwritten_of(session_id) : 0;
}

int budget_counts_unwritten(void) { return budget_unwritten_of != NULL; }

uint64_t budget_share(void) { return budget_max() / ((uint64_t)budget_connected + 1); }

int budget_total_full(uint64_t need) { return budget_total + need > budget_max(); }

int budget_allows(uint64_t held, uint64_t need)
{
    return held + need <= budget_share() && !budget_total_full(need);
}
