/* session_names.c -- the names the API and logs give a session's states,
 * signals and JIT tiers (see session.h; an event's type is its record kind's,
 * record_kinds.c). */
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
