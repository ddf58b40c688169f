// vtable.js -- virtualised table with fixed row height (in the spirit of
// Perfetto's virtual_table): a sizer as tall as all rows, and only the rows in
// the viewport plus `overdraw` px above and below exist in the DOM. Row
// elements are pooled and re-bound; a row's cells are rewritten only when the
// row it shows changes.
import { h } from './dom.js';

export class VirtualTable {
  // columns: [{key, title, width (CSS grid track), align: 'right'|undefined, cls, tip}]
  // rowKey(i) -> stable key of view row i (e.g. the buffer row number)
  // renderRow(cells, key, rowEl) -> writes the cells of one row
  constructor({
    columns,
    rowHeight = 22,
    overdraw = 300,
    rowKey,
    renderRow,
    onRowClick,
    emptyText,
  }) {
    this.columns = columns;
    this.rowH = rowHeight;
    this.overdraw = overdraw;
    this.rowKey = rowKey;
    this.renderRow = renderRow;
    this.count = 0;
    this.follow = true;
    this.selectedKey = null;
    this.byKey = new Map(); // row key -> row element in the DOM
    this.spare = []; // row elements not in use
    this.dirty = true;
    this.onFollowChange = null;
    this.onScroll = null;

    this.head = h(
      'div',
      { class: 'vt-head', role: 'row' },
      columns.map((c) =>
        h(
          'div',
          {
            class: `${c.align === 'right' ? 'num' : ''}`,
            title: c.tip || c.title,
            role: 'columnheader',
          },
          c.title,
        ),
      ),
    );
    this.rowsEl = h('div', { class: 'vt-rows', role: 'rowgroup' });
    this.sizer = h('div', { class: 'vt-sizer' }, this.rowsEl);
    this.scroller = h('div', { class: 'vt-scroll', tabindex: '0' }, this.sizer);
    this.emptyEl = h('div', { class: 'vt-empty' }, emptyText || 'No rows');
    this.el = h('div', { class: 'vt', role: 'table' }, this.head, this.scroller, this.emptyEl);
    this.el.style.setProperty('--vt-cols', columns.map((c) => c.width).join(' '));
    this.el.style.setProperty('--row-h', `${rowHeight}px`);

    this.lastScrollTop = 0;
    this.expectTop = null; // scrollTop we set ourselves, to tell our scrolls from the user's
    this.scroller.addEventListener('scroll', () => this.handleScroll(), { passive: true });
    // Any upward intent from the user stops following at once.
    this.scroller.addEventListener(
      'wheel',
      (e) => {
        if (e.deltaY < 0) this.setFollow(false);
      },
      { passive: true },
    );
    this.scroller.addEventListener('keydown', (e) => {
      if (['ArrowUp', 'PageUp', 'Home'].includes(e.key)) this.setFollow(false);
    });
    if (onRowClick) {
      this.rowsEl.addEventListener('click', (e) => {
        const rowEl = e.target.closest('.vt-row');
        if (rowEl && rowEl._key != null) onRowClick(rowEl._key);
      });
    }
    this.resizeObs = new ResizeObserver(() => {
      this.syncHeaderPad();
      this.invalidate();
      this.onScroll && this.onScroll();
    });
    this.resizeObs.observe(this.scroller);
  }

  destroy() {
    this.resizeObs.disconnect();
  }

  setEmptyText(text) {
    if (this.emptyEl.textContent !== text) this.emptyEl.textContent = text;
  }

  syncHeaderPad() {
    const sb = this.scroller.offsetWidth - this.scroller.clientWidth;
    this.head.style.paddingRight = `${sb}px`;
  }

  handleScroll() {
    const st = this.scroller.scrollTop;
    const ours = this.expectTop !== null && Math.abs(st - this.expectTop) < 2;
    this.expectTop = null;
    if (!ours) {
      const atBottom =
        st + this.scroller.clientHeight >= this.scroller.scrollHeight - this.rowH * 1.5;
      if (atBottom && !this.follow) this.setFollow(true);
      else if (!atBottom && st < this.lastScrollTop) this.setFollow(false);
    }
    this.lastScrollTop = st;
    this.onScroll && this.onScroll();
  }

  setFollow(on) {
    if (this.follow === on) return;
    this.follow = on;
    this.onFollowChange && this.onFollowChange(on);
  }

