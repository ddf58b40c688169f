// framenames.js -- how a profile's frames are named on screen (flame.js, the
// Profile tab's crumbs, match text and function table). A frame is a node of
// the server's call tree: {name, module, kind}, kind "method" (managed code:
// "Ns.Type.Method(args)"), "native" (a native function, or "lib.so+0x5fb350",
// the start of a function its file has no symbol for) or "label" (a marker:
// [native], [kernel], [unknown], [truncated], [missing frame: ...]); with
// ?lines, a method's "file" and "line", and "split" for a method at one line.
import { splitMethod } from './format.js';

// "Ns.Outer+Inner<T>.Method(int, string)" -> {type: "Outer+Inner<T>", method: "Method", args: "(int, string)"}
function parts(name) {
  const [ns, leaf] = splitMethod(name);
  const paren = leaf.indexOf('(');
  const method = paren < 0 ? leaf : leaf.slice(0, paren);
  const args = paren < 0 ? '' : leaf.slice(paren);
  const type = ns ? splitMethod(ns.slice(0, -1))[1] : '';
  return { type, method, args };
}

const isMethod = (n) => n.kind === 'method' || (!n.kind && !(n.name || '').startsWith('['));

// Labels from longest to shortest, for a box of some width: a method keeps its
// type to the last ("Type.Method" before the parameters go); a native frame
// and a marker have one label, cut at its end (the library stays in view).
export function frameLabels(n) {
  if (n._l) return n._l;
  const name = n.name || '?';
  const out = [name];
  if (isMethod(n)) {
    const { type, method, args } = parts(name);
    const typed = type ? `${type}.${method}` : method;
    for (const l of [`${typed}${args}`, args && args !== '()' ? `${typed}(…)` : null, typed])
      if (l && !out.includes(l)) out.push(l);
    if (n.split && n.line) {
      // one line of the method (split by line): the line stays in every label
      const at = `:${n.line}`;
      n._l = out.map((l) => l + at);
      return n._l;
    }
  }
  n._l = out;
  return out;
}

// Where a frame is in the source, for its tooltip: "File.cs:42" for a frame
// split by line, "File.cs (from line 40)" for a method; null when the server
// named no file (lines not asked, or no PDB).
export function frameSource(n) {
  if (!n.file) return null;
  if (n.split) return `${n.file}:${n.line}`;
  return n.line ? `${n.file} (from line ${n.line})` : n.file;
}

// A frame's name without its namespace, parameters kept: "Type.Method(int, string)".
export function shortFrame(n) {
  if (!n) return '';
  if (!isMethod(n)) return n.name || '?';
  const { type, method, args } = parts(n.name || '?');
  return `${type ? `${type}.` : ''}${method}${args}`;
}

// The same without the parameters, for a breadcrumb: "Type.Method"; a label
// without its explanation: "[missing frame]".
export function crumbFrame(n) {
  if (!n) return '';
  if (n.kind === 'label') return (n.name || '?').replace(/^\[([^:\]]+):.*\]$/, '[$1]');
  if (!isMethod(n)) return n.name || '?';
  const { type, method } = parts(n.name || '?');
  return type ? `${type}.${method}` : method;
}

const NATIVE_AT = /^(.+)\+0x[0-9a-f]+$/;

// What a frame is, in a sentence, for its tooltip (null: its name says it).
export function frameNote(n) {
  const name = n.name || '';
  if (n.kind === 'native' && NATIVE_AT.test(name) && n.module)
    return `No symbol in ${n.module} for this address: the function that starts at that offset. Its debug file names it (a -dbg package, or for the .NET runtime's libraries dotnet-symbol --symbols <its path>, which puts ${n.module}.dbg next to it).`;
  if (name === '[native]')
    return n.folded
      ? 'Native code outside any managed method: how a thread was entered, or a thread that runs no managed code. The native frames folded into it are listed below.'
      : 'Native code (no managed method): a run of the runtime or a library, or a thread that was in native code only.';
  if (name === '[unknown]') return 'Samples of threads whose stack the runtime could not walk.';
  if (name === '[kernel]') return 'The thread was in the kernel (a system call, a page fault).';
  if (name === '[unmapped]') return 'An address in no mapping of the process.';
  if (name === '[vdso]') return "The kernel's vDSO (clock_gettime and the like).";
  if (name === '[pruned]')
    return 'Smaller callees the server left out of the graph (it sends the 20,000 heaviest frames).';
  if (name === '[truncated]')
    return 'The stack was deeper than the walk keeps: the frames toward the thread start are cut.';
  if (name.startsWith('[missing frame'))
    return "The frame-pointer walk lost a frame here: the method above's caller is not known.";
  if (name.startsWith('[incomplete stack'))
    return "The frame chain stopped before the thread's start: the frames toward it are not known.";
  if (name === '[unnamed managed code]')
    return 'Managed code no method was found for (a stub, or code the agent could not name in time).';
  return null;
}
