// counts.js -- numbers as the server writes them (docs/API.md, "Numbers"): an
// integer while a JavaScript number holds it exactly, and past 2^53 - 1 (only a
// broken or hostile agent gets there) the exact value's digits as a string.
// The dashboard shows, sorts and adds them up, so the JSON it reads goes
// through reviveCounts: such a string becomes the nearest number. Only where a
// counter may stand: a key of the API's Count fields, or an array's item.
const DIGITS = /^-?[1-9][0-9]{15,19}$/;
const COUNT_KEYS = new Set([
  'jit_compilations', 'jit_time_total_ns', 'events', 'ring_full', 'too_large', 'no_server',
  'name_failed', 'slow_server', 'name_late', 'shutdown', 'total', 'produced', 'inconsistent', 'memory',
  'records', 'bytes', 'seq_gaps', 'connections', 'ring_used', 'server_capacity_drops',
  'records_refused', 'count', 'events_evicted', 'read', 'skipped', 'stored', 'replay_lost_bytes',
  'jit_callbacks', 'direct_modules', 'importer_opens', 'compilations', 'jit_ns', 'jit_total_ns',
  'lost', 'samples', 'thread_samples', 'suspended_ns_total', 'suspend_ns_p50', 'suspend_ns_max',
  'dropped_samples', 'dropped_stacks', 'jits', 'il', 'native', 'seq', 'duration_ns', 'snapshot_id',
  'suspend_ns', 'walk_ns', 'next_after', 'last_seq', 'gcs', 'suspensions', 'missed', 'resume_after',
  'sessions_stored', 'backlog', 'deferred', 'write_errors', 'rounds', 'commits', 'rows',
  'only_jit_ns', 'both_jit_ns', 'a_jit_ns', 'b_jit_ns', 'delta_jit_ns',
  'functions', 'names', 'modules', 'threads', 'agent_ns', 'rejit_id', 'startup_jit_ns',
  'agent_refused',
]);

export function reviveCounts(key, value) {
  return typeof value === 'string' && DIGITS.test(value) && (COUNT_KEYS.has(key) || /^\d+$/.test(key))
    ? Number(value) : value;
}
