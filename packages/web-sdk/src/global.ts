/// <reference lib="dom" />
import { createApi } from './api';
import type { Load, Parts } from './core/client';

/**
 * The script build (`<script src="{base}/sdk/web.js">`): defines the one global `evp`. Each lazily
 * loaded part is a file beside this script (`web-messages.js`, the renderer; `web-actions.js`, the
 * action pull; `web-errors.js`, captureErrors; `web-context.js`, context; `web-vitals.js`, webVitals; `web-split.js`, a 413's split), loaded the first time it is needed; it registers itself on the global (`evp._renderer`,
 * `evp._actions`: no second global).
 */
type Global = typeof globalThis & { evp?: ReturnType<typeof createApi> };
const g = globalThis as Global;
const src = typeof document !== 'undefined' ? (document.currentScript as HTMLScriptElement | null)?.src : undefined;
const base = src ? src.slice(0, src.lastIndexOf('/') + 1) : '';

/** Each part's file and the global member it registers. */
const FILES: Record<keyof Parts, [string, string]> = {
  messages: ['web-messages.js', '_renderer'],
  actions: ['web-actions.js', '_actions'],
  errors: ['web-errors.js', '_errors'],
  context: ['web-context.js', '_context'],
  vitals: ['web-vitals.js', '_vitals'],
  split: ['web-split.js', '_split'],
};

const loading: Partial<Record<keyof Parts, Promise<unknown>>> = {};
const load = ((name: keyof Parts, nonce?: string) =>
  (loading[name] ??= new Promise((resolve, reject) => {
    const [file, member] = FILES[name];
    const s = document.createElement('script');
    if (nonce) s.nonce = nonce;
    s.src = base + file;
    s.async = true;
    s.onload = () => {
      const part = (g.evp as Record<string, unknown> | undefined)?.[member];
      return part ? resolve(part) : reject(new Error(`${file} did not register`));
    };
    s.onerror = () => {
      delete loading[name];
      reject(new Error(`could not load ${s.src}`));
    };
    document.head.appendChild(s);
  }))) as Load;

g.evp ??= createApi(load);

// An ES module (no exports otherwise): esbuild then bundles it without CommonJS/lazy-init wrappers.
export {};
