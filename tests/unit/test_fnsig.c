/* test_fnsig.c -- unit tests for server/fnsig.c (a name's dense signature),
 * the pool's serials it keys type parts by (server/strpool.c), and the name
 * filter's use of them (fnfilter_next, fnfilter_candidate in
 * server/fnfilter.c): a signature holds each pair of bytes of the own part,
 * case folded, and the pair across the seam; serials are dense and kept; and
 * on thousands of names, for filters of 1, 2, 3 bytes, up to 64 and past it,
 * across the seam, in either case, the filter with signatures finds exactly
 * what a plain case-insensitive search of each whole name finds (no candidate
 * missed), while ruling most names out unread.
 * Build: make build/tests/test_fnsig && build/tests/test_fnsig
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fnfilter.h"
#include "fnname.h"
#include "fnsig.h"

TEST(a_signature_holds_each_pair_case_folded)
{
    strpool p = {0};
    const char *r = fnname_store(&p, "Contoso.Orders.Service.GetAsync(Int32)", 38, 0);
    const char *whole = fnname_store(&p, "A.Go()", 6, 0); /* a type part too short to share */

    CHECK(fnsig_text("Ab", 2) == fnsig_bit('a', 'b') && fnsig_bit('A', 'B') == fnsig_bit('a', 'b'),
          "one pair, one bit, whatever its case");
    CHECK(fnsig_text("GetAsync", 8) == fnsig_text("gEtaSYNC", 8), "A-Z as a-z");
    CHECK(fnsig_bit(0xc3, 0xa9) != fnsig_bit(0xe3, 0xa9) || fnsig_text("\xc3\xa9", 2) != 0,
          "other bytes as they are");
    CHECK(fnsig_text("x", 1) == 0, "no pair in one byte");
    CHECK(r && *fnname_parts(r).head && fnsig_record(r) == fnsig_text(".GetAsync(Int32)", 16),
          "a record: its own part's pairs and the type part's last byte with its first");
    CHECK(!(fnsig_record(r) & ~fnsig_text("Contoso.Orders.Service.GetAsync(Int32)", 38)),
          "nothing of pairs the name does not have");
    CHECK(whole && !*fnname_parts(whole).head && fnsig_record(whole) == fnsig_text("A.Go()", 6),
          "a name kept whole: all its pairs");
    CHECK(fnsig_record(NULL) == 0, "no name: no bits");
    strpool_free(&p);
}

TEST(interned_strings_have_dense_serials_kept_when_found_again)
{
    strpool p = {0};
    const char *a = strpool_intern(&p, "alpha", 5), *b = strpool_intern(&p, "beta", 4);
    const char *added = strpool_add(&p, "gamma", 5);
    const char *a2 = strpool_intern(&p, "alpha", 5), *c = strpool_intern2(&p, "de", 2, "lta", 3);
    unsigned i, wrong = 0;

    CHECK(a && b && added && c && strpool_serial(a) == 0 && strpool_serial(b) == 1 &&
              strpool_serial(c) == 2,
          "in the order interned; added strings take none");
    CHECK(a2 == a && strpool_serial(a2) == 0, "found again: the same string and serial");
    CHECK(strpool_by_serial(&p, 0) == a && strpool_by_serial(&p, 1) == b &&
              strpool_by_serial(&p, 2) == c,
          "a serial gives its string back");
    for (i = 0; i < 100000; i++) { /* across chunks and the table's growth */
        char text[32];
        int n = snprintf(text, sizeof(text), "string number %u", i);
        const char *s = strpool_intern(&p, text, (size_t)n);
        wrong += !s || strpool_serial(s) != i + 3 || strpool_by_serial(&p, i + 3) != s;
    }
    CHECK(wrong == 0, "100,000 more: %u wrong", wrong);
    CHECK(strpool_table_bytes(&p) >= p.serial_cap * sizeof(uint32_t) && p.serial_cap >= p.count,
          "the serials are counted with the pool's tables");
    strpool_free(&p);
}

/* ---- the filter with signatures against a plain search ---- */

#define NAMES 4000u
#define TYPES 60u

static uint64_t g_seed = 0x2545f4914f6cdd1dull;
static uint64_t rnd(void) { return check_random(&g_seed); }

/* Random text of n bytes over a small alphabet (so that pairs repeat, as in
 * real names), with brackets and dots, in both cases. */
