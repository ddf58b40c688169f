/* test_fnname.c -- unit tests for server/fnname.c, function names held as a
 * shared type part and their own: where a name is cut, that the parts joined
 * are the name byte for byte whatever it holds, that a type's methods share
 * one copy of its part (the memory it is for), that the order of two names is
 * strcmp's whatever their cuts, copies cut to a buffer, and the pool's
 * first chunks small; a type's part fetched a frame ahead (fnname_prefetch)
 * is found with the hash kept then, and the hint is used once.
 * Build: make build/tests/test_fnname && build/tests/test_fnname
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fnname.h"
#include "strpool.h"

static size_t cut(const char *name) { return fnname_split(name, strlen(name)); }

TEST(where_a_name_is_cut)
{
    CHECK(cut("Contoso.Orders.Service.Get") == strlen("Contoso.Orders.Service."),
          "after the type's last dot");
    CHECK(cut("Contoso.Orders.Service..ctor") == strlen("Contoso.Orders.Service."),
          "a constructor keeps its own dot (\".ctor\")");
    CHECK(cut("Contoso.Orders.Service..cctor") == strlen("Contoso.Orders.Service."),
          "and a type initializer");
    CHECK(cut("System.Collections.Generic.Dictionary<System.String, System.Int32>.TryGetValue") ==
              strlen("System.Collections.Generic.Dictionary<System.String, System.Int32>."),
          "dots inside type arguments are not cuts");
    CHECK(cut("Contoso.Orders.Service.Pick<System.__Canon>") == strlen("Contoso.Orders.Service."),
          "nor inside a method's");
    CHECK(cut("Contoso.Orders.Service.Get(System.String, System.Int32)") ==
              strlen("Contoso.Orders.Service."),
          "nor inside a parameter list");
    CHECK(cut("Contoso.Orders.Service+<>c.<Main>b__0_0") == strlen("Contoso.Orders.Service+<>c."),
          "compiler-made names");
    CHECK(cut("App.Type.Run") == 0, "a type part under FNNAME_MIN_HEAD bytes is not shared");
    CHECK(cut("lambda_method12") == 0 && cut("") == 0 && cut(".") == 0 && cut("..ctor") == 0,
          "no type part");
    CHECK(cut("Unbalanced<<<(((.Namespace.Type.Method") ==
              strlen("Unbalanced<<<(((.Namespace.Type."),
          "opening brackets without closing ones change nothing");
    CHECK(cut("Namespace.Type.Method)]>") == 0,
          "a closing bracket without its opening hides the dots before it (held whole)");
}

/* Stores name, reads it back whole, and says whether it came back the same. */
static int round_trip(strpool *p, const char *name, size_t length, int intern)
{
    const char *record = fnname_store(p, name, length, intern);
    char out[FNNAME_MAX + 1];

    return record && fnname_length(record) == length &&
           fnname_copy(record, out, sizeof(out)) == length && memcmp(out, name, length) == 0 &&
           out[length] == '\0';
}

TEST(names_come_back_byte_for_byte)
{
    static const char *const names[] = {
        "Contoso.Orders.Service.Get",
        "Contoso.Orders.Service..ctor",
        "System.Collections.Generic.Dictionary<System.String, System.Int32>.TryGetValue",
        "App.Type.Run",
        "lambda_method12",
        "",
        "Ünïcödé.Nämespace.Typé.Méthod(Strïng)",
        "Unbalanced>>>)))]]].Namespace.Type.Method",
    };
    strpool p = {0};
    char big[FNNAME_MAX + 2];
    unsigned i, same = 0;
    uint64_t seed = 42;

    for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        same += (unsigned)round_trip(&p, names[i], strlen(names[i]), (int)(i & 1));
    CHECK(same == sizeof(names) / sizeof(names[0]), "%u of %zu named names", same,
          sizeof(names) / sizeof(names[0]));
    /* random bytes from a small alphabet rich in cuts and brackets */
    for (i = 0, same = 0; i < 20000; i++) {
        static const char alphabet[] = "..<>()[]AbZ,x";
        char name[300];
        size_t n = (size_t)(check_random(&seed) % sizeof(name)), k;
        for (k = 0; k < n; k++)
            name[k] = alphabet[check_random(&seed) % (sizeof(alphabet) - 1)];
        same += (unsigned)round_trip(&p, name, n, (int)(i & 1));
    }
    CHECK(same == 20000, "%u of 20000 random names", same);
    memset(big, 'a', sizeof(big));
    memcpy(big, "Some.Long.Namespace.Type.", 25);
    CHECK(round_trip(&p, big, FNNAME_MAX, 0), "the longest name held");
    CHECK(fnname_store(&p, big, FNNAME_MAX + 1, 0) == NULL, "a longer one is refused");
    strpool_free(&p);
}

