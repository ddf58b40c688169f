// export.test.mjs -- ?format=csv|json on functions, modules, threads and events
// of a real session: RFC 4180 CSV (read back with a strict parser here) holds
// exactly the rows and values of the JSON answer; file names come with
// Content-Disposition; an unknown format is a 400 with a JSON error.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { E2E_DLL, startServer, waitFor, stopAll, fetchChecked } from './lib.mjs';

after(stopAll);

// RFC 4180: CRLF records, fields quoted when needed, "" inside quotes.
function parseCsv(text) {
  const rows = [];
  let row = [], field = '', i = 0, quoted = false;
  while (i < text.length) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') { field += '"'; i += 2; continue; }
      if (ch === '"') { quoted = false; i++; continue; }
      field += ch; i++; continue;
    }
    if (ch === '"' && field === '') { quoted = true; i++; continue; }
    if (ch === ',') { row.push(field); field = ''; i++; continue; }
    if (ch === '\r' && text[i + 1] === '\n') { row.push(field); rows.push(row); row = []; field = ''; i += 2; continue; }
    assert.ok(ch !== '\n' && ch !== '\r', `a bare line break outside quotes at ${i}`);
    field += ch; i++;
  }
  assert.equal(field, '', 'the file ends with CRLF');
  assert.equal(row.length, 0);
  return rows;
}

const asText = (v) => (v === null || v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v));

test('exports: CSV and JSON files of every list, the same rows as the API', async () => {
  const srv = await startServer(['run', '--port', '0', '--', 'dotnet', E2E_DLL]);
  try {
    await waitFor('exited', async () => (await srv.api('/api/sessions/1')).body.state === 'exited', { timeoutMs: 60000 });
    for (const list of ['functions', 'modules', 'threads', 'events']) {
      const q = `/api/sessions/1/${list}?limit=10000`;
      const json = (await srv.api(q)).body[list];
      assert.ok(json.length > 0, `${list}: rows`);
      const r = await fetchChecked(`${srv.url}${q}&format=csv`);
      assert.equal(r.status, 200);
      assert.equal(r.headers.get('content-type'), 'text/csv; charset=utf-8');
      assert.equal(r.headers.get('content-disposition'), `attachment; filename="jitscope-session-1-${list}.csv"`);
      const rows = parseCsv(await r.text());
      const header = rows.shift();
      assert.deepEqual(header, Object.keys(json[0]), `${list}: the header is the JSON rows' keys`);
      assert.equal(rows.length, json.length, `${list}: one CSV row per JSON row`);
      rows.forEach((row, k) => header.forEach((h, c) => {
        const v = json[k][h], f = row[c];
        // numbers and nested values as JSON writes them: compared as values, not as text
        if (typeof v === 'number') assert.equal(Number(f), v, `${list} row ${k} ${h}`);
        else if (v !== null && typeof v === 'object') assert.deepEqual(JSON.parse(f), v, `${list} row ${k} ${h}`);
        else assert.equal(f, asText(v), `${list} row ${k} ${h}`);
      }));
      const j = await fetchChecked(`${srv.url}${q}&format=json`);
      assert.equal(j.headers.get('content-disposition'), `attachment; filename="jitscope-session-1-${list}.json"`);
      assert.deepEqual((await j.json())[list], json);
    }
    // a method name with a comma in it survives the round trip
    const fns = parseCsv(await (await fetchChecked(`${srv.url}/api/sessions/1/functions?limit=10000&format=csv`)).text());
    const nameAt = fns[0].indexOf('name');
    assert.ok(fns.some((row) => row[nameAt] === 'JitscopeE2e.Probe.Calc(int, ref long)'), 'a name with a comma');
    const bad = await fetchChecked(`${srv.url}/api/sessions/1/functions?format=xml`);
    assert.equal(bad.status, 400);
    assert.match((await bad.json()).error, /format must be csv or json/);
  } finally {
    await srv.stop();
  }
});
