// dom.js -- tiny DOM builder. Data only ever reaches the page as text nodes,
// textContent or attribute values: never through innerHTML.

// h('div', {class: 'x', onclick: fn}, 'text', child, [more])
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  if (attrs) {
    for (const key of Object.keys(attrs)) {
      const v = attrs[key];
      if (v == null || v === false) continue;
      if (key === 'class') el.className = v;
      else if (key === 'text') el.textContent = v;
      else if (key === 'style' && typeof v === 'object') Object.assign(el.style, v);
      else if (key === 'dataset') Object.assign(el.dataset, v);
      else if (key.startsWith('on') && typeof v === 'function')
        el.addEventListener(key.slice(2), v);
      else if (typeof v === 'boolean') el.toggleAttribute(key, v);
      else el.setAttribute(key, String(v));
    }
  }
  appendAll(el, children);
  return el;
}

function appendAll(el, children) {
  for (const c of children) {
    if (c == null || c === false) continue;
    if (Array.isArray(c)) appendAll(el, c);
    else el.append(c instanceof Node ? c : String(c)); // strings become text nodes
  }
}

// Replaces the children of el.
export function fill(el, ...children) {
  el.replaceChildren();
  appendAll(el, children);
  return el;
}

// Sets textContent only when it changed (cheap to call every frame).
export function setText(el, text) {
  const s = text == null ? '' : String(text);
  if (el.textContent !== s) el.textContent = s;
}

export function $(sel, root = document) {
  return root.querySelector(sel);
}