TEST(a_types_methods_share_its_part)
{
    const char *type = "Contoso.Orders.Infrastructure.Persistence.ReservationRepository<"
                       "System.Text.Json.Serialization.Customer12, System.Linq.Order>.";
    strpool p = {0};
    char name[512];
    const char *first = NULL, *record;
    size_t text_before = 0, per_method;
    unsigned i, shared = 1;

    for (i = 0; i < 1000; i++) {
        snprintf(name, sizeof(name), "%sTryGetOrderAsync%u(String, CancellationToken)", type, i);
        if (i == 1)
            text_before = p.text_bytes;
        if (!(record = fnname_store(&p, name, strlen(name), 0)))
            shared = 0;
        else if (!first)
            first = fnname_parts(record).head;
        else
            shared &= fnname_parts(record).head == first;
    }
    per_method = (p.text_bytes - text_before) / 999;
    CHECK(shared && first && strcmp(first, type) == 0, "one copy of the type part");
    CHECK(per_method <= FNNAME_HEAD_BYTES +
                            strlen("TryGetOrderAsync999(String, "
                                   "CancellationToken)") +
                            1,
          "a method costs its own part: %zu bytes, its name %zu", per_method, strlen(name));
    strpool_free(&p);
}

TEST(dynamic_names_are_interned_whole)
{
    strpool p = {0};
    const char *a = fnname_store(&p, "DynamicClass.Generated.lambda_method1", 37, 1);
    const char *b = fnname_store(&p, "DynamicClass.Generated.lambda_method1", 37, 1);
    const char *c = fnname_store(&p, "DynamicClass.Generated.lambda_method1", 37, 0);

    CHECK(a && a == b, "the same name again is the same record");
    CHECK(c && c != a && fnname_cmp(a, c) == 0, "an added one is a new record of the same name");
    strpool_free(&p);
}

/* -1, 0 or 1 */
static int sign(int d) { return (d > 0) - (d < 0); }

TEST(names_order_as_strcmp)
{
    static const char *const names[] = {
        "Ns.Type.Method",
        "Ns.Type.Method2",
        "Ns.TypeLonger.Method",
        "Ns.Type.MethodA",
        "Ns.Typ",
        "Ns.Type..ctor",
        "Namespace.Inner.Type.A",
        "Namespace.Inner.TypeB",
        "Namespace.Inner.Type.A.B.C",
        "Namespace.Inner.Type.AB",
        "Namespace.Inner.",
        "Namespace.Inner.Type.",
        "Namespace.Inner.Type",
        "Namespace.Inner.Type.A.B.C.D.E.Method",
        "Namespace.Inner.Type.Z",
        "Namespace.Inner.Typf.A",
        "",
        "\xc3\xa9t\xc3\xa9.Namespace.Type.M",
    };
    enum { N = sizeof(names) / sizeof(names[0]) };
    const char *records[N];
    strpool p = {0};
    unsigned i, j, wrong = 0, stored = 0;

    for (i = 0; i < N; i++)
        stored += (records[i] = fnname_store(&p, names[i], strlen(names[i]), 0)) != NULL;
    CHECK(stored == N, "stored");
    for (i = 0; i < N && stored == N; i++)
        for (j = 0; j < N; j++)
            if (sign(fnname_cmp(records[i], records[j])) != sign(strcmp(names[i], names[j]))) {
                printf("    %s <> %s\n", names[i], names[j]);
                wrong++;
            }
    CHECK(wrong == 0, "%u of %u pairs out of strcmp's order", wrong, N * N);
    for (i = 0, wrong = 0; i < N && stored == N; i++)
        for (j = 0; j < N; j++) {
            uint64_t a[2], b[2];
            int by_prefix;
            fnname_prefix(records[i], a);
            fnname_prefix(records[j], b);
            by_prefix = a[0] != b[0]   ? (a[0] > b[0] ? 1 : -1)
                        : a[1] != b[1] ? (a[1] > b[1] ? 1 : -1)
                                       : 0;
            if (by_prefix != 0 && by_prefix != sign(strcmp(names[i], names[j])))
                wrong++;
        }
    CHECK(wrong == 0 && sign(fnname_order(NULL, records[16])) == 0 &&
              sign(fnname_order(records[0], NULL)) == 1,
          "16-byte prefixes that differ order as strcmp (%u wrong); no name is \"\"", wrong);
    strpool_free(&p);
}

TEST(copies_are_cut_to_the_buffer)
{
    strpool p = {0};
    const char *r = fnname_store(&p, "Contoso.Orders.Service.Get", 26, 0);
    char out[8];

    CHECK(r && fnname_copy(r, out, sizeof(out)) == 26 && strcmp(out, "Contoso") == 0,
          "cut in the type part: whole length returned");
    CHECK(r && fnname_copy(r, out, 1) == 26 && out[0] == '\0', "room for the NUL only");
    strpool_free(&p);
}

/* The pool's first chunks are small and grow (128, 256, 512 KiB, then
 * 1 MiB): a session of a thousand names holds 128 KiB for them, not a
 * megabyte (the attach/detach soak keeps five such sessions loaded). Strings
 * stay where they were put across the chunks, the longest one fits the
 * first chunk, and what the pool counts is what it made. */
