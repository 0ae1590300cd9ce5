/// <reference lib="dom" />
import type { ErrorBody } from '@evp/segmenter';
import { storedKey } from './key';

/** A refused call: the API's message (or its HTTP status), with its whole error body (code, path, details) to read. */
export class ApiRefusal extends Error {
  constructor(
    message: string,
    readonly body: Partial<ErrorBody>,
  ) {
    super(message);
  }
}

interface CallInit {
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  body?: unknown;
}

/**
 * A JSON call to this origin's API with the tab's key; T is the answer's type from the segmenter
 * (its api/answers.ts). A refusal rejects with an ApiRefusal; 204 resolves to null.
 */
export async function api<T>(path: string, init: CallInit = {}): Promise<T> {
  const headers: Record<string, string> = { Authorization: `Bearer ${storedKey()}` };
  if (init.body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(path, { method: init.method ?? 'GET', headers, body: init.body === undefined ? null : JSON.stringify(init.body) });
  if (res.status === 204) return null as T;
  const body = (await res.json()) as unknown;
  if (res.ok) return body as T;
  const refusal = body as Partial<ErrorBody>;
  throw new ApiRefusal(refusal.error?.message ?? `HTTP ${res.status}`, refusal);
}

/** The refusal's body, when the error is one. */
export const refusalOf = (err: unknown): Partial<ErrorBody> => (err instanceof ApiRefusal ? err.body : {});

export const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));