static void random_text(char *out, size_t n)
{
    static const char alphabet[] = "abcdeABCDE.<>(, 0123";
    size_t i;

    for (i = 0; i < n; i++)
        out[i] = alphabet[rnd() % (sizeof(alphabet) - 1)];
    out[n] = '\0';
}

/* The name whole, from its record. */
static void joined(const char *record, char *out, size_t size) { fnname_copy(record, out, size); }

typedef struct sig_fixture {
    strpool pool;
    fnsig_table table;
    const char *records[NAMES];
    char *names[NAMES];
} sig_fixture;

/* NAMES names: most of one of TYPES type parts (16-200 bytes, ending with a
 * dot, as fnname_split cuts them) and an own part (1-120 bytes), some whole. */
static int sig_fixture_make(sig_fixture *x)
{
    static char types[TYPES][256];
    char text[512], own[160];
    unsigned i;

    memset(x, 0, sizeof(*x));
    for (i = 0; i < TYPES; i++) {
        size_t n = 16 + rnd() % 185;
        random_text(types[i], n);
        memcpy(types[i], "Ns.", 3);
        types[i][n - 1] = '.';
    }
    if (fnsig_reserve(&x->table, NAMES - 1, NAMES) != 0)
        return -1;
    for (i = 0; i < NAMES; i++) {
        size_t k = 1 + rnd() % 120, j;
        random_text(own, k);
        for (j = 0; j < k; j++)
            if (strchr(".<>()", own[j]))
                own[j] = 'x'; /* the own part: no dot, no bracket: cut after the type part */
        if (rnd() % 10 == 0)
            snprintf(text, sizeof(text), "%s", own); /* no type part */
        else
            snprintf(text, sizeof(text), "%s%s", types[rnd() % TYPES], own);
        if (!(x->records[i] = fnname_store(&x->pool, text, strlen(text), 0)))
            return -1;
        fnsig_set(&x->table, i, x->records[i]);
        x->names[i] = strdup(text);
        joined(x->records[i], text, sizeof(text));
        if (!x->names[i] || strcmp(text, x->names[i]) != 0)
            return -1;
    }
    return 0;
}

static void sig_fixture_free(sig_fixture *x)
{
    unsigned i;

    for (i = 0; i < NAMES; i++)
        free(x->names[i]);
    fnsig_free(&x->table);
    strpool_free(&x->pool);
}

/* Runs the filter on every name as api_functions.c does; counts names where
 * it and strcasestr disagree, and the names it had to read (candidates). */
static unsigned filter_disagrees(sig_fixture *x, const char *needle, unsigned *candidates,
                                 unsigned *matches)
{
    char lower[600];
    size_t n = strlen(needle), i, work = 0;
    unsigned wrong = 0, at = 0;
    fnfilter f;

    for (i = 0; i <= n; i++)
        lower[i] = (char)(needle[i] >= 'A' && needle[i] <= 'Z' ? needle[i] + 32 : needle[i]);
    fnfilter_init(&f, lower, n);
    *candidates = *matches = 0;
    while (at < NAMES) {
        int verdict = FNFILTER_MAYBE, in;
        size_t next = at;
        if (fnfilter_uses_signatures(&f)) {
            next = fnfilter_next(&f, &x->pool, &x->table, at, NAMES, &verdict, &work);
            if (next == (size_t)-1)
                return NAMES + 1;
        }
        for (; at < next && at < NAMES; at++) /* ruled out unread */
            wrong += strcasestr(x->names[at], needle) != NULL;
        if (at >= NAMES)
            break;
        if (verdict == FNFILTER_MAYBE) {
            (*candidates)++;
            in = fnfilter_uses_signatures(&f)
                     ? fnfilter_candidate(&f, &x->pool, &x->table, at, x->records[at], &work)
                     : fnfilter_record(&f, x->records[at], &work);
        } else {
            in = verdict == FNFILTER_YES;
        }
        *matches += in == 1;
        wrong += (in == 1) != (strcasestr(x->names[at], needle) != NULL);
        at++;
    }
    fnfilter_free(&f);
    return wrong;
}

