/* session_names.c -- the names the API and logs give a session's states,
 * signals, JIT tiers and event types (see session.h). */
#include "session.h"

const char *session_state_name(session_state st)
{
    switch (st) {
    case SESSION_STARTING: return "starting";
    case SESSION_LIVE: return "live";
    case SESSION_DISCONNECTED: return "disconnected";
    case SESSION_DETACHING: return "detaching";
    case SESSION_DETACHED: return "detached";
    case SESSION_EXITED: return "exited";
    case SESSION_FAILED: return "failed";
    case SESSION_INTERRUPTED: return "interrupted";
    }
    return "unknown";
}

const char *session_signal_name(int signal)
{
    static const char *const names[] = {
        NULL,      "SIGHUP",  "SIGINT",    "SIGQUIT", "SIGILL",   "SIGTRAP", "SIGABRT", "SIGBUS",
        "SIGFPE",  "SIGKILL", "SIGUSR1",   "SIGSEGV", "SIGUSR2",  "SIGPIPE", "SIGALRM", "SIGTERM",
        NULL,      "SIGCHLD", "SIGCONT",   "SIGSTOP", "SIGTSTP",  "SIGTTIN", "SIGTTOU", "SIGURG",
        "SIGXCPU", "SIGXFSZ", "SIGVTALRM", "SIGPROF", "SIGWINCH", "SIGIO",   "SIGPWR",  "SIGSYS",
    };

    if (signal <= 0 || (size_t)signal >= sizeof(names) / sizeof(names[0]))
        return NULL;
    return names[signal];
}

const char *session_tier_name(uint32_t tier)
{
    /* the names the JIT itself prints (DOTNET_JitDisasmSummary) */
    static const char *const names[WIRE_TIER_COUNT] = {
        [WIRE_TIER_UNKNOWN] = "unknown",
        [WIRE_TIER_MIN_OPTS] = "MinOpts",
        [WIRE_TIER_FULL_OPTS] = "FullOpts",
        [WIRE_TIER_0] = "Tier0",
        [WIRE_TIER_1] = "Tier1",
        [WIRE_TIER_1_OSR] = "Tier1-OSR",
        [WIRE_TIER_0_INSTRUMENTED] = "Instrumented Tier0",
        [WIRE_TIER_1_INSTRUMENTED] = "Instrumented Tier1",
    };

    return tier < WIRE_TIER_COUNT ? names[tier] : "unknown";
}

const char *session_event_type_name(uint16_t type)
{
    switch (type) {
    case WIRE_JIT_FINISHED: return "jit";
    case WIRE_MODULE_LOADED: return "module_load";
    case WIRE_MODULE_UNLOADED: return "module_unload";
    case WIRE_ASSEMBLY_LOADED: return "assembly_load";
    case WIRE_THREAD_CREATED: return "thread_start";
    case WIRE_THREAD_DESTROYED: return "thread_end";
    case WIRE_THREAD_NAME: return "thread_name";
    case WIRE_CATCHUP_END: return "catchup";
    case WIRE_DETACH_STATUS: return "detach";
    case WIRE_GC_FINISHED: return "gc";
    case WIRE_RUNTIME_SUSPEND: return "suspension";
    case WIRE_STACK_END: return "stack_snapshot";
    case WIRE_PROFILE_STATUS: return "profile";
    case LOGREC_RESUMED: return "resumed";
    default: return "other";
    }
}
