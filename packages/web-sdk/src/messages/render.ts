/// <reference lib="dom" />
import type { Renderer } from '../core/client';

/**
 * The in-app message, loaded only when one is shown. Content is action text with user data in it,
 * so it is set with textContent only (never HTML). It lives in a closed shadow root (the page's CSS
 * and scripts cannot reach in), styled by a constructable stylesheet (adoptedStyleSheets), or CSSOM
 * property assignment where those are missing: no eval, no <style> markup, no style attributes, so
 * a strict Content-Security-Policy needs no 'unsafe-inline'. It is a modal dialog: focus moves to it
 * and stays inside, Esc or the close button discards it, and focus returns where it was.
 */
const CSS: [string, Record<string, string>][] = [
  [
    ':host',
    {
      all: 'initial',
      position: 'fixed',
      inset: '0',
      zIndex: '2147483647',
      display: 'flex',
      alignItems: 'center',
      justifyContent: 'center',
      background: 'rgba(0,0,0,.4)',
      font: '16px/1.4 system-ui,sans-serif',
    },
  ],
  [
    '.box',
    {
      background: '#fff',
      color: '#111',
      borderRadius: '12px',
      padding: '20px 24px',
      maxWidth: 'min(420px,90vw)',
      // A long body scrolls inside the dialog: title, close button and call to action stay on screen.
      maxHeight: '90vh',
      boxSizing: 'border-box',
      display: 'flex',
      flexDirection: 'column',
      boxShadow: '0 8px 32px rgba(0,0,0,.3)',
      position: 'relative',
    },
  ],
  ['h2', { margin: '0 32px 8px 0', fontSize: '18px' }],
  ['p', { margin: '0 0 16px', whiteSpace: 'pre-wrap', overflowY: 'auto', minHeight: '0', flex: '1 1 auto' }],
  ['button', { font: 'inherit', cursor: 'pointer', borderRadius: '8px', border: '0', padding: '8px 16px' }],
  ['.cta', { background: '#1a56db', color: '#fff', alignSelf: 'flex-start', flex: 'none' }],
  ['.x', { position: 'absolute', top: '8px', right: '8px', background: 'none', fontSize: '20px', padding: '4px 10px' }],
  ['button:focus-visible', { outline: '2px solid #1a56db', outlineOffset: '2px' }],
];

const kebab = (s: string) => s.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

function style(root: ShadowRoot, host: HTMLElement, parts: Record<string, HTMLElement>): void {
  if ('adoptedStyleSheets' in root && typeof CSSStyleSheet === 'function' && 'replaceSync' in CSSStyleSheet.prototype) {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(
      CSS.map(
        ([sel, d]) =>
          `${sel}{${Object.entries(d)
            .map(([k, v]) => `${kebab(k)}:${v}`)
            .join(';')}}`,
      ).join(''),
    );
    root.adoptedStyleSheets = [sheet];
    return;
  }
  // CSSOM property assignment is not governed by CSP's style-src (unlike style attributes in markup).
  const targets: Record<string, HTMLElement[]> = {
    ':host': [host],
    '.box': [parts.box!],
    h2: [parts.h2!],
    p: [parts.p!],
    button: [parts.cta!, parts.x!],
    '.cta': [parts.cta!],
    '.x': [parts.x!],
  };
  for (const [sel, d] of CSS) for (const el of targets[sel] ?? []) Object.assign(el.style, d);
}

export const renderer: Renderer = {
  render(view, on) {
    const previous = document.activeElement as HTMLElement | null;
    const host = document.createElement('evp-message');
    const root = host.attachShadow({ mode: 'closed' });
    const el = <K extends keyof HTMLElementTagNameMap>(tag: K, text = '', cls = '') => {
      const e = document.createElement(tag);
      e.textContent = text;
      if (cls) e.className = cls;
      return e;
    };
    const box = el('div', '', 'box');
    const titleId = 'evp-t';
    const h2 = el('h2', view.title);
    h2.id = titleId;
    const p = el('p', view.body);
    const cta = el('button', view.cta, 'cta');
    const x = el('button', '×', 'x');
    x.setAttribute('aria-label', view.close);
    p.id = 'evp-b';
    box.setAttribute('role', 'dialog');
    box.setAttribute('aria-modal', 'true');
    box.setAttribute('aria-labelledby', titleId);
    box.setAttribute('aria-describedby', p.id);
    box.append(x, h2, p, cta);
    root.append(box);
    style(root, host, { box, h2, p, cta, x });
    let done = false;
    const close = (fn: () => void) => {
      if (done) return;
      done = true;
      host.remove();
      document.removeEventListener('keydown', keys, true);
      previous?.focus?.();
      fn();
    };
    const keys = (e: KeyboardEvent) => {
      if (e.key === 'Escape') {
        e.stopPropagation();
        close(on.discard);
      } else if (e.key === 'Tab') {
        // Two buttons: Tab cycles between them, never out of the dialog.
        e.preventDefault();
        (root.activeElement === cta ? x : cta).focus();
      }
    };
    cta.onclick = () => close(on.open);
    x.onclick = () => close(on.discard);
    host.onclick = (e) => {
      if (e.composedPath()[0] === host) close(on.discard);
    };
    document.addEventListener('keydown', keys, true);
    document.body.append(host);
    cta.focus();
  },
};