  invalidate() {
    this.dirty = true;
  }

  // Forces every visible row to be rewritten (e.g. thread names became known,
  // or the filter changed which rows the keys point at).
  invalidateRows() {
    for (const el of this.byKey.values()) this.spare.push(el);
    this.byKey.clear();
    this.dirty = true;
  }

  setCount(n) {
    if (n !== this.count) {
      this.count = n;
      this.dirty = true;
    }
  }

  // Moves the scroll position by n rows (rows were removed above the viewport).
  shiftRows(n) {
    const st = this.scroller.scrollTop;
    const target = Math.max(0, st + n * this.rowH);
    if (target !== st) {
      this.expectTop = target;
      this.scroller.scrollTop = target;
      this.lastScrollTop = target;
    }
  }

  scrollToEnd() {
    const target = Math.max(0, this.count * this.rowH - this.scroller.clientHeight);
    if (Math.abs(this.scroller.scrollTop - target) > 1) {
      this.expectTop = target;
      this.scroller.scrollTop = target;
    }
  }

  // One render pass; call from the frame scheduler. Rows still in range keep
  // their element (only its position changes); new rows take a spare element.
  render() {
    const total = this.count * this.rowH;
    if (this.sizer._h !== total) {
      this.sizer.style.height = `${total}px`;
      this.sizer._h = total;
    }
    this.emptyEl.style.display = this.count === 0 ? '' : 'none';
    if (this.follow) this.scrollToEnd();
    const viewH = this.scroller.clientHeight;
    const top = this.follow ? Math.max(0, total - viewH) : this.scroller.scrollTop;
    // While following, nobody looks above the viewport: skip the overdraw there.
    const above = this.follow ? this.rowH * 2 : this.overdraw;
    const first = Math.max(0, Math.floor((top - above) / this.rowH));
    const last = Math.min(this.count, Math.ceil((top + viewH + this.overdraw) / this.rowH));
    const n = Math.max(0, last - first);
    const keys = new Array(n);
    const wanted = new Set();
    for (let k = 0; k < n; k++) {
      keys[k] = this.rowKey(first + k);
      wanted.add(keys[k]);
    }
    const byKey = this.byKey;
    for (const [key, el] of byKey)
      if (!wanted.has(key)) {
        byKey.delete(key);
        this.spare.push(el);
      }
    for (let k = 0; k < n; k++) {
      const key = keys[k];
      let el = byKey.get(key);
      if (!el) {
        el = this.spare.pop() || this.makeRow();
        el._key = key;
        this.renderRow(el._cells, key, el);
        byKey.set(key, el);
        if (el.parentNode !== this.rowsEl) this.rowsEl.append(el);
      }
      const idx = first + k;
      const y = idx * this.rowH;
      if (el._y !== y) {
        el._y = y;
        el.style.top = `${y}px`;
      }
      const odd = (idx & 1) === 1;
      if (el._odd !== odd) {
        el._odd = odd;
        el.classList.toggle('odd', odd);
      }
      const sel = key === this.selectedKey;
      if (el._sel !== sel) {
        el._sel = sel;
        el.classList.toggle('sel', sel);
      }
    }
    for (const el of this.spare)
      if (el.parentNode) {
        el.remove();
        el._y = -1;
      }
    this.dirty = false;
    this.visibleRange = [first, last];
  }

  makeRow() {
    const cells = this.columns.map((c) =>
      h('div', {
        class: `c-${c.key}${c.align === 'right' ? ' num' : ''}${c.cls ? ' ' + c.cls : ''}`,
        role: 'cell',
      }),
    );
    const row = h('div', { class: 'vt-row', role: 'row' }, cells);
    row._cells = cells;
    row._key = null;
    row._y = -1;
    return row;
  }

  // How many rows fit in the viewport.
  pageRows() {
    return Math.ceil((this.scroller.clientHeight || 600) / this.rowH);
  }

  // Keys of the rows fully inside the viewport (tests, keyboard).
  visibleKeys() {
    const top = this.scroller.scrollTop,
      bottom = top + this.scroller.clientHeight;
    const out = [];
    const a = Math.floor(top / this.rowH),
      b = Math.min(this.count, Math.floor(bottom / this.rowH));
    for (let i = a; i < b; i++) out.push(this.rowKey(i));
    return out;
  }
}