TEST(the_filter_with_signatures_finds_what_a_plain_search_finds)
{
    static sig_fixture x;
    static const size_t lengths[] = {1, 2, 3, 4, 7, 16, 17, 40, 63, 64, 65, 66, 100, 180};
    unsigned t, wrong = 0, needles = 0, across = 0, found = 0, read = 0, matched = 0;
    char needle[260];

    if (!CHECK(sig_fixture_make(&x) == 0, "%u names", NAMES))
        return;
    for (t = 0; t < 3000; t++) {
        size_t length = lengths[t % (sizeof(lengths) / sizeof(lengths[0]))], i;
        unsigned at = (unsigned)(rnd() % NAMES), candidates, matches, d;
        const char *name = x.names[at];
        fnname parts = fnname_parts(x.records[at]);
        size_t head = strlen(parts.head), whole = strlen(name), from;

        if (whole < length)
            continue;
        /* mostly across the seam: starting in the type part, ending past it */
        if (head && head < whole && t % 3 != 2) {
            size_t lo = head > length - 1 ? head - (length - 1) : 0;
            size_t hi = head - 1 < whole - length ? head - 1 : whole - length;
            if (lo > hi)
                continue;
            from = lo + rnd() % (hi - lo + 1);
            across += from < head && from + length > head;
        } else {
            from = rnd() % (whole - length + 1);
        }
        memcpy(needle, name + from, length);
        needle[length] = '\0';
        for (i = 0; i < length; i++) /* either case */
            if (rnd() % 2 && needle[i] >= 'a' && needle[i] <= 'z')
                needle[i] = (char)(needle[i] - 32);
            else if (rnd() % 2 && needle[i] >= 'A' && needle[i] <= 'Z')
                needle[i] = (char)(needle[i] + 32);
        if (t % 11 == 10 && length > 2) /* and one that is in no name, most likely */
            needle[length / 2] = '#';
        d = filter_disagrees(&x, needle, &candidates, &matches);
        if (d && wrong == 0)
            printf("    first disagreement: \"%s\" (%zu bytes), %u names\n", needle, length, d);
        wrong += d;
        needles++;
        found += matches > 0;
        matched += matches;
        read += candidates;
    }
    CHECK(wrong == 0 && needles > 2000 && across > 1000 && found > needles / 2,
          "%u filters (%u across the seam, %u found in some name): %u names decided wrong", needles,
          across, found, wrong);
    CHECK(read < (unsigned)((uint64_t)needles * NAMES / 3),
          "the signatures rule most names out: %u read for %u filters of %u names (%u matches)",
          read, needles, NAMES, matched);
    sig_fixture_free(&x);
}

TEST(a_type_parts_summary_gives_its_methods_name_prefix)
{
    static sig_fixture x;
    unsigned i, from_type = 0, wrong = 0;

    if (!CHECK(sig_fixture_make(&x) == 0, "%u names", NAMES))
        return;
    for (i = 0; i < NAMES; i++) {
        uint64_t want[2], got[2];
        fnname_prefix(x.records[i], want);
        if (fnsig_name_prefix(&x.table, i, got)) {
            from_type++;
            wrong += got[0] != want[0] || got[1] != want[1];
        }
    }
    CHECK(wrong == 0 && from_type > NAMES / 2,
          "%u of %u names' prefixes from their type part: %u differ from fnname_prefix", from_type,
          NAMES, wrong);
    sig_fixture_free(&x);
}

TEST(a_filter_in_no_name_reads_few_names)
{
    static sig_fixture x;
    unsigned candidates, matches, wrong;

    if (!CHECK(sig_fixture_make(&x) == 0, "%u names", NAMES))
        return;
    wrong = filter_disagrees(&x, "zyzzyva", &candidates, &matches);
    CHECK(wrong == 0 && matches == 0 && candidates < NAMES / 10,
          "pairs no name has: %u of %u names read (only where other pairs share their bits)",
          candidates, NAMES);
    wrong = filter_disagrees(&x, "z", &candidates, &matches);
    CHECK(wrong == 0 && candidates == NAMES, "one byte: every name read (%u)", candidates);
    sig_fixture_free(&x);
}

static const check_test tests[] = {
    TEST_ENTRY(a_signature_holds_each_pair_case_folded),
    TEST_ENTRY(interned_strings_have_dense_serials_kept_when_found_again),
    TEST_ENTRY(the_filter_with_signatures_finds_what_a_plain_search_finds),
    TEST_ENTRY(a_type_parts_summary_gives_its_methods_name_prefix),
    TEST_ENTRY(a_filter_in_no_name_reads_few_names),
    TEST_END,
};

int main(int argc, char **argv) { return check_main(argc, argv, tests); }
