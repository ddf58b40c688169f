// listen.test.mjs -- where the server listens and how it is reached: both
// ports bind exactly the --host address (read back from /proc/net/tcp and
// tcp6), the stream asks for the API key off loopback, a stream port taken
// by someone else is replaced by a free one unless it was asked for, and
// --tls-cert/--tls-key serve HTTPS and wss:// (a self-signed certificate made
// here with the openssl CLI). docs/API.md, "Safety".
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import path from 'node:path';
import WebSocket from '../node_modules/ws/index.js';
import { JITSCOPE, startServer, stopAll } from './lib.mjs';
import { checkResponse, checkWsMessage } from './openapi.mjs';
import { makeCertificate } from './tls.mjs';

after(stopAll);

// /proc/net/tcp{,6} writes addresses as the kernel holds them: each 32-bit
// word in host (little-endian) order.
function procAddress(hex) {
  const words = hex.match(/.{8}/g).map((w) => Buffer.from(w, 'hex').reverse());
  const bytes = Buffer.concat(words);
  if (bytes.length === 4) return [...bytes].join('.');
  const groups = []; // written out in full: '::1' is 0:0:0:0:0:0:0:1
  for (let i = 0; i < 16; i += 2) groups.push(bytes.readUInt16BE(i).toString(16));
  return groups.join(':');
}

// The TCP sockets process `pid` listens on: [{ family, address, port }].
function listeningSockets(pid) {
  const inodes = new Set();
  for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1]);
    } catch { /* closed meanwhile */ }
  }
  const out = [];
  for (const [file, family] of [['/proc/net/tcp', 4], ['/proc/net/tcp6', 6]]) {
    if (!fs.existsSync(file)) continue;
    for (const line of fs.readFileSync(file, 'utf8').split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 10 || f[3] !== '0A' || !inodes.has(f[9])) continue; // 0A: LISTEN
      const [addr, port] = f[1].split(':');
      out.push({ family, address: procAddress(addr), port: parseInt(port, 16) });
    }
  }
  return out.sort((a, b) => a.port - b.port);
}

// Whether a WebSocket upgrade to url opens (then closed again) or is refused.
function wsOpens(url, options = {}) {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, 'jitscope', options);
    ws.on('open', () => { ws.close(); resolve('open'); });
    ws.on('unexpected-response', (_req, res) => resolve(`HTTP ${res.statusCode}`));
    ws.on('error', (e) => resolve(`refused: ${e.code || e.message}`));
  });
}

test('both ports listen on exactly the --host address: 127.0.0.1, ::1, and 0.0.0.0 with a key', async () => {
  for (const [host, family, address, extra] of [
    ['127.0.0.1', 4, '127.0.0.1', []],
    ['::1', 6, '0:0:0:0:0:0:0:1', []],
    ['0.0.0.0', 4, '0.0.0.0', ['--api-key', 'k3y-for-0.0.0.0']],
  ]) {
    const srv = await startServer(['serve', '--port', '0', '--host', host, ...extra]);
    try {
      const auth = extra.length ? { headers: { Authorization: `Bearer ${extra[1]}` } } : {};
      const wsPort = (await srv.api('/api/config', auth)).body.ws_port;
      const sockets = listeningSockets(srv.proc.pid);
      console.log(`--host ${host}: ${sockets.map((s) => `${s.family === 6 ? `[${s.address}]` : s.address}:${s.port}`).join(', ')}`);
      assert.deepEqual(sockets, [{ family, address, port: srv.port }, { family, address, port: wsPort }]
        .sort((a, b) => a.port - b.port), `--host ${host}: REST and the stream on ${address} only`);
      if (host === '::1') assert.equal(srv.url, `http://[::1]:${srv.port}`, 'the printed URL is the bound address');
      if (!extra.length) { // and the stream answers there (the API just did)
        assert.equal(await wsOpens(`ws://${family === 6 ? '[::1]' : '127.0.0.1'}:${wsPort}/`), 'open', `the stream on ${host}`);
      }
      if (host === '0.0.0.0') {
        // off loopback the upgrade needs the key, like every /api request
        const url = `ws://127.0.0.1:${wsPort}/`;
        assert.match(await wsOpens(url), /^HTTP 40\d$|^refused/, 'no key: refused');
        assert.match(await wsOpens(`${url}?key=wrong`), /^HTTP 40\d$|^refused/, 'wrong key: refused');
        assert.equal(await wsOpens(`${url}?key=${extra[1]}`), 'open', 'the key opens it');
        assert.match(srv.stderr, /warning: listening on 0\.0\.0\.0 without TLS/, 'warned: no TLS off loopback');
      } else {
        assert.doesNotMatch(srv.stderr, /without TLS/, 'no warning on loopback');
      }
    } finally {
      await srv.stop();
    }
  }
});

