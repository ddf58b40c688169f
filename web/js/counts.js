// counts.js -- numbers as the server writes them (docs/API.md, "Numbers"): an
// integer while a JavaScript number holds it exactly, and past 2^53 - 1 (only a
// broken or hostile agent gets there) the exact value's digits as a string.
// The dashboard shows, sorts and adds them up, so the JSON it reads goes
// through reviveCounts: such a string becomes the nearest number. Only where a
// counter may stand: a key of the API's Count fields, or an array's item.
const DIGITS = /^-?[1-9][0-9]{15,19}$/;
// every property the API documents as a Count or SignedCount (tests/e2e/openapi.test.mjs
// checks this list against server/openapi.json)
export const COUNT_KEYS = new Set([
  'a_jit_ns',
  'agent_ns',
  'agent_refused',
  'b_jit_ns',
  'backlog_bytes',
  'both_jit_ns',
  'bytes',
  'bytes_logged',
  'bytes_not_read',
  'bytes_written',
  'chunks',
  'commits',
  'compilations',
  'connections',
  'count',
  'delta_jit_ns',
  'direct_modules',
  'dropped_samples',
  'dropped_stacks',
  'duration_ns',
  'events',
  'events_evicted',
  'functions',
  'gcs',
  'il',
  'importer_opens',
  'inconsistent',
  'jit_callbacks',
  'jit_compilations',
  'jit_ns',
  'jit_time_total_ns',
  'jit_total_ns',
  'jits',
  'last_seq',
  'log_chunks',
  'log_chunks_damaged',
  'log_chunks_read',
  'lost',
  'lost_bytes',
  'memory',
  'missed',
  'modules',
  'name_failed',
  'name_late',
  'names',
  'native',
  'next_after',
  'no_server',
  'only_jit_ns',
  'other',
  'produced',
  'records',
  'records_refused',
  'rejit_id',
  'resume_after',
  'ring_full',
  'ring_used',
  'rounds',
  'samples',
  'seq',
  'seq_gaps',
  'server_capacity_drops',
  'sessions_stored',
  'shutdown',
  'slow_server',
  'snapshot_id',
  'snapshots',
  'startup_jit_ns',
  'suspend_ns',
  'suspend_ns_max',
  'suspend_ns_p50',
  'suspended_ns_total',
  'suspensions',
  'thread_samples',
  'threads',
  'too_large',
  'total',
  'walk_ns',
  'write_errors',
]);

export function reviveCounts(key, value) {
  return typeof value === 'string' &&
    DIGITS.test(value) &&
    (COUNT_KEYS.has(key) || /^\d+$/.test(key))
    ? Number(value)
    : value;
}