TEST(a_small_pool_holds_a_small_chunk)
{
    static char longest[65536];
    strpool p = {0}, q = {0};
    const char *kept[4096];
    char text[64];
    size_t table, made;
    unsigned i;

    for (i = 0; i < 1000; i++) {
        snprintf(text, sizeof(text), "Contoso.Orders.Service%u.Get%u", i % 7, i);
        kept[i] = strpool_intern(&p, text, strlen(text));
    }
    table = strpool_table_bytes(&p);
    CHECK(kept[999] && strpool_bytes(&p) - table == 128 * 1024,
          "1,000 names: one chunk of 128 KiB (%zu bytes)", strpool_bytes(&p) - table);
    for (i = 1000; i < 4096; i++) { /* a KiB each: across the 128, 256 and 512 KiB chunks */
        memset(longest, 'a' + i % 26, 1000);
        snprintf(longest + 1000, 32, "%u", i);
        kept[i] = strpool_intern(&p, longest, strlen(longest));
    }
    table = strpool_table_bytes(&p);
    made = strpool_bytes(&p) - table;
    CHECK(made == (128 + 256 + 512 + 1024 + 1024 + 1024) * 1024u,
          "4 MiB of strings: chunks of 128, 256, 512 KiB and then 1 MiB (%zu bytes)", made);
    for (i = 0; i < 4096; i++) {
        if (i < 1000)
            snprintf(text, sizeof(text), "Contoso.Orders.Service%u.Get%u", i % 7, i);
        else
            memset(longest, 'a' + i % 26, 1000), snprintf(longest + 1000, 32, "%u", i);
        if (!kept[i] || strcmp(kept[i], i < 1000 ? text : longest) != 0)
            break;
    }
    CHECK(i == 4096, "every string where it was put (the first wrong: %u)", i);
    memset(longest, 'x', 65535);
    longest[65535] = '\0';
    CHECK(strpool_intern(&q, longest, 65535) && q.chunk_count == 1,
          "the longest string fits a new pool's first chunk");
    strpool_free(&p);
    strpool_free(&q);
}

TEST(a_part_fetched_ahead_is_found_with_its_hash)
{
    strpool p = {0};
    char buf[128];
    const char *a = "Contoso.Api.Factory<Contoso.Orders.Item1>.Invoke()";
    const char *b = "Contoso.Api.Factory<Contoso.Orders.Item2>.Invoke()";
    const char *first, *again, *rec;
    size_t head = fnname_split(a, strlen(a));

    rec = fnname_store(&p, a, strlen(a), 0); /* the table exists, Item1's part in it */
    first = rec ? fnname_parts(rec).head : NULL;
    snprintf(buf, sizeof(buf), "%s", a); /* the same bytes elsewhere, as a frame's */
    p.last = NULL; /* the one-comparison path would find it without the table */
    fnname_prefetch(&p, buf, strlen(buf));
    CHECK(p.hint == buf && p.hint_length == head, "the type's part is the hint (%zu bytes)",
          p.hint_length);
    CHECK(p.hint_whole == buf && p.hint_cut == head, "and the cut, for the store");
    rec = fnname_store(&p, buf, strlen(buf), 0);
    again = rec ? fnname_parts(rec).head : NULL;
    CHECK(first && again == first, "found in the table through the kept hash: one copy");
    CHECK(p.hint == NULL && p.hint_whole == NULL, "the hint is used once");
    CHECK(rec && fnname_copy(rec, buf, sizeof(buf)) == strlen(a) && strcmp(buf, a) == 0,
          "the name reads as it came");
    fnname_prefetch(&p, buf, strlen(buf));
    CHECK(p.hint == NULL,
          "the part just interned again is not hashed ahead (one comparison finds it)");
    fnname_prefetch(&p, b, strlen(b));
    CHECK(p.hint == b, "a new part is");
    strpool_hint_clear(&p);
    CHECK(p.hint == NULL && p.hint_whole == NULL, "cleared (the frame's memory moves)");
    rec = fnname_store(&p, b, strlen(b), 0);
    CHECK(rec && fnname_parts(rec).head != first && fnname_copy(rec, buf, sizeof(buf)) &&
              strcmp(buf, b) == 0,
          "another part is its own");
    strpool_free(&p);
}

static const check_test tests[] = {
    TEST_ENTRY(where_a_name_is_cut),
    TEST_ENTRY(names_come_back_byte_for_byte),
    TEST_ENTRY(a_types_methods_share_its_part),
    TEST_ENTRY(dynamic_names_are_interned_whole),
    TEST_ENTRY(names_order_as_strcmp),
    TEST_ENTRY(copies_are_cut_to_the_buffer),
    TEST_ENTRY(a_small_pool_holds_a_small_chunk),
    TEST_ENTRY(a_part_fetched_ahead_is_found_with_its_hash),
    TEST_END,
};

int main(int argc, char **argv) { return check_main(argc, argv, tests); }
