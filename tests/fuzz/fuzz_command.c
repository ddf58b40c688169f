/* fuzz_command.c -- libFuzzer target for the agent's command parser,
 * wire_decode_command in proto/wire_decode.c (what agent/sender.c reads from
 * the server's socket).
 *
 * The input is the byte stream as the agent would receive it: commands are
 * split off the front one after another until NEED_MORE or BAD. Checked: a
 * command never claims more bytes than it was given nor a payload over
 * WIRE_MAX_COMMAND, one byte less of it is NEED_MORE, BAD always says why,
 * and a known command re-encoded by proto/wire_encode.c from its decoded
 * fields decodes to the same fields (round trip; a code lookup carries 1 to
 * WIRE_CODE_LOOKUP_MAX addresses, and the ones past its count are 0).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

#include "wire_decode.h"
#include "wire_encode.h"

/* Bytes of the known commands' fields (-1: unknown type, nothing decoded). */
#define FUZZ_FIELDS(member) ((long)sizeof(((const wire_command *)NULL)->u.member))
static long fuzz_command_fields(uint16_t type)
{
    switch (type) {
    case WIRE_CMD_DETACH: return FUZZ_FIELDS(detach);
    case WIRE_CMD_PING: return FUZZ_FIELDS(ping);
    case WIRE_CMD_SNAPSHOT: return FUZZ_FIELDS(snapshot);
    case WIRE_CMD_PROFILE_START: return FUZZ_FIELDS(profile_start);
    case WIRE_CMD_PROFILE_STOP: return 0;
    case WIRE_CMD_TIERS: return FUZZ_FIELDS(tiers);
    case WIRE_CMD_CODE: return FUZZ_FIELDS(code);
    case WIRE_CMD_CODE_LOOKUP: return -2; /* as long as its count says */
    default: return -1;
    }
}

static void fuzz_command_round_trip(const uint8_t *frame, const wire_command *c)
{
    uint8_t buf[sizeof(wire_frame_header) + sizeof(c->u)];
    wire_frame_header h;
    wire_command again;
    long fields = fuzz_command_fields(c->type);
    size_t n, used = 0;
    const char *why = NULL;

    if (fields == -2) {
        FUZZ_REQUIRE(c->u.code_lookup.count >= 1 && c->u.code_lookup.count <= WIRE_CODE_LOOKUP_MAX);
        fields = (long)(sizeof(uint64_t) + c->u.code_lookup.count * sizeof(uint64_t));
    }
    if (fields < 0)
        return;
    memcpy(&h, frame, sizeof(h));
    n = wire_encode(buf, &h, &c->u, (uint32_t)fields, NULL, 0, NULL, 0);
    FUZZ_REQUIRE(n == sizeof(h) + (size_t)fields);
    FUZZ_REQUIRE(wire_decode_command(buf, n, &again, &used, &why) == WIRE_DECODE_OK);
    FUZZ_REQUIRE(used == n && again.type == c->type);
    FUZZ_REQUIRE(memcmp(&again.u, &c->u, sizeof(c->u)) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t off = 0;

    while (off < size) {
        wire_command c;
        size_t used = 0, used2 = 0;
        const char *why = NULL;
        int rc = wire_decode_command(data + off, size - off, &c, &used, &why);

        if (rc != WIRE_DECODE_OK) {
            FUZZ_REQUIRE(rc == WIRE_DECODE_NEED_MORE || (rc == WIRE_DECODE_BAD && why != NULL));
            return 0;
        }
        FUZZ_REQUIRE(used >= sizeof(wire_frame_header) && used <= size - off);
        FUZZ_REQUIRE(used - sizeof(wire_frame_header) <= WIRE_MAX_COMMAND);
        FUZZ_REQUIRE(wire_decode_command(data + off, used - 1, &(wire_command){0}, &used2, &why) ==
                     WIRE_DECODE_NEED_MORE);
        fuzz_command_round_trip(data + off, &c);
        off += used;
    }
    return 0;
}
