// fake_agent.mjs -- an agent stand-in for the ingest benchmark only: speaks the
// wire protocol (proto/wire.h) from the environment `jitscope run` sets.
import net from 'node:net';

const N = Number(process.argv[2] || 100000);
const sock = process.env.JITSCOPE_SOCKET, token = process.env.JITSCOPE_TOKEN;
let seq = 0;
function frame(type, payload) {
  const h = Buffer.alloc(24);
  h.writeUInt16LE(type, 0); h.writeUInt32LE(payload.length, 4);
  h.writeBigUInt64LE(BigInt(++seq), 8); h.writeBigUInt64LE(process.hrtime.bigint(), 16);
  return Buffer.concat([h, payload]);
}
const hello = Buffer.alloc(88);
hello.write('JITSCOPE', 0, 'latin1'); hello.writeUInt32LE(3, 8); hello.writeUInt32LE(process.pid, 12);
hello.writeUInt32LE(1, 16); hello.writeUInt16LE(2, 20); hello.writeUInt16LE(10, 24);
const now = process.hrtime.bigint();
hello.writeBigUInt64LE(now, 32); hello.writeBigUInt64LE(BigInt(Date.now()) * 1000000n, 40);
hello.write(token, 48, 'latin1');
const c = net.createConnection(sock, async () => {
  c.write(frame(1, hello));
  let chunk = [];
  for (let i = 1; i <= N; i++) {
    const fid = BigInt(0x7f0000000000 + i * 64);
    let p;
    if (i % 3 === 1) { p = Buffer.alloc(24); p.writeBigUInt64LE(fid, 0); p.writeBigUInt64LE(0x55n, 8); chunk.push(frame(2, p)); }
    else if (i % 3 === 2) {
      const name = Buffer.from(`Bench.Namespace.Type${i % 97}.Method${i}`);
      p = Buffer.alloc(24 + 2 + name.length); p.writeBigUInt64LE(fid - 64n, 0); p.writeUInt16LE(name.length, 24); name.copy(p, 26);
      chunk.push(frame(4, p));
    } else {
      p = Buffer.alloc(48); p.writeBigUInt64LE(fid - 128n, 0); p.writeBigUInt64LE(0x55n, 8);
      p.writeBigUInt64LE(fid * 2n, 16); p.writeUInt32LE(200, 24); p.writeUInt32LE(50, 28); chunk.push(frame(3, p));
    }
    if (chunk.length === 4096) {
      if (!c.write(Buffer.concat(chunk))) await new Promise((r) => c.once('drain', r));
      chunk = [];
    }
  }
  c.write(Buffer.concat(chunk));
  c.end();
});
c.on('close', () => setTimeout(() => process.exit(0), 100));
