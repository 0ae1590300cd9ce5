import { createApi } from './api';

/** The one instance of the ESM build; its renderer is a separate chunk, imported when a message is shown. */
export const evp = createApi(() => import('./messages/render.js').then((m) => m.renderer));
