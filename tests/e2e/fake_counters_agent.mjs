// fake_counters_agent.mjs -- an agent stand-in for the record-consistency test:
// started by `jitscope run` (so it has the real socket and token), it says hello
// (a ring of 1 MiB) and sends DROPS records the agent's ring and sequence
// numbers make impossible between possible ones, a JIT after them (the
// connection must go on), and counters above 2^53 that are possible (the API
// must serve them exactly). Then it waits to be killed. Layouts: proto/wire.h.
import fs from 'node:fs';
import net from 'node:net';

const WIRE_VERSION = Number(/#define WIRE_VERSION (\d+)u/.exec(
  fs.readFileSync(new URL('../../proto/wire.h', import.meta.url), 'utf8'))[1]);
const T = { HELLO: 1, JIT_FINISHED: 3, NAME: 4, DROPS: 12, AGENT_COST: 24 };
const BIG = 1n << 56n; // WIRE_COUNTER_MAX: the most a counter may be

const sock = process.env.JITSCOPE_SOCKET, token = process.env.JITSCOPE_TOKEN;
const t0 = process.hrtime.bigint();
let seq = 0;
function frame(type, payload) {
  const h = Buffer.alloc(24);
  h.writeUInt16LE(type, 0); h.writeUInt32LE(payload.length, 4);
  h.writeBigUInt64LE(BigInt(++seq), 8); h.writeBigUInt64LE(t0 + BigInt(seq) * 1000n, 16);
  return Buffer.concat([h, payload]);
}
const hello = Buffer.alloc(88);
hello.write('JITSCOPE', 0, 'latin1'); hello.writeUInt32LE(WIRE_VERSION, 8); hello.writeUInt32LE(process.pid, 12);
hello.writeUInt32LE(1, 16); hello.writeUInt16LE(2, 20); hello.writeUInt16LE(10, 24);
hello.writeBigUInt64LE(t0, 32); hello.writeBigUInt64LE(BigInt(Date.now()) * 1000000n, 40);
hello.write(token, 48, 'latin1');
hello.writeUInt32LE(1 << 20, 80); // ring_bytes

// [ring_full, too_large, no_server, name_failed, slow_server, name_late, shutdown], produced, ring_used
function drops(d, produced, ringUsed) {
  const b = Buffer.alloc(72);
  d.forEach((v, i) => b.writeBigUInt64LE(BigInt(v), 8 * i));
  b.writeBigUInt64LE(BigInt(produced), 56); b.writeBigUInt64LE(BigInt(ringUsed), 64);
  return frame(T.DROPS, b);
}
function name(fid, text) {
  const s = Buffer.from(text, 'utf8'), b = Buffer.alloc(24 + 2 + s.length);
  b.writeBigUInt64LE(fid, 0); b.writeBigUInt64LE(0x7f0000200000n, 8); b.writeUInt32LE(0x06000001, 16);
  b.writeUInt16LE(s.length, 24); s.copy(b, 26);
  return frame(T.NAME, b);
}
function jit(fid) {
  const b = Buffer.alloc(48);
  b.writeBigUInt64LE(fid, 0); b.writeBigUInt64LE(0x71n, 8); b.writeBigUInt64LE(0x7f0000900000n, 16);
  b.writeUInt32LE(64, 24); b.writeUInt32LE(10, 28);
  return frame(T.JIT_FINISHED, b);
}
function cost(callbacks) {
  const b = Buffer.alloc(288);
  b.writeBigUInt64LE(callbacks, 0); b.writeBigUInt64LE(callbacks, 8); b.writeBigUInt64LE(callbacks, 16);
  return frame(T.AGENT_COST, b);
}

const script = [
  frame(T.HELLO, hello),
  drops([1, 0, 2, 0, 0, 0, 0], 10, 100), // possible
  drops([BIG, 0, 0, 0, 0, 0, 0], 0, 0), // 2^56 ring-full, nothing produced: refused
  drops([1, 0, 2, 0, 0, 0, 0], 10, 2 << 20), // more bytes in the ring than it has: refused
  drops([1, 0, 2, 0, 3, 0, 0], 10, 0), // slow-server drops without their sequence gaps: refused
  name(0x7f0000001000n, 'Fake.AfterRefusals()'),
  jit(0x7f0000001000n), // the connection goes on
  cost(BIG), // 2^56 callbacks: possible, above 2^53
  drops([BIG - 2n, 0, 2, 0, 0, 0, 0], BIG, 0), // possible, above 2^53
];
const c = net.createConnection(sock, () => c.write(Buffer.concat(script)));
c.on('error', () => process.exit(1));
c.on('close', () => process.exit(0));
setTimeout(() => process.exit(0), 600000);
