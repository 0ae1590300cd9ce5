/// <reference lib="dom" />
import { messageOf } from './api';
import { byId } from './dom';
import { storeKey, storedKey } from './key';

/** The shell's status line (role=status): what the page is doing, or why it is not. */
export function status(message: string, isError = false): void {
  const s = byId('status');
  s.className = isError ? 'error' : '';
  s.textContent = message;
}

/** Bumped on every connect: a poll started under an older key stops at its next turn. */
let generation = 0;

/**
 * Runs `fn` now and again `ms` after each run ends, while the key it started under is the tab's:
 * a new key (connect) stops it. The status says when it last updated (or what `fn` returned), or
 * why it is not updating.
 */
export function every(ms: number, fn: () => Promise<string | void>): void {
  const mine = generation;
  const tick = () => {
    fn()
      .then(
        (said) => {
          if (mine === generation) status(said ?? `Live: updated ${new Date().toLocaleTimeString()}`);
        },
        (err: unknown) => {
          if (mine === generation) status(`Not updating: ${messageOf(err)}`, true);
        },
      )
      .finally(() => {
        if (mine === generation) setTimeout(tick, ms);
      });
  };
  tick();
}

export interface PageStart {
  /** Starts the page's work with the tab's key (called again, from scratch, on every connect). */
  run: () => void;
  /** Run at once when the tab already has a key (default true; the inspector waits for "Watch"). */
  runWithStoredKey?: boolean;
}

/**
 * Wires the shell's key prompt (#connect) to a page: the stored key fills the field, and each
 * submit stores the key and starts the page over. Every page's script ends with this.
 */
export function startPage({ run, runWithStoredKey = true }: PageStart): void {
  const field = byId<HTMLInputElement>('key');
  if (storedKey()) field.value = storedKey();
  byId('connect').addEventListener('submit', (ev) => {
    ev.preventDefault();
    storeKey(field.value.trim());
    generation += 1;
    status('Connecting…');
    run();
  });
  if (runWithStoredKey && storedKey()) {
    generation += 1;
    run();
  }
}
