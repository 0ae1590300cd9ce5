import { createApi } from './api';
import type { Load } from './core/client';

/** Each lazily loaded part of the ESM build: a separate chunk, imported on first use. */
const parts = {
  messages: () => import('./messages/render.js').then((m) => m.renderer),
  actions: () => import('./parts/actions.js').then((m) => m.Actions),
  errors: () => import('./parts/errors.js').then((m) => m.watchErrors),
  context: () => import('./parts/context.js').then((m) => m.readContext),
  vitals: () => import('./parts/vitals.js').then((m) => m.watchVitals),
  split: () => import('./parts/split.js').then((m) => m.splitBatch),
};

/** The one instance of the ESM build. */
export const evp = createApi(((name: keyof typeof parts) => parts[name]()) as Load);
