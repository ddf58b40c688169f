// mname.js -- a method's name where space is short: namespace (dim),
// declaring type, method (bright), parameters (dim), which the CSS (.mname)
// cuts in that order, each part entirely before the next is touched: the
// namespace from its start ("…Generic.List<T>.Add(T)"), then the parameter
// list, then the type, the method's own name last.
// So a narrow column still reads "List<Speed>.AddWithResize(…" rather than
// "S…AddWithResize(System.ValueTuple<…" or ".ctor(IEnumerable<GeoPoint>, …)"
// without its type. The full name is the tooltip.
import { h } from './dom.js';
import { splitMethod } from './format.js';

// "System.Collections.Generic.List<T>.Add(T)" -> {ns: "System.Collections.Generic.",
// type: "List<T>.", method: "Add", params: "(T)"}; the four make the name again.
export function methodParts(name) {
  const [prefix, leaf] = splitMethod(name || '');
  const [ns, type] = prefix ? splitMethod(prefix.slice(0, -1)) : ['', ''];
  let depth = 0,
    open = -1;
  for (let i = 0; i < leaf.length && open < 0; i++) {
    const c = leaf[i];
    if (c === '<' || c === '[') depth++;
    else if (c === '>' || c === ']') depth--;
    else if (c === '(' && depth === 0 && i > 0) open = i;
  }
  return {
    ns,
    type: prefix ? `${type}.` : '',
    method: open < 0 ? leaf : leaf.slice(0, open),
    params: open < 0 ? '' : leaf.slice(open),
  };
}

// The spans: span.mname > [span.m-ns > span, span.m-rest > [span.m-head >
// [span.m-type, span.m-meth], span.m-params]]. Each level is a flex row whose
// first part gives way entirely before the rest does (app.css, .mname).
function build(el) {
  const ns = h('span');
  const type = h('span', { class: 'm-type' });
  const meth = h('span', { class: 'm-meth' });
  const params = h('span', { class: 'm-params' });
  el.replaceChildren(
    h('span', { class: 'm-ns' }, ns),
    h('span', { class: 'm-rest' }, h('span', { class: 'm-head' }, type, meth), params),
  );
  el._parts = [ns, type, meth, params];
}

// Writes name into an element made by methodName (a table cell reuses its spans).
export function fillMethodName(el, name) {
  const p = methodParts(name);
  if (!el._parts || el._parts[0].parentNode?.parentNode !== el) build(el);
  [p.ns, p.type, p.method, p.params].forEach((t, i) => {
    if (el._parts[i].textContent !== t) el._parts[i].textContent = t;
  });
  el.title = name || '';
}

// A span.mname showing name; extra: more attributes for it.
export function methodName(name, extra = {}) {
  const el = h('span', { ...extra, class: `mname${extra.class ? ` ${extra.class}` : ''}` });
  fillMethodName(el, name);
  return el;
}
