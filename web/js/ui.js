// ui.js -- toasts, confirmation dialog, shortcut help, connection indicator.
import { h, setText } from './dom.js';

// ---- toasts: errors and results reach the user on the page ----
const recent = new Map(); // text -> toast element, to fold repeats

export function toast(message, { kind = 'info', timeoutMs } = {}) {
  const box = document.getElementById('toasts');
  const text = String(message);
  const old = recent.get(text);
  if (old && old.isConnected) {
    const n = (Number(old.dataset.repeat) || 1) + 1;
    old.dataset.repeat = String(n);
    setText(old.querySelector('.rep'), ` (×${n})`);
    return old;
  }
  const el = h(
    'div',
    { class: `toast ${kind}`, role: kind === 'error' ? 'alert' : 'status' },
    h('div', { class: 'msg' }, text, h('span', { class: 'rep dim' })),
    h(
      'button',
      {
        class: 'x',
        type: 'button',
        title: 'Dismiss',
        'aria-label': 'Dismiss',
        onclick: () => remove(),
      },
      '×',
    ),
  );
  const remove = () => {
    el.remove();
    if (recent.get(text) === el) recent.delete(text);
  };
  recent.set(text, el);
  box.append(el);
  while (box.children.length > 5) box.firstElementChild.remove();
  const ms = timeoutMs ?? (kind === 'error' ? 12000 : 5000);
  if (ms > 0) setTimeout(remove, ms);
  return el;
}

// ---- modal dialogs (native <dialog>: Esc closes it) ----
let openDialog = null;

export function isDialogOpen() {
  return !!(openDialog && openDialog.open);
}
export function closeDialog() {
  if (openDialog && openDialog.open) openDialog.close('cancel');
}

function showDialog(dlg) {
  closeDialog();
  document.body.append(dlg);
  openDialog = dlg;
  dlg.addEventListener('close', () => {
    dlg.remove();
    if (openDialog === dlg) openDialog = null;
  });
  dlg.showModal();
}

// Resolves true when confirmed.
export function confirmDialog({ title, body, confirmText = 'OK', danger = false }) {
  return new Promise((resolve) => {
    let ok = false;
    const okBtn = h(
      'button',
      {
        class: `btn ${danger ? 'btn-danger' : 'btn-primary'}`,
        type: 'button',
        onclick: () => {
          ok = true;
          dlg.close('ok');
        },
      },
      confirmText,
    );
    const dlg = h(
      'dialog',
      { class: 'confirm', 'aria-label': title },
      h('div', { class: 'dlg-head' }, title),
      h('div', { class: 'dlg-body' }, body),
      h(
        'div',
        { class: 'dlg-foot' },
        h('button', { class: 'btn', type: 'button', onclick: () => dlg.close('cancel') }, 'Cancel'),
        okBtn,
      ),
    );
    dlg.addEventListener('close', () => resolve(ok));
    showDialog(dlg);
    okBtn.focus();
  });
}

export const SHORTCUTS = [
  [['Space'], 'Pause / resume the live JIT feed (nothing is lost while paused)'],
  [['/'], 'Focus the search of the current tab (live feed, stacks, profile)'],
  [['Esc'], 'Clear the search, close a dialog; in the flame graph, zoom out one level'],
  [['f'], 'Follow: jump to the newest JIT and keep following'],
  [['s'], 'Take a stack snapshot of every managed thread (Stacks tab)'],
  [
    ['1', '…', '9'],
    'Session tabs: Live, Slowest, By tier / module, Modules, Threads, Stacks, Profile, GC & pauses, Code',
  ],
  [['g'], 'Go to the sessions list'],
  [['d'], 'Detach from the session (asks first)'],
  [['?'], 'This help'],
];

export function showHelp() {
  const rows = [];
  for (const [keys, what] of SHORTCUTS) {
    rows.push(
      h(
        'div',
        { class: 'keys' },
        keys.map((k, i) =>
          k === '…' ? ' … ' : [i && keys[i - 1] !== '…' ? ' ' : '', h('kbd', null, k)],
        ),
      ),
    );
    rows.push(h('div', null, what));
  }
  const dlg = h(
    'dialog',
    { class: 'help', 'aria-label': 'Keyboard shortcuts' },
    h('div', { class: 'dlg-head' }, 'Keyboard shortcuts'),
    h(
      'div',
      { class: 'dlg-body' },
      h('div', { class: 'help-grid' }, rows),
      h(
        'div',
        { class: 'help-note' },
        'Click a row in the live feed for its details; click a module in “By tier / module” to filter the feed by it. ',
        'In the flame graph, click a frame to zoom in and a frame above (or the path) to zoom out; drag on the samples chart to keep a time range. ',
        'On the GC & pauses chart, the mouse wheel zooms, dragging pans and a double-click shows the whole session again. ',
        'Scrolling up in the feed stops following; scroll to the bottom or press ',
        h('kbd', null, 'f'),
        ' to follow again.',
      ),
    ),
    h(
      'div',
      { class: 'dlg-foot' },
      h('button', { class: 'btn', type: 'button', onclick: () => dlg.close() }, 'Close'),
    ),
  );
  showDialog(dlg);
}

// Asks for the API key (servers bound to a non-loopback address want one).
export function askApiKey(message, onKey) {
  if (isDialogOpen()) return;
  const input = h('input', {
    type: 'password',
    autocomplete: 'off',
    placeholder: 'API key',
    style: { width: '100%' },
  });
  const dlg = h(
    'dialog',
    { 'aria-label': 'API key required' },
    h('div', { class: 'dlg-head' }, 'API key required'),
    h(
      'div',
      { class: 'dlg-body' },
      h('p', null, message || 'This jitscope server needs an API key.'),
      h(
        'p',
        { class: 'dim' },
        'It was printed by the server at start-up. It is kept for this browser tab only.',
      ),
      input,
    ),
    h(
      'div',
      { class: 'dlg-foot' },
      h('button', { class: 'btn', type: 'button', onclick: () => dlg.close() }, 'Cancel'),
      h(
        'button',
        {
          class: 'btn btn-primary',
          type: 'button',
          onclick: () => {
            onKey(input.value.trim());
            dlg.close();
          },
        },
        'Use key',
      ),
    ),
  );
  input.addEventListener('keydown', (e) => {
    if (e.key === 'Enter') {
      onKey(input.value.trim());
      dlg.close();
    }
  });
  showDialog(dlg);
  input.focus();
}

// ---- connection indicator in the top bar ----
export function setConnection(kind, text, title) {
  const el = document.getElementById('conn');
  el.className = `conn ${kind}`;
  setText(el, text);
  el.title = title || text;
}
