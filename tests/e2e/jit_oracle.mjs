// jit_oracle.mjs -- the JIT's own list of what it compiled, as the yardstick for
// jitscope's names and tiers. With DOTNET_JitStdOutFile=FILE and
// DOTNET_JitDisasmSummary=1 (release runtimes since .NET 8) the JIT writes one
// line per compilation:
//     12: JIT compiled Ns.Type`1[long]:Method[int](long,byref) [Tier0, IL size=46, code size=195]
// Both sides are reduced to a key the two spellings share: the declaring type's
// last name (no namespace, no generic arguments; "(dynamic)" for dynamic
// methods), the method's name, the number of parameters.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { functionsOf } from './lib.mjs';

// Top-level parameters in a parameter list ("" -> 0).
function paramCount(list) {
  if (list.trim() === '') return 0;
  let depth = 0, n = 1;
  for (const ch of list) {
    if ('<[('.includes(ch)) depth++;
    else if ('>])'.includes(ch)) depth--;
    else if (ch === ',' && depth === 0) n++;
  }
  return n;
}

const lastTypeName = (t) => t.replace(/`\d+(\[.*\])?$/, '').replace(/\[.*\]$/, '').split(/[.+]/).pop();

// The JIT's tier names, and the few spellings of "Tier0 that the JIT switched to
// full or minimal optimisation" that the runtime reports as FullOpts / MinOpts.
export function jitTier(text) {
  const t = text.split(' with ')[0].replace(/ @0x[0-9a-f]+$/, '');
  if (/^Tier-?0 switched to FullOpts, then to MinOpts$|^Tier0-FullOpts-MinOpts$|^Tier-0 switched MinOpts$|^Tier0-MinOpts$/.test(t)) return 'MinOpts';
  if (/^Tier-0 switched to FullOpts$|^Tier0-FullOpts$/.test(t)) return 'FullOpts';
  return t;
}

// [{key, tier, ilSize, line}] from a JitStdOutFile.
export function readJitList(file) {
  const out = [];
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    const m = /^\s*\d+: JIT compiled (.*) \[(.*?), IL size=(\d+), code size=\d+\]$/.exec(line);
    if (!m) continue;
    const call = /^(.*?):([^:(]+?)(\[.*\])?\((.*)\)$/.exec(m[1]);
    if (!call) throw new Error(`unexpected JIT line: ${line}`);
    out.push({ key: jitKey(call), tier: jitTier(m[2]), ilSize: Number(m[3]), line: line.trim() });
  }
  return out;
}

// The same key from one of jitscope's names ("Ns.Box<System.Int64>.Set(long)",
// "Ns.Probe+<>c..cctor()", "[dynamic] InvokeStub_X.set_Y(object, Span<object>)",
// "System.RuntimeType+IGenericCacheEntry`1.CreateAndCache(RuntimeType)").
export function keyOfName(name) {
  const dynamic = name.startsWith('[dynamic] ');
  const text = dynamic ? name.slice('[dynamic] '.length) : name;
  const open = text.indexOf('(');
  let head = text.slice(0, open);
  const params = text.slice(open + 1, text.lastIndexOf(')'));
  if (dynamic) return `(dynamic)|${head}|${paramCount(params)}`;
  if (head.endsWith('>')) { // a generic method's arguments
    let depth = 0;
    for (let j = head.length - 1; j >= 0; j--) {
      if (head[j] === '>') depth++;
      else if (head[j] === '<' && --depth === 0) { head = head.slice(0, j); break; }
    }
  }
  let cut = -1, depth = 0;
  for (let j = head.length - 1; j >= 0; j--) {
    const ch = head[j];
    if (ch === '>') depth++;
    else if (ch === '<') depth--;
    else if (ch === '.' && depth === 0) { cut = j; break; }
  }
  let method = head.slice(cut + 1), type = head.slice(0, cut);
  if (cut > 0 && head[cut - 1] === '.') { method = '.' + method; type = head.slice(0, cut - 1); } // .ctor, .cctor
  while (type.endsWith('>')) { // the type's generic arguments
    let d = 0, j = type.length - 1;
    for (; j >= 0; j--) { if (type[j] === '>') d++; else if (type[j] === '<' && --d === 0) break; }
    type = type.slice(0, j);
  }
  // a generic type or method whose instantiation the runtime did not give is
  // named with its arity only ("IGenericCacheEntry`1", "Pick``2"; agent/names.h)
  return `${type.split(/[.+]/).pop().replace(/`\d+$/, '')}|${method.replace(/``\d+$/, '')}|${paramCount(params)}`;
}

// key -> [tier of each live compilation] and the set of every key, from a session.
export async function ourCompilations(srv, id) {
  const fns = await functionsOf(srv, id);
  const live = new Map(), all = new Set();
  for (const f of fns) {
    assert.ok(f.name, `function ${f.function_id} has a name`);
    const key = keyOfName(f.name);
    all.add(key);
    if (!live.has(key)) live.set(key, []);
    for (const c of f.tiers) live.get(key).push(c.tier);
  }
  return { live, all, count: fns.reduce((n, f) => n + f.tiers.length, 0) };
}

// The JIT's "IL size" of each method against the session's il_size (the IL
// code's bytes), for the methods whose key names one function of the session
// (overloads with as many parameters share a key: left out). Returns
// {checked, wrong: [line...]}.
export async function matchIlSizes(srv, id, lines) {
  const byKey = new Map();
  for (const f of await functionsOf(srv, id)) {
    const key = keyOfName(f.name);
    byKey.set(key, byKey.has(key) ? null : f);
  }
  const wrong = [];
  let checked = 0;
  for (const l of lines) {
    const f = byKey.get(l.key);
    if (!f || l.key.startsWith('(dynamic)|')) continue;
    checked++;
    if (f.il_size !== l.ilSize) wrong.push(`${l.line}  (jitscope: il_size ${f.il_size})`);
  }
  return { checked, wrong };
}

// Takes each JIT line's compilation out of `live`; returns the lines that found
// none, and how many matched only as Instrumented Tier0 == Tier0 (the JIT
// instruments some Tier0 code on its own; the runtime's MethodLoad says Tier0).
export function matchTiers(lines, live) {
  const missing = [];
  let instrumentedAsTier0 = 0;
  for (const l of lines) {
    const tiers = live.get(l.key) || [];
    let i = tiers.indexOf(l.tier);
    if (i < 0 && l.tier === 'Instrumented Tier0' && (i = tiers.indexOf('Tier0')) >= 0) instrumentedAsTier0++;
    if (i < 0) missing.push(`${l.line}  (jitscope: ${tiers.join(', ') || 'no compilation'})`);
    else tiers.splice(i, 1);
  }
  return { missing, instrumentedAsTier0 };
}

// The JIT's listings (DOTNET_JitDisasm=... with DOTNET_JitStdOutFile=FILE): one
// entry per compilation, in the order the JIT wrote them:
//   {method, key, tier, bytes, instructions, calls: [key...], helpers, viaRegister, targets}
// `targets` has every call instruction's target in code order: the key of the
// method the JIT names (directly, through a cell or through a register:
// "[rax+0x18]System.Func`2[int,int]:Invoke(int):int:this"), "helper" for a
// CORINFO_HELP_*, "none" for a register the JIT names nothing for ("call rax").
// `instructions` counts the instruction lines but `align` (loop alignment,
// shown as one pseudo-instruction) and `nop`; `calls` are the managed methods
// called by name, `helpers` the calls to CORINFO_HELP_*, `viaRegister` the
// calls through a register or a computed cell (virtual, interface).
export function readJitListings(file) {
  const out = [];
  let cur = null;
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    let m = /^; Assembly listing for method (.*) \((.*)\)$/.exec(line);
    if (m) {
      const call = /^(.*?):([^:(]+?)(\[.*\])?\((.*?)\)/.exec(m[1]);
      cur = { method: m[1], key: call ? jitKey(call) : m[1], tier: jitTier(m[2]), bytes: null, instructions: 0, calls: [], helpers: 0, viaRegister: 0, targets: [] };
      out.push(cur);
      continue;
    }
    if (!cur) continue;
    if ((m = /^; Total bytes of code (\d+)/.exec(line))) { cur.bytes = Number(m[1]); cur = null; continue; }
    if (!(m = /^ {7}(\S+)\s*(.*)$/.exec(line)) || m[1].startsWith(';')) continue;
    const [, mnemonic, operands] = m;
    if (mnemonic === 'align' || mnemonic === 'nop') continue;
    cur.instructions++;
    if (mnemonic !== 'call') continue;
    if (operands.includes('CORINFO_HELP')) { cur.helpers++; cur.targets.push('helper'); continue; }
    let op = operands.trim();
    const reg = /^\[[re][a-z0-9]+([+-][^\]]*)?\](.*)$/.exec(op) || /^([re][a-z0-9]+)()$/.exec(op);
    if (reg) { // [rax+0x20]Name, call rax
      const named = /^(.*?):([^:(]+?)(\[.*\])?\((.*?)\)/.exec(reg[2]);
      cur.targets.push(named ? jitKey(named) : 'none');
      cur.viaRegister++;
      continue;
    }
    if (op.startsWith('[') && op.endsWith(']')) op = op.slice(1, -1);
    const call = /^(.*?):([^:(]+?)(\[.*\])?\((.*?)\)/.exec(op);
    if (call) cur.calls.push(jitKey(call));
    else cur.viaRegister++;
    cur.targets.push(call ? jitKey(call) : 'none');
  }
  return out;
}

// The key of a JIT spelling matched by /^(.*?):([^:(]+?)(\[.*\])?\((.*?)\)/.
// An explicit interface implementation ("RuntimeMethodInfo:System.IRuntimeMethodInfo.get_Value")
// is keyed as jitscope's name splits ("Ns.RuntimeMethodInfo.System.IRuntimeMethodInfo.get_Value()"
// at its last dot): by the interface and the method.
function jitKey([, type, method, , params]) {
  if (type === '(dynamicClass)') return `(dynamic)|${method}|${paramCount(params)}`;
  let t = lastTypeName(type);
  const dot = method.lastIndexOf('.');
  if (dot > 0 && method[dot - 1] !== '.') { // not .ctor / .cctor
    t = lastTypeName(method.slice(0, dot).replace(/<.*>$/, ''));
    method = method.slice(dot + 1);
  }
  return `${t}|${method}|${paramCount(params)}`;
}
