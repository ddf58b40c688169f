// openapi.test.mjs -- the OpenAPI document (server/openapi.json): valid OpenAPI
// 3.1 (@seriousme/openapi-schema-validator, the official schemas) with schemas
// ajv compiles strictly; served at GET /api/openapi.json byte for byte, under
// the API key like every /api route; every documented operation answered as
// documented by a real server (a sweep over a session without an agent: every
// request goes through lib.mjs's checked api()); and the check itself is strict
// (a missing or mistyped field, an extra one, an undocumented status or route
// all fail). The other e2e tests check every response they get the same way.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { Validator } from '@seriousme/openapi-schema-validator';
import { startServer, stopAll, waitFor } from './lib.mjs';
import { OPENAPI_FILE, OpenApiViolation, checkResponse, loadOpenApi, seenOperations } from './openapi.mjs';

after(stopAll);

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

test('the document is valid OpenAPI 3.1, and ajv compiles its schemas strictly', async () => {
  const doc = JSON.parse(fs.readFileSync(OPENAPI_FILE, 'utf8'));
  const validator = new Validator();
  const result = await validator.validate(doc);
  assert.equal(result.valid, true, JSON.stringify(result.errors, null, 1));
  assert.equal(validator.version, '3.1');
  assert.doesNotThrow(() => loadOpenApi(), 'every component schema compiles (strict ajv, JSON Schema 2020-12)');
  const ids = new Set();
  for (const [template, item] of Object.entries(doc.paths)) {
    const inPath = (template.match(/\{([^}]+)\}/g) || []).map((p) => p.slice(1, -1)).sort();
    for (const m of METHODS.filter((x) => item[x])) {
      const op = item[m];
      assert.ok(op.operationId && !ids.has(op.operationId), `${m} ${template}: a unique operationId`);
      ids.add(op.operationId);
      const declared = (op.parameters || []).map((p) => (p.$ref ? doc.components.parameters[p.$ref.split('/').pop()] : p))
        .filter((p) => p.in === 'path').map((p) => p.name).sort();
      assert.deepEqual(declared, inPath, `${m} ${template}: its path parameters are declared`);
      assert.ok(Object.keys(op.responses).some((s) => s < '400'), `${m} ${template}: a success response`);
    }
  }
});

// The dashboard turns a Count the server wrote as digits (past 2^53 - 1) back into a number by
// the property's name (web/js/counts.js): the names must be exactly the document's Count fields,
// or a new counter shows as a string and sorts as one.
test('the dashboard revives exactly the properties the document calls a Count', async () => {
  const doc = JSON.parse(fs.readFileSync(OPENAPI_FILE, 'utf8'));
  const countRefs = new Set(['#/components/schemas/Count', '#/components/schemas/SignedCount']);
  const isCount = (s) => !!s && typeof s === 'object' &&
    (countRefs.has(s.$ref) || [...(s.oneOf || []), ...(s.anyOf || [])].some((x) => countRefs.has(x.$ref)));
  const documented = new Set();
  (function walk(o) {
    if (Array.isArray(o)) { o.forEach(walk); return; }
    if (!o || typeof o !== 'object') return;
    if (o.properties && typeof o.properties === 'object') {
      for (const [k, v] of Object.entries(o.properties)) if (isCount(v)) documented.add(k);
    }
    Object.values(o).forEach(walk);
  })(doc);
  const { COUNT_KEYS, reviveCounts } = await import('../../web/js/counts.js');
  assert.ok(documented.size > 50, `the walk found the Count fields (${documented.size})`);
  assert.deepEqual([...documented].filter((k) => !COUNT_KEYS.has(k)).sort(), [], 'documented Counts the dashboard would leave as strings');
  assert.deepEqual([...COUNT_KEYS].filter((k) => !documented.has(k)).sort(), [], 'names the dashboard revives that the document no longer has');
  const parsed = JSON.parse('{"lost_bytes":"18446744073709551615","name":"12345678901234567890","x":["9007199254740993"]}', reviveCounts);
  assert.equal(typeof parsed.lost_bytes, 'number');
  assert.equal(parsed.name, '12345678901234567890', 'a string that is not a Count stays a string');
  assert.equal(typeof parsed.x[0], 'number', 'an array item may be a Count');
});