test('a non-loopback --host without an API key is refused before anything listens', async () => {
  const r = spawnSync(JITSCOPE,
    ['serve', '--port', '0', '--data', 'none', '--host', '0.0.0.0'],
    { encoding: 'utf8', timeout: 20000, env: { ...process.env, JITSCOPE_API_KEY: '' } });
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stderr, /binding 0\.0\.0\.0 \(not loopback\) requires an API key/);
  assert.doesNotMatch(r.stderr, /live stream on/, 'the stream never started');
});

// A TCP port p such that p - 1 is free and p is held by `holder` (a plain
// listener standing for another server): returns { port: p - 1, holder }.
async function portBelowATakenOne() {
  for (;;) {
    const holder = net.createServer();
    await new Promise((r) => holder.listen(0, '127.0.0.1', r));
    const taken = holder.address().port;
    const probe = net.createServer();
    const free = await new Promise((resolve) => {
      probe.once('error', () => resolve(false));
      probe.listen(taken - 1, '127.0.0.1', () => probe.close(() => resolve(true)));
    });
    if (free) return { port: taken - 1, taken, holder };
    holder.close();
  }
}

test('the stream port: HTTP + 1 when free, a free one when taken (the page learns it), an explicit taken one is an error', async () => {
  const { port, taken, holder } = await portBelowATakenOne();
  try {
    const srv = await startServer(['serve', '--port', String(port)]);
    try {
      assert.equal(srv.port, port);
      const wsPort = (await srv.api('/api/config')).body.ws_port;
      console.log(`HTTP ${port}, its + 1 (${taken}) held by another listener: the stream took ${wsPort}`);
      assert.notEqual(wsPort, taken, 'not the taken port');
      assert.ok(wsPort > 0);
      // the stream really is there: subscribe and get the first message
      const ws = new WebSocket(`ws://127.0.0.1:${wsPort}/`, 'jitscope');
      const first = await new Promise((resolve, reject) => {
        ws.on('open', () => ws.send(JSON.stringify({ subscribe: 99, after: 0 })));
        ws.on('message', (d) => resolve(JSON.parse(d.toString())));
        ws.on('error', reject);
      });
      checkWsMessage(first);
      assert.deepEqual(first, { type: 'error', error: 'no such session' });
      ws.close();
    } finally {
      await srv.stop();
    }
    // asked for by name, a taken port is an error, not a surprise elsewhere
    const r = spawnSync(JITSCOPE,
      ['serve', '--port', String(port), '--ws-port', String(taken), '--data', 'none'], { encoding: 'utf8', timeout: 20000 });
    assert.equal(r.status, 1, `explicit taken --ws-port: ${r.stderr}`);
    assert.match(r.stderr, new RegExp(`cannot start the WebSocket listener on 127\\.0\\.0\\.1:${taken}: the port is taken`));
  } finally {
    holder.close();
  }
  // and with HTTP + 1 free, that is the stream's port
  const srv = await startServer(['serve', '--port', String(port)]);
  try {
    assert.equal((await srv.api('/api/config')).body.ws_port, port + 1);
  } finally {
    await srv.stop();
  }
});

// GET over HTTPS trusting only `ca`; the response is checked against the OpenAPI document.
function httpsGet(url, ca, headers = {}) {
  return new Promise((resolve, reject) => {
    https.get(url, { ca, headers }, (res) => {
      const cert = res.socket.getPeerCertificate();
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => { text += d; });
      res.on('end', () => {
        let body;
        try { body = JSON.parse(text); } catch { body = text; }
        try {
          checkResponse({ method: 'GET', url, status: res.statusCode, contentType: res.headers['content-type'], body, text });
        } catch (e) { reject(e); return; }
        resolve({ status: res.statusCode, body, text, cert });
      });
    }).on('error', reject);
  });
}

