// tls.mjs -- a throw-away TLS certificate for the tests of --tls-cert/--tls-key:
// self-signed, for 127.0.0.1 and ::1, made with the openssl CLI (scripts/deps.sh
// installs it for the tests). remove() deletes its directory.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export function makeCertificate(cn = 'jitscope test') {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'jitscope-tls-'));
  const cert = path.join(dir, 'cert.pem');
  const key = path.join(dir, 'key.pem');
  const r = spawnSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
    '-keyout', key, '-out', cert, '-days', '2', '-subj', `/CN=${cn}`,
    '-addext', 'subjectAltName=IP:127.0.0.1,IP:::1'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`openssl req failed (${r.status}): ${r.error?.message || r.stderr}`);
  return { dir, cert, key, ca: fs.readFileSync(cert), remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}
