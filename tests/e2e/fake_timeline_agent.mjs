// fake_timeline_agent.mjs -- an agent stand-in for one timeline test: started by
// `jitscope run` (so it has the real socket and token), it says hello and sends a
// fixed script of GC and runtime-suspension records (proto/wire.h), then waits to
// be killed. The script has the two interleavings the real agent reports
// (agent/gctimeline.c): the runtime calls RuntimeResumeFinished after it has let the
// next suspender in, so a suspension's start can come before the previous one's
// resume, in both orders (a GC then ours, ours then a GC). Every phase carries its
// own suspension's reason, as the agent sends it.
import fs from 'node:fs';
import net from 'node:net';

// The wire version the server expects is the one proto/wire.h says.
const WIRE_VERSION = Number(/#define WIRE_VERSION (\d+)u/.exec(
  fs.readFileSync(new URL('../../proto/wire.h', import.meta.url), 'utf8'))[1]);

const sock = process.env.JITSCOPE_SOCKET, token = process.env.JITSCOPE_TOKEN;
const MS = 1000000n;
const t0 = process.hrtime.bigint();
let seq = 0;
function frame(type, payload, at) {
  const h = Buffer.alloc(24);
  h.writeUInt16LE(type, 0); h.writeUInt32LE(payload.length, 4);
  h.writeBigUInt64LE(BigInt(++seq), 8); h.writeBigUInt64LE(at, 16);
  return Buffer.concat([h, payload]);
}
const hello = Buffer.alloc(88);
hello.write('JITSCOPE', 0, 'latin1'); hello.writeUInt32LE(WIRE_VERSION, 8); hello.writeUInt32LE(process.pid, 12);
hello.writeUInt32LE(1, 16); hello.writeUInt16LE(2, 20); hello.writeUInt16LE(10, 24); // startup mode, CoreCLR 10
hello.writeBigUInt64LE(t0, 32); hello.writeBigUInt64LE(BigInt(Date.now()) * MS, 40);
hello.write(token, 48, 'latin1');
hello.writeUInt32LE(1 << 20, 80);

const SUSPEND = 22, GC_STARTED = 20, GC_FINISHED = 21;
const STARTED = 1, FINISHED = 2, RESUME_STARTED = 4, RESUME_FINISHED = 5;
const GC = 1, PROFILER = 9;
const phase = (p, reason, ms) => {
  const b = Buffer.alloc(8); b.writeUInt32LE(p, 0); b.writeUInt32LE(reason, 4);
  return frame(SUSPEND, b, t0 + BigInt(ms) * MS);
};
const gc = (gens, reason, startMs, endMs) => {
  const b = Buffer.alloc(8); b.writeUInt32LE(gens, 0); b.writeUInt32LE(reason, 4);
  return [frame(GC_STARTED, b, t0 + BigInt(startMs) * MS), frame(GC_FINISHED, Buffer.alloc(8), t0 + BigInt(endMs) * MS)];
};
// The hello is the connection's first frame: sequence number 1 (the server
// refuses a record whose number is not above the last one).
const helloFrame = frame(1, hello, t0);
// Expected timeline (ms after t0): gc 10-14, profiler 13-17, profiler 20-24, gc 23-27,
// and last an induced gen-0 GC 30-31 that the test waits for.
const script = [
  phase(STARTED, GC, 10), phase(FINISHED, GC, 11), phase(RESUME_STARTED, GC, 12),
  phase(STARTED, PROFILER, 13), phase(RESUME_FINISHED, GC, 14),
  phase(FINISHED, PROFILER, 15), phase(RESUME_STARTED, PROFILER, 16), phase(RESUME_FINISHED, PROFILER, 17),
  phase(STARTED, PROFILER, 20), phase(FINISHED, PROFILER, 21), phase(RESUME_STARTED, PROFILER, 22),
  phase(STARTED, GC, 23), phase(RESUME_FINISHED, PROFILER, 24),
  phase(FINISHED, GC, 25), phase(RESUME_STARTED, GC, 26), phase(RESUME_FINISHED, GC, 27),
  ...gc(1, 1, 30, 31),
];
const c = net.createConnection(sock, () => c.write(Buffer.concat([helloFrame, ...script])));
c.on('error', () => process.exit(1));
c.on('close', () => process.exit(0));
setTimeout(() => process.exit(0), 600000);
