/// <reference lib="dom" />
import { createApi } from './api';
import type { Renderer } from './core/client';

/**
 * The script build (`<script src="{base}/sdk/web.js">`): defines the one global `evp`. The message
 * renderer is `web-messages.js` beside this script, loaded the first time a message is shown; it
 * registers itself on `evp._renderer` (no second global).
 */
type Global = typeof globalThis & { evp?: ReturnType<typeof createApi> & { _renderer?: Renderer } };
const g = globalThis as Global;
const src = typeof document !== 'undefined' ? (document.currentScript as HTMLScriptElement | null)?.src : undefined;
const base = src ? src.slice(0, src.lastIndexOf('/') + 1) : '';

let loading: Promise<Renderer> | undefined;
const loadRenderer = (nonce?: string) =>
  (loading ??= new Promise<Renderer>((resolve, reject) => {
    const s = document.createElement('script');
    if (nonce) s.nonce = nonce;
    s.src = `${base}web-messages.js`;
    s.async = true;
    s.onload = () => (g.evp?._renderer ? resolve(g.evp._renderer) : reject(new Error('web-messages.js did not register')));
    s.onerror = () => {
      loading = undefined;
      reject(new Error(`could not load ${s.src}`));
    };
    document.head.appendChild(s);
  }));

g.evp ??= createApi(loadRenderer);

// An ES module (no exports otherwise): esbuild then bundles it without CommonJS/lazy-init wrappers.
export {};
