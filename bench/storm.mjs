// storm.mjs -- what the benchmarks that drive E2eTarget's held JIT storm
// (`jitstorm 0 hold` under `jitscope run`) share: finding the app's session
// and its agent's sender thread, and waiting until start-up is over.
import fs from 'node:fs';
import { waitFor, sleep } from '../tests/e2e/lib.mjs';

// Once the app holds: its session, the sender thread's id in it, and a
// function that reads the session's JIT count.
export async function heldStorm(srv) {
  await waitFor('holding', () => /^holding$/m.test(srv.stdout), { timeoutMs: 60000 });
  const list = (await srv.api('/api/sessions')).body.sessions;
  const me = list.find((x) => x.command_line.includes(' jitstorm '));
  if (!me) throw new Error(`no session for dotnet among ${JSON.stringify(list.map((x) => x.command_line))}`);
  const sender = fs.readdirSync(`/proc/${me.pid}/task`)
    .find((t) => fs.readFileSync(`/proc/${me.pid}/task/${t}/comm`, 'utf8').trim() === 'jitscope-agent');
  if (!sender) throw new Error(`no jitscope-agent thread in ${me.pid}`);
  const jits = async () => (await srv.api(`/api/sessions/${me.id}`)).body.counters.jit_compilations;
  return { me, sender, jits };
}

// Start-up over: no new compilation for 300 ms. Returns the JIT count then.
export async function startupOver(jits) {
  let c0 = await jits();
  for (const until = Date.now() + 30000; ; c0 = await jits()) {
    await sleep(300);
    if ((await jits()) === c0) return c0;
    if (Date.now() > until) throw new Error('the app kept JITing after start-up for 30 s');
  }
}