test('GET /api/openapi.json serves the embedded document, under the API key', async () => {
  const file = fs.readFileSync(OPENAPI_FILE, 'utf8');
  const open = await startServer(['serve', '--port', '0']);
  const keyed = await startServer(['serve', '--port', '0', '--api-key', 'k'.repeat(32)]);
  try {
    const r = await open.api('/api/openapi.json');
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('content-type'), 'application/json');
    const raw = await (await fetch(`${open.url}/api/openapi.json`)).text();
    assert.ok(raw === file, `byte for byte server/openapi.json (${raw.length} bytes served, ${file.length} in the file: rebuild build/jitscope?)`);
    assert.equal((await keyed.api('/api/openapi.json')).status, 401);
    const withKey = await keyed.api('/api/openapi.json', { headers: { Authorization: `Bearer ${'k'.repeat(32)}` } });
    assert.equal(withKey.status, 200);
  } finally {
    await open.stop();
    await keyed.stop();
  }
});

// method, path, body (POST), the statuses this server may give
const SWEEP = [
  ['GET', '/api/config', null, [200]],
  ['GET', '/api/openapi.json', null, [200]],
  ['GET', '/api/processes', null, [200]],
  ['POST', '/api/processes/4000000/attach', null, [404]],
  ['POST', '/api/processes/abc/attach', null, [400]],
  ['GET', '/api/diagnostic-port', null, [404]], // 200: tests/e2e/diagport*.test.mjs
  ['GET', '/api/sessions', null, [200]],
  ['HEAD', '/api/sessions', null, [200]],
  ['GET', '/api/sessions/1', null, [200]],
  ['GET', '/api/sessions/2', null, [404]],
  ['GET', '/api/sessions/abc', null, [400]],
  ['GET', '/api/sessions/1/functions?q=x&module=y&sort=jit_time&order=asc&limit=5&offset=1', null, [200]],
  ['GET', '/api/sessions/1/functions?sort=size', null, [400]],
  ['GET', '/api/sessions/1/functions?format=csv', null, [200]],
  ['GET', '/api/sessions/1/functions?format=json', null, [200]],
  ['GET', '/api/sessions/1/functions?format=xml', null, [400]],
  ['GET', '/api/sessions/1/functions/0x1234', null, [404]],
  ['GET', '/api/sessions/1/functions/1234', null, [400]],
  ['GET', '/api/sessions/1/functions/0x1234/code', null, [404]],
  ['GET', '/api/sessions/1/functions/0x1234/code?format=pdf', null, [400]],
  ['GET', '/api/sessions/1/functions/0x1234/code?refresh=2', null, [400]],
  ['GET', '/api/sessions/1/functions/0x1234/code?profile=0', null, [400]],
  ['GET', '/api/sessions/1/functions/0x1234/source', null, [404]],
  ['GET', '/api/sessions/1/functions/0x1234/source?code=2', null, [400]],
  ['GET', '/api/sessions/1/functions/0x1234/inlining', null, [404]],
  ['GET', '/api/sessions/1/startup', null, [200]],
  ['GET', '/api/sessions/1/startup?window_ms=0', null, [400]],
  ['GET', '/api/sessions/1/report', null, [200]],
  ['GET', '/api/sessions/1/report?format=md', null, [200]],
  ['GET', '/api/sessions/1/report?format=pdf', null, [400]],
  ['GET', '/api/sessions/2/report', null, [404]],
  ['GET', '/api/sessions/1/functions?recompiled=true&tier=Tier0,Tier1&origin=app,dynamic', null, [200]],
  ['GET', '/api/sessions/1/functions?origin=mine', null, [400]],
  ['GET', '/api/sessions/1/modules', null, [200]],
  ['GET', '/api/sessions/1/modules?format=csv', null, [200]],
  ['GET', '/api/sessions/1/modules/totals', null, [200]],
  ['GET', '/api/sessions/2/modules/totals', null, [404]],
  ['GET', '/api/sessions/1/threads?format=json', null, [200]],
  ['GET', '/api/sessions/1/events?after=0&limit=5', null, [200]],
  ['GET', '/api/sessions/1/events?limit=0', null, [400]],
  ['GET', '/api/sessions/1/events?format=csv', null, [200]],
  ['POST', '/api/sessions/1/detach', null, [409]],
  ['POST', '/api/sessions/1/stacks', null, [409]],
  ['GET', '/api/sessions/1/stacks', null, [200]],
  ['GET', '/api/sessions/1/stacks/1', null, [404]],
  ['GET', '/api/sessions/1/stacks/1?format=pdf', null, [400]],
  ['POST', '/api/sessions/1/profile', '{"hz": 49}', [409]],
  ['POST', '/api/sessions/1/profile', '{"hz": 0}', [400]],
  ['GET', '/api/sessions/1/profile', null, [200]],
  ['GET', '/api/sessions/1/profile?format=folded', null, [200]],
  ['GET', '/api/sessions/1/profile?format=speedscope', null, [200]],
  ['GET', '/api/sessions/1/profile?from_ms=5&to_ms=1', null, [400]],
  ['GET', '/api/sessions/1/profile?thread_key=0', null, [200]],
  ['GET', '/api/sessions/1/profile?thread_key=x', null, [400]],
  ['POST', '/api/sessions/1/profile/stop', null, [409]],
  ['GET', '/api/sessions/1/timeline?from_ms=0&to_ms=9000000000000&limit=10', null, [200]],
  ['GET', '/api/sessions/1/timeline?limit=0', null, [400]],
  ['POST', '/api/sessions/1/tiers', '{"enabled": true}', [409]],
  ['POST', '/api/sessions/1/tiers', '{}', [400]],
  ['GET', '/api/sessions/1/exceptions', null, [200]],
  ['GET', '/api/sessions/1/exceptions?sort=rate&since=0', null, [200]],
  ['GET', '/api/sessions/1/exceptions?sort=size', null, [400]],
  ['GET', '/api/sessions/1/exceptions/1', null, [404]],
  ['POST', '/api/sessions/1/exceptions', '{"enabled": false}', [409]],
  ['POST', '/api/sessions/1/exceptions', '{}', [400]],
  ['GET', '/api/sessions/1/allocations', null, [200]],
  ['GET', '/api/sessions/1/allocations?group=stack', null, [200]],
  ['GET', '/api/sessions/1/allocations?format=pprof', null, [200]],
  ['GET', '/api/sessions/1/allocations?format=speedscope', null, [200]],
  ['GET', '/api/sessions/1/allocations?series=second', null, [200]],
  ['GET', '/api/sessions/1/allocations?series=minute', null, [400]],
  ['GET', '/api/sessions/1/allocations?group=thread', null, [400]],
  ['POST', '/api/sessions/1/allocations', '{"enabled": true}', [409]],
  ['POST', '/api/sessions/1/allocations', '{}', [400]],
  ['GET', '/metrics', null, [200]],
  ['POST', '/metrics', null, [405]],
  ['GET', '/api/nope', null, [404]],
  ['GET', '/api/sessions/abc/nope', null, [400]],
  ['PUT', '/api/sessions/1', null, [405]],
  ['POST', '/api/sessions', 'x'.repeat(5000), [413]],
  ['GET', '/index.html', null, [200]],
  ['GET', '/js/main.js', null, [200]],
  ['GET', '/no-such-file.html', null, [404]],
  ['GET', '/api/compare?a=1&b=1', null, [200]],
  ['GET', '/api/compare?a=1&b=1&section=methods&only=both&sort=delta&limit=5', null, [200]],
  ['GET', '/api/compare?a=1&b=1&section=modules&format=csv', null, [200]],
  ['GET', '/api/compare?a=1', null, [400]],
  ['GET', '/api/compare?a=1&b=7', null, [404]],
  ['DELETE', '/api/sessions/2', null, [404]],
  ['DELETE', '/api/sessions/abc', null, [400]],
  ['DELETE', '/api/sessions/1', null, [200]], // last: the session is gone after it
];

