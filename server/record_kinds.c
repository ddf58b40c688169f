/* record_kinds.c -- the table of record kinds: one row per kind (see
 * record_kinds.h), the agent's (wire.h, 1..WIRE_RECORD_TYPE_MAX) and the
 * server's own (logrec.h, from LOGREC_FIRST). A row names the functions of
 * the files below it; nothing below calls back here. */
#include "record_kinds.h"

#include "record_check.h"
#include "session_kinds.h"

/* A row's type and name (as wire.h or logrec.h writes it). */
#define KIND(t) .type = (t), .name = #t

/* One row per kind, in the order of their numbers: the agent's records
 * (1..WIRE_RECORD_TYPE_MAX), then the server's own (from LOGREC_FIRST; 210
 * to 219 are snapshot.h's parts, never in a log; then from LOGREC_SECOND). */
static const record_kind record_kinds[] = {
    /* the agent's records (wire.h), in their order */
    {
        KIND(WIRE_HELLO),
        .flags = RECORD_KIND_OBSERVATION | RECORD_KIND_OPENS,
        .fold = session_fold_hello,
        .replay = session_replay_hello,
    },
    {
        KIND(WIRE_JIT_STARTED),
        .flags = RECORD_KIND_FUNCTION_FIRST,
        .need = session_need_jit_started,
        .fold = session_fold_jit_started,
    },
    {
        KIND(WIRE_JIT_FINISHED),
        .flags = RECORD_KIND_FUNCTION_FIRST,
        .need = session_need_jit_finished,
        .fold = session_fold_jit_finished,
        .event = "jit",
        .event_take = view_event_jit_take,
        .event_json = view_event_jit_fields,
    },
    {
        KIND(WIRE_FUNCTION_NAME),
        .flags = RECORD_KIND_FUNCTION_FIRST,
        .need = session_need_function_name,
        .fold = session_fold_function_name,
    },
    {
        KIND(WIRE_MODULE_LOADED),
        .need = session_need_module,
        .fold = session_fold_module_loaded,
        .event = "module_load",
        .event_take = view_event_module_take,
        .event_json = view_event_module_fields,
    },
    {
        KIND(WIRE_MODULE_UNLOADED),
        .need = session_need_module_unloaded,
        .fold = session_fold_module_unloaded,
        .event = "module_unload",
        .event_take = view_event_module_take,
        .event_json = view_event_module_fields,
    },
    {
        KIND(WIRE_ASSEMBLY_LOADED),
        .need = session_need_module,
        .fold = session_fold_assembly_loaded,
        .event = "assembly_load",
        .event_json = view_event_assembly_fields,
    },
    {
        KIND(WIRE_THREAD_CREATED),
        .need = session_need_thread_row,
        .fold = session_fold_thread_created,
        .event = "thread_start",
        .event_take = view_event_thread_take,
        .event_json = view_event_thread_fields,
    },
    {
        KIND(WIRE_THREAD_DESTROYED),
        .need = session_need_thread_id,
        .fold = session_fold_thread_destroyed,
        .event = "thread_end",
        .event_take = view_event_thread_take,
        .event_json = view_event_thread_fields,
    },
    {
        KIND(WIRE_THREAD_OS_ID),
        .need = session_need_thread_id,
        .fold = session_fold_thread_os_id,
    },
    {
        KIND(WIRE_THREAD_NAME),
        .need = session_need_thread_row,
        .fold = session_fold_thread_name,
        .event = "thread_name",
        .event_take = view_event_thread_take,
        .event_json = view_event_thread_fields,
    },
    {
        KIND(WIRE_DROPS),
        .check = record_check_drops,
        .accepted = record_check_drops_accepted,
        .fold = session_fold_drops,
    },
    {
        KIND(WIRE_CATCHUP_BEGIN),
        .fold = session_fold_nothing,
    },
    {
        KIND(WIRE_CATCHUP_END),
        .fold = session_fold_catchup_end,
        .event = "catchup",
        .event_json = view_event_catchup_fields,
    },
    {
        KIND(WIRE_DETACH_STATUS),
        .fold = session_fold_detach_status,
        .event = "detach",
        .event_json = view_event_detach_fields,
    },
    {
        KIND(WIRE_PONG),
        .fold = session_fold_nothing,
    },

    /* stack walks, the profile, the GC/suspension timeline: observations */
    {
        KIND(WIRE_STACK_THREAD),
        .flags = RECORD_KIND_OBSERVATION,
        .need = session_need_stack_thread,
        .fold = session_fold_stack_thread,
        .replay = session_replay_stack_thread,
    },
    {
        KIND(WIRE_STACK_END),
        .flags = RECORD_KIND_OBSERVATION,
        .need = session_need_observation,
        .fold = session_fold_stack_end,
        .replay = session_replay_stack_end,
        .event = "stack_snapshot",
        .event_json = view_event_stack_end_fields,
    },
    {
        KIND(WIRE_PROFILE_STATUS),
        .flags = RECORD_KIND_OBSERVATION | RECORD_KIND_EVENT_PROFILE,
        .need = session_need_observation,
        .fold = session_fold_profile_status,
        .replay = session_replay_profile_status,
        .event = "profile",
        .event_json = view_event_profile_fields,
    },
    {
        KIND(WIRE_GC_STARTED),
        .flags = RECORD_KIND_OBSERVATION,
        .need = session_need_observation,
        .fold = session_fold_gc_started,
        .replay = session_replay_gc_started,
    },
    {
        KIND(WIRE_GC_FINISHED),
        .flags = RECORD_KIND_OBSERVATION,
        .need = session_need_observation,
        .fold = session_fold_gc_finished,
        .replay = session_replay_gc_finished,
        .event = "gc",
        .event_json = view_event_gc_fields,
    },
    {
        KIND(WIRE_RUNTIME_SUSPEND),
        .flags = RECORD_KIND_OBSERVATION,
        .need = session_need_observation,
        .fold = session_fold_runtime_suspend,
        .replay = session_replay_runtime_suspend,
        .event = "suspension",
        .event_json = view_event_suspension_fields,
    },
    {
        KIND(WIRE_TIERS_STATUS),
        .check = record_check_tiers,
        .fold = session_fold_tiers_status,
    },
    {
        KIND(WIRE_AGENT_COST),
        .check = record_check_agent_cost,
        .fold = session_fold_agent_cost,
    },

    /* a code reply's pieces fold alike live and beside a snapshot */
    {
        KIND(WIRE_CODE_VERSION),
        .flags = RECORD_KIND_OBSERVATION,
        .need = session_need_code_version,
        .fold = session_fold_code_version,
        .replay = session_fold_code_version,
    },
    {
        KIND(WIRE_CODE_PART),
        .flags = RECORD_KIND_OBSERVATION,
        .need = session_need_code_part,
        .fold = session_fold_code_part,
        .replay = session_fold_code_part,
    },
    {
        KIND(WIRE_CODE_END),
        .flags = RECORD_KIND_OBSERVATION,
        .need = session_need_code_end,
        .fold = session_fold_code_end,
        .replay = session_fold_code_end,
    },
    {
        KIND(WIRE_INLINING),
        .need = session_need_inlining,
        .fold = session_fold_inlining,
    },
    {
        KIND(WIRE_CODE_SEARCH),
        .need = session_need_code_search,
        .fold = session_fold_code_search,
    },
    {
        KIND(WIRE_CODE_RANGE),
        .need = session_need_code_range,
        .fold = session_fold_code_range,
    },
    {
        KIND(WIRE_EXCEPTION),
        .flags = RECORD_KIND_OBSERVATION,
        .need = session_need_exception,
        .fold = session_fold_exception,
        .replay = session_replay_exception,
        .event = "exception",
        .event_take = view_event_exception_take,
        .event_json = view_event_exception_fields,
    },
    {
        KIND(WIRE_EXCEPTION_CAUGHT),
        .flags = RECORD_KIND_OBSERVATION,
        .fold = session_fold_exception_caught,
        .replay = session_fold_exception_caught,
    },
    {
        KIND(WIRE_ALLOCATION),
        .flags = RECORD_KIND_OBSERVATION,
        .need = session_need_allocation,
        .fold = session_fold_allocation,
        .replay = session_replay_allocation,
        .event = "allocation_second",
        .event_json = view_event_allocation_fields,
    },
    {
        KIND(WIRE_GC_HEAP_STATS),
        .flags = RECORD_KIND_OBSERVATION,
        .need = session_need_observation,
        .fold = session_fold_gc_heap_stats,
        .replay = session_fold_gc_heap_stats,
    },
    {
        KIND(WIRE_EXCEPTION_COUNTS),
        .flags = RECORD_KIND_OBSERVATION,
        .need = session_need_exception_counts,
        .fold = session_fold_exception_counts,
        .replay = session_replay_exception_counts,
    },

    /* the server's own records (logrec.h), in their order: a profile's start
     * and stop and a CPU profile's tables are observations (they rebuild the
     * profile after a snapshot) */
    {
        KIND(LOGREC_PROFILE_START),
        .flags = RECORD_KIND_OBSERVATION,
        .fold_server = session_fold_profile_start,
    },
    {
        KIND(LOGREC_PROFILE_STOP),
        .flags = RECORD_KIND_OBSERVATION,
        .fold_server = session_fold_profile_stop,
    },
    {
        KIND(LOGREC_RESUMED),
        .fold_server = session_fold_resumed,
        .event = "resumed",
        .event_json = view_event_resumed_fields,
    },
    {
        KIND(LOGREC_CPU_START),
        .flags = RECORD_KIND_OBSERVATION,
        .fold_server = session_fold_cpu_start,
    },
    {
        KIND(LOGREC_CPU_SYMBOL),
        .flags = RECORD_KIND_OBSERVATION,
        .fold_server = session_fold_cpu_symbol,
    },
    {
        KIND(LOGREC_CPU_THREAD),
        .flags = RECORD_KIND_OBSERVATION,
        .fold_server = session_fold_cpu_thread,
    },
    {
        KIND(LOGREC_CPU_STACK),
        .flags = RECORD_KIND_OBSERVATION,
        .fold_server = session_fold_cpu_stack,
    },
    {
        KIND(LOGREC_CPU_SAMPLES),
        .flags = RECORD_KIND_OBSERVATION,
        .fold_server = session_fold_cpu_samples,
    },
    {
        KIND(LOGREC_CPU_COUNTS),
        .flags = RECORD_KIND_OBSERVATION,
        .fold_server = session_fold_cpu_counts,
    },
    {
        KIND(LOGREC_REFUSED),
        .fold_server = session_fold_refused,
    },
    /* the server's own from LOGREC_SECOND (after snapshot.h's parts) */
    {
        KIND(LOGREC_CPU_HEAT),
        .flags = RECORD_KIND_OBSERVATION,
        .fold_server = session_fold_cpu_heat,
    },
};
#define RECORD_KINDS_SERVER (LOGREC_REFUSED - LOGREC_FIRST + 1)
#define RECORD_KINDS_SECOND (LOGREC_CPU_HEAT - LOGREC_SECOND + 1)
_Static_assert(sizeof(record_kinds) / sizeof(record_kinds[0]) ==
                   WIRE_RECORD_TYPE_MAX + RECORD_KINDS_SERVER + RECORD_KINDS_SECOND,
               "one row per record kind of wire.h and logrec.h");

const record_kind *record_kind_of(uint16_t type)
{
    size_t row;

    if (type >= 1 && type <= WIRE_RECORD_TYPE_MAX)
        row = type - 1u;
    else if (type >= LOGREC_FIRST && type < LOGREC_FIRST + RECORD_KINDS_SERVER)
        row = WIRE_RECORD_TYPE_MAX + (size_t)(type - LOGREC_FIRST);
    else if (type >= LOGREC_SECOND && type < LOGREC_SECOND + RECORD_KINDS_SECOND)
        row = WIRE_RECORD_TYPE_MAX + RECORD_KINDS_SERVER + (size_t)(type - LOGREC_SECOND);
    else
        return NULL;
    return record_kinds[row].type == type ? &record_kinds[row] : NULL; /* rows in order */
}

unsigned record_kind_flags(uint16_t type)
{
    const record_kind *k = record_kind_of(type);

    return k ? k->flags : 0;
}

int record_kind_is_observation(uint16_t type)
{
    return (record_kind_flags(type) & RECORD_KIND_OBSERVATION) != 0;
}

const char *record_kind_event_name(uint16_t type)
{
    const record_kind *k = record_kind_of(type);

    return k && k->event ? k->event : "other";
}
