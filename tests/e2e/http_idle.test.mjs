// http_idle.test.mjs -- what the server says when it closes HTTP connections at
// the whole-request deadline (server/http_deadline.h, docs/API.md "Limits").
// A browser opens sockets before it needs them and keeps answered ones open:
// those are closed at the deadline without a word on stderr (counted in
// /metrics as idle). A connection whose request had begun and stayed
// incomplete is closed the same way and logged as such. Over plain HTTP and
// over TLS (where the handshake's bytes must not count as a request begun).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import tls from 'node:tls';
import { startServer, stopAll, waitFor } from './lib.mjs';
import { makeCertificate } from './tls.mjs';

after(stopAll);

const DEADLINE_MS = 10000; // HTTP_REQUEST_SECONDS (server/http_deadline.h)

// A client socket (plain or TLS) that records the server's close.
function client(port, ca) {
  return new Promise((resolve, reject) => {
    const c = { closed: false, data: '' };
    c.sock = ca ? tls.connect({ port, host: '127.0.0.1', ca }, () => resolve(c)) : net.createConnection(port, '127.0.0.1', () => resolve(c));
    c.sock.setEncoding('utf8');
    c.sock.on('data', (d) => { c.data += d; });
    c.sock.on('close', () => { c.closed = true; });
    c.sock.on('error', () => {});
    c.sock.once('error', reject);
  });
}

async function closedCounts(srv, get) {
  const text = await get('/metrics');
  const count = (reason) => Number(new RegExp(`^jitscope_http_connections_closed_total\\{reason="${reason}"\\} (\\d+)$`, 'm').exec(text)?.[1]);
  return { idle: count('idle'), incomplete: count('incomplete'), untrusted: count('untrusted') };
}

// Opens the four kinds of connection, waits for the server to close each,
// and checks what it said about them.
async function idleAndIncomplete(srv, ca, get) {
  const host = `Host: 127.0.0.1:${srv.port}\r\n`;
  const preopened = await client(srv.port, ca); // sends nothing, as a browser's spare socket
  const kept = await client(srv.port, ca); // answered once, then kept for a next request
  kept.sock.write(`GET /api/config HTTP/1.1\r\n${host}\r\n`);
  await waitFor('the kept connection\'s answer', () => /\r\n\r\n\{/.test(kept.data));
  const halfLine = await client(srv.port, ca); // part of a request line
  halfLine.sock.write('GET /api/sess');
  const halfHeaders = await client(srv.port, ca); // the request line and part of its headers
  halfHeaders.sock.write(`GET /api/sessions HTTP/1.1\r\n${host}X-Slow: a`);
  const all = { preopened, kept, halfLine, halfHeaders };
  await waitFor('the server closed every connection at its deadline',
    () => Object.values(all).every((c) => c.closed), { timeoutMs: DEADLINE_MS + 15000, everyMs: 200 });
  const counts = await closedCounts(srv, get);
  return { all, counts };
}

function loggedIncomplete(stderr) {
  return [...stderr.matchAll(/closed (\d+) HTTP connection\(s\) whose request was still incomplete 10 s after it began/g)]
    .reduce((n, m) => n + Number(m[1]), 0);
}

test('idle connections (pre-opened, kept after an answer) are closed at the deadline without a word; incomplete requests are logged', async () => {
  const srv = await startServer(['serve', '--port', '0', '--data', 'none']);
  const get = async (p) => (await fetch(`${srv.url}${p}`)).text();
  const { all, counts } = await idleAndIncomplete(srv, null, get);
  assert.equal(all.preopened.data, '', 'nothing answered on a connection that asked nothing');
  assert.equal(all.halfHeaders.data, '', 'no answer to an incomplete request');
  assert.equal(counts.idle, 2, `the pre-opened and the kept connection closed as idle: ${JSON.stringify(counts)}`);
  assert.equal(counts.incomplete, 2, `the two begun requests closed as incomplete: ${JSON.stringify(counts)}`);
  assert.equal(loggedIncomplete(srv.stderr), 2, srv.stderr);
  assert.doesNotMatch(srv.stderr, /sent no whole request|idle/, 'idle connections are not reported on stderr');
});

test('over TLS: a handshake alone is idle, a begun request is incomplete', async () => {
  const cert = makeCertificate();
  try {
    const srv = await startServer(['serve', '--port', '0', '--data', 'none', '--tls-cert', cert.cert, '--tls-key', cert.key]);
    const get = (p) => new Promise((resolve, reject) => {
      const s = tls.connect({ port: srv.port, host: '127.0.0.1', ca: cert.ca }, () =>
        s.end(`GET ${p} HTTP/1.1\r\nHost: 127.0.0.1:${srv.port}\r\nConnection: close\r\n\r\n`));
      let text = '';
      s.setEncoding('utf8');
      s.on('data', (d) => { text += d; });
      s.on('end', () => resolve(text));
      s.on('error', reject);
    });
    const { counts } = await idleAndIncomplete(srv, cert.ca, get);
    // with TLS, bytes alone say nothing (a handshake is bytes too): a request
    // has begun once its request line came, so half a line still counts as idle
    assert.equal(counts.idle, 3, JSON.stringify(counts));
    assert.equal(counts.incomplete, 1, `only the one whose request line came: ${JSON.stringify(counts)}`);
    assert.equal(loggedIncomplete(srv.stderr), 1, srv.stderr);
  } finally {
    cert.remove();
  }
});
