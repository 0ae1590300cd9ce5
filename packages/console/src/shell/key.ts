/// <reference lib="dom" />
/**
 * The API key of the tab: kept in sessionStorage (gone when the tab closes), sent only to this
 * origin. One storage name for every page (the inspector's, so one key serves the whole console).
 */
const KEY_STORAGE = 'evp-inspector-key';

export const storedKey = (): string => sessionStorage.getItem(KEY_STORAGE) ?? '';

export function storeKey(key: string): void {
  sessionStorage.setItem(KEY_STORAGE, key);
}
