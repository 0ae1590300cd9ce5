/// <reference lib="dom" />
/**
 * Typed DOM helpers, all text: what a user wrote (names, definitions, SQL results) is put in as
 * text, never as markup, so the page needs no sanitiser and the strict CSP holds (docs/console.md).
 */

/** The element with this id; a page's script and its markup (the segmenter's bodies.ts) agree on ids, so a missing one is a bug worth a loud error. */
export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const node = document.getElementById(id);
  if (!node) throw new Error(`the page has no #${id}`);
  return node as T;
}

/** A new element holding `s` as text (nothing for null and undefined). */
export function text<K extends keyof HTMLElementTagNameMap>(tag: K, s?: string | number | null, cls?: string): HTMLElementTagNameMap[K] {
  const n = document.createElement(tag);
  if (cls) n.className = cls;
  n.textContent = s === undefined || s === null ? '' : String(s);
  return n;
}

/** Empties a node (for a redraw) and returns it. */
export function clear<T extends Node>(node: T): T {
  node.textContent = '';
  return node;
}

export function link(href: string, s: string): HTMLAnchorElement {
  const a = text('a', s);
  a.href = href;
  return a;
}

/** A table cell's content: text, or a node (a link, a chart). */
export type Cell = string | number | null | undefined | Node;

/** A table with a header row and text (or node) cells. */
export function table(headers: readonly string[], rows: readonly (readonly Cell[])[], testid?: string): HTMLTableElement {
  const t = document.createElement('table');
  if (testid) t.dataset.testid = testid;
  const head = t.createTHead().insertRow();
  for (const h of headers) head.appendChild(text('th', h));
  const body = t.createTBody();
  for (const r of rows) {
    const row = body.insertRow();
    for (const c of r) {
      const td = row.insertCell();
      if (c instanceof Node) td.appendChild(c);
      else td.textContent = c === null || c === undefined ? '' : String(c);
    }
  }
  return t;
}
