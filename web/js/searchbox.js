// searchbox.js -- the search input shared by the feed, stacks and profile views.
// Typing calls onInput with the text; Esc empties the box (and tells the view),
// a second Esc leaves it. The session view routes "/" to focus() and a page-level
// Esc to clear(false).
import { h } from './dom.js';

export class SearchBox {
  constructor({ placeholder, label, onInput }) {
    this.onInput = onInput;
    this.el = h('input', {
      type: 'search',
      class: 'search',
      placeholder: `${placeholder}   ( / )`,
      spellcheck: 'false',
      'aria-label': label,
    });
    this.el.addEventListener('input', () => this.onInput(this.el.value));
    this.el.addEventListener('keydown', (e) => {
      if (e.key !== 'Escape') return;
      e.preventDefault();
      e.stopPropagation();
      if (this.el.value) this.clear(true);
      else this.el.blur();
    });
  }

  focus() {
    this.el.focus();
    this.el.select();
  }

  // Empties the box and tells the view. Returns false when there was nothing to
  // do (empty box, focus not kept), so a page-level Esc can fall through.
  clear(keepFocus) {
    if (this.el.value === '' && !keepFocus) return false;
    this.el.value = '';
    this.onInput('');
    if (!keepFocus) this.el.blur();
    return true;
  }
}