test('--tls-cert/--tls-key: HTTPS and wss:// with a self-signed certificate, nothing in clear', async () => {
  const tls = makeCertificate();
  const key = 'tls-k3y';
  const srv = await startServer(['serve', '--port', '0', '--host', '0.0.0.0', '--api-key', key,
    '--tls-cert', tls.cert, '--tls-key', tls.key]);
  try {
    assert.match(srv.url, /^https:\/\/127\.0\.0\.1:\d+$/, 'the printed URL is https');
    assert.match(srv.stderr, /live stream on wss:\/\//);
    assert.doesNotMatch(srv.stderr, /without TLS/, 'no warning with TLS');
    const auth = { Authorization: `Bearer ${key}` };
    const config = await httpsGet(`${srv.url}/api/config`, tls.ca, auth);
    assert.equal(config.status, 200);
    assert.equal(config.cert.subject.CN, 'jitscope test', 'served with our certificate');
    assert.equal((await httpsGet(`${srv.url}/api/sessions`, tls.ca)).status, 401, 'the key is still needed');
    const page = await httpsGet(`${srv.url}/`, tls.ca);
    assert.equal(page.status, 200);
    assert.match(page.text, /<html/i, 'the dashboard comes over https');
    // plain HTTP on the TLS port gets no answer in clear
    const plain = await fetch(`http://127.0.0.1:${srv.port}/api/config`, { headers: auth }).then((r) => r.status, (e) => e.cause?.code || e.message);
    assert.notEqual(plain, 200, `plain HTTP on the TLS port: ${plain}`);
    // the stream: wss:// with the same certificate, the key, and a working subscription
    const wsPort = config.body.ws_port;
    const ws = new WebSocket(`wss://127.0.0.1:${wsPort}/?key=${key}`, 'jitscope', { ca: tls.ca });
    const first = await new Promise((resolve, reject) => {
      ws.on('open', () => ws.send(JSON.stringify({ subscribe: 5, after: 0 })));
      ws.on('message', (d) => resolve(JSON.parse(d.toString())));
      ws.on('error', reject);
    });
    checkWsMessage(first);
    assert.equal(first.type, 'error', 'a message came over wss');
    ws.close();
    assert.match(await wsOpens(`ws://127.0.0.1:${wsPort}/?key=${key}`), /^refused|^HTTP/, 'no ws:// in clear');
    assert.match(await wsOpens(`wss://127.0.0.1:${wsPort}/`, { ca: tls.ca }), /^HTTP 40\d$|^refused/, 'wss:// still needs the key');
    // POSTs from the dashboard's own https:// origin pass the Origin check; others do not
    const post = (origin) => new Promise((resolve, reject) => {
      const req = https.request(`${srv.url}/api/processes/999999999/attach`, { method: 'POST', ca: tls.ca,
        headers: { ...auth, Origin: origin } }, (res) => {
        let text = '';
        res.on('data', (d) => { text += d; });
        res.on('end', () => resolve(`${res.statusCode} ${JSON.parse(text).error}`));
      });
      req.on('error', reject);
      req.end();
    });
    assert.doesNotMatch(await post(srv.url), /cross-origin/, 'the https:// origin of the dashboard is its own');
    assert.equal(await post(srv.url.replace('https:', 'http:')), '403 cross-origin request refused', 'http:// is not this page');
    assert.equal(await post('https://evil.example'), '403 cross-origin request refused');
    // the command line's client (detach/attach --server) speaks https, verifying the certificate
    const detach = (env) => spawnSync(JITSCOPE, ['detach', '999', '--server', srv.url, '--api-key', key],
      { encoding: 'utf8', timeout: 20000, env: { ...process.env, ...env } });
    const untrusted = detach({ JITSCOPE_CA_FILE: '' });
    assert.equal(untrusted.status, 1);
    assert.match(untrusted.stderr, /cannot reach https:\/\/127\.0\.0\.1:\d+\/api\/sessions: .*(SSL|certificate)/i, 'a self-signed certificate is not trusted by default');
    const trusted = detach({ JITSCOPE_CA_FILE: tls.cert });
    assert.equal(trusted.status, 1);
    assert.match(trusted.stderr, /no session 999 and no live session of pid 999 on https:/, `with JITSCOPE_CA_FILE it reached the server: ${trusted.stderr}`);
  } finally {
    await srv.stop();
    tls.remove();
  }
  assert.equal(srv.exit.code, 0, srv.stderr.slice(-500));
});

test('bad TLS options: one without the other, a missing file, a key that is not the certificate\'s', async () => {
  const tls = makeCertificate();
  const other = makeCertificate();
  const bin = JITSCOPE;
  const run = (args) => spawnSync(bin, ['serve', '--port', '0', '--data', 'none', ...args], { encoding: 'utf8', timeout: 20000 });
  try {
    let r = run(['--tls-cert', tls.cert]);
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /--tls-cert and --tls-key go together/);
    r = run(['--tls-cert', path.join(tls.dir, 'nope.pem'), '--tls-key', tls.key]);
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /nope\.pem: No such file or directory/);
    r = run(['--tls-cert', tls.cert, '--tls-key', other.key]);
    console.log(`mismatched key: exit ${r.status}: ${r.stderr.trim().split('\n').slice(-2).join(' | ')}`);
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, /refused --tls-cert\/--tls-key \(is the key the certificate's, both PEM\?\)/);
  } finally {
    tls.remove();
    other.remove();
  }
});