test('every documented operation answers as documented (a session without an agent)', async () => {
  const srv = await startServer(['run', '--port', '0', '--', '/bin/sh', '-c', 'exit 3']);
  try {
    await waitFor('exited', async () => (await srv.api('/api/sessions/1')).body.state === 'exited');
    seenOperations.clear();
    for (const [method, p, body, statuses] of SWEEP) {
      const init = { method };
      if (body !== null) Object.assign(init, { body, headers: { 'content-type': 'application/json' } });
      const r = await srv.api(p, init); // checked against the document (lib.mjs)
      assert.ok(statuses.includes(r.status), `${method} ${p} -> ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);
    }
    const { doc } = loadOpenApi();
    const documented = Object.entries(doc.paths).flatMap(([t, item]) => METHODS.filter((m) => item[m]).map((m) => `${m.toUpperCase()} ${t}`));
    const missed = documented.filter((o) => !seenOperations.has(o));
    assert.deepEqual(missed, [], 'every documented operation is in SWEEP (add the missing ones)');
    assert.ok(seenOperations.has('x-jitscope-static') && seenOperations.has('x-jitscope-unrouted'));
  } finally {
    await srv.stop();
  }
});

test('the check is strict: missing, mistyped or extra fields, undocumented statuses and routes fail', async () => {
  const srv = await startServer(['run', '--port', '0', '--', '/bin/sh', '-c', 'exit 3']);
  try {
    const detail = await waitFor('exited', async () => { const r = await srv.api('/api/sessions/1'); return r.body.state === 'exited' && r.body; });
    const ok = { method: 'GET', url: '/api/sessions/1', status: 200, contentType: 'application/json' };
    assert.doesNotThrow(() => checkResponse({ ...ok, body: detail }), 'the real body passes');
    const without = structuredClone(detail);
    delete without.pid;
    assert.throws(() => checkResponse({ ...ok, body: without }), (e) => e instanceof OpenApiViolation && /required property 'pid'/.test(e.message));
    const nestedWithout = structuredClone(detail);
    delete nestedWithout.link.connected;
    assert.throws(() => checkResponse({ ...ok, body: nestedWithout }), /\/link must have required property 'connected'/);
    assert.throws(() => checkResponse({ ...ok, body: { ...detail, counters: { ...detail.counters, functions: '3' } } }), /\/counters\/functions must be integer/);
    assert.throws(() => checkResponse({ ...ok, body: { ...detail, state: 'sleeping' } }), /\/state must be equal to one of the allowed values/);
    assert.throws(() => checkResponse({ ...ok, body: { ...detail, surprise: 1 } }), /must NOT have unevaluated properties/);
    assert.throws(() => checkResponse({ ...ok, status: 418, body: detail }), /status 418 is not documented for GET \/api\/sessions\/\{id\}/);
    assert.throws(() => checkResponse({ ...ok, contentType: 'text/html', body: '<p>' }), /Content-Type "text\/html" is not documented/);
    assert.throws(() => checkResponse({ ...ok, url: '/api/nope', body: detail }), /status 200 is not documented for x-jitscope-unrouted/);
    assert.throws(() => checkResponse({ ...ok, status: 404, body: { error: 1 } }), /\/error must be string/);
    assert.throws(() => checkResponse({ ...ok, status: 404, body: {} }), /required property 'error'/);
  } finally {
    await srv.stop();
  }
});
