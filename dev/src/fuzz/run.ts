import { connect } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { errorCodes } from '@evp/core';
import { Random } from './random';
import { hostileRequest, type FuzzKeys, type FuzzRequest } from './requests';

interface FuzzTarget {
  host: string;
  port: number;
}

export interface FuzzOptions {
  seed: number;
  count: number;
  targets: Record<FuzzRequest['target'], FuzzTarget>;
  keys: FuzzKeys;
  /** A request with no complete answer by then is a failure. */
  timeoutMs?: number;
}

/** What one answer broke, if anything: a 5xx, no answer, or an error body not in the documented shape. */
interface FuzzFailure {
  index: number;
  label: string;
  problem: string;
  status?: number;
  body?: string;
}

export interface FuzzSummary {
  seed: number;
  requests: number;
  byStatus: Record<string, number>;
  byCode: Record<string, number>;
  failures: FuzzFailure[];
  latencyMs: { p50: number; p99: number; max: number };
  heapGrowthMb: number;
  seconds: number;
}

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Sends the bytes on a fresh connection and reads until the server closes it (every request says Connection: close). */
function exchange(target: FuzzTarget, bytes: Buffer, timeoutMs: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    // write, not end: a half-close makes Node's server abort a request whose answer is still being
    // worked out (httpAllowHalfOpen is off), which no real client does.
    const socket = connect(target.port, target.host, () => socket.write(bytes));
    const timer = setTimeout(() => (socket.destroy(), reject(new Error(`no answer within ${timeoutMs} ms`))), timeoutMs);
    socket.on('data', (c: Buffer) => chunks.push(c));
    // The server may answer and close before it has read the whole body (401 before a large upload): keep what it wrote.
    socket.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ECONNRESET' || err.code === 'EPIPE') return;
      clearTimeout(timer);
      reject(err);
    });
    socket.on('close', () => (clearTimeout(timer), resolve(Buffer.concat(chunks))));
  });
}

/** The final answer on the wire, after any interim 100 Continue. */
function parseAnswer(raw: Buffer): Answer | undefined {
  let text = raw.toString('utf8');
  while (/^HTTP\/1\.1 1\d\d /.test(text)) text = text.slice(text.indexOf('\r\n\r\n') + 4);
  const end = text.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const l of lines) headers[l.slice(0, l.indexOf(':')).toLowerCase()] = l.slice(l.indexOf(':') + 1).trim();
  return { status: Number(statusLine?.split(' ')[1]), headers, body: text.slice(end + 4) };
}

const ERROR_FIELDS = new Set(['code', 'message', 'path', 'request_id', 'details']);

/** Why an error answer is not the documented shape (docs/errors.md), or undefined when it is. */
function shapeProblem(a: Answer, head: boolean): string | undefined {
  if (!a.headers['content-type']?.startsWith('application/json')) return `content-type ${a.headers['content-type'] ?? '(none)'}`;
  if (head) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(a.body);
  } catch {
    return 'body is not JSON';
  }
  const error = (parsed as { error?: Record<string, unknown> }).error;
  if (!error || typeof error !== 'object') return 'no error object';
  const code = error.code as string;
  if (!Object.hasOwn(errorCodes, code)) return `unregistered code ${String(code)}`;
  if (errorCodes[code as keyof typeof errorCodes].status !== a.status) return `code ${code} answered with status ${a.status}`;
  if (typeof error.message !== 'string') return 'no message';
  const extra = Object.keys(error).filter((k) => !ERROR_FIELDS.has(k));
  return extra.length > 0 ? `unknown fields ${extra.join(', ')}` : undefined;
}

/**
 * Heap in use after a full collection, so growth means retained memory rather than garbage not yet
 * collected. `gc` is exposed at run time (a fresh context sees it) rather than via a node flag, so
 * jest and `npm run fuzz` need no special invocation.
 */
function retainedHeap(): number {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
  return process.memoryUsage().heapUsed;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0;

/** Sends `count` requests drawn from `seed`, one at a time, and checks each answer. */
export async function runFuzz(opts: FuzzOptions): Promise<FuzzSummary> {
  const r = new Random(opts.seed);
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const byStatus: Record<string, number> = {};
  const byCode: Record<string, number> = {};
  const failures: FuzzFailure[] = [];
  const latencies: number[] = [];
  const heapBefore = retainedHeap();
  const started = performance.now();
  for (let index = 0; index < opts.count; index++) {
    const req = hostileRequest(r, opts.keys);
    const t0 = performance.now();
    let raw: Buffer;
    try {
      raw = await exchange(opts.targets[req.target], req.bytes, timeoutMs);
    } catch (err) {
      failures.push({ index, label: req.label, problem: (err as Error).message });
      continue;
    }
    latencies.push(performance.now() - t0);
    const answer = parseAnswer(raw);
    if (!answer) {
      failures.push({ index, label: req.label, problem: 'no complete answer', body: raw.toString('utf8').slice(0, 200) });
      continue;
    }
    byStatus[answer.status] = (byStatus[answer.status] ?? 0) + 1;
    const code = /"code":"([a-z_]+)"/.exec(answer.body)?.[1];
    if (code) byCode[code] = (byCode[code] ?? 0) + 1;
    const problem = answer.status >= 500 ? `status ${answer.status}` : answer.status >= 400 ? shapeProblem(answer, req.label.startsWith('HEAD ')) : undefined;
    if (problem) failures.push({ index, label: req.label, problem, status: answer.status, body: answer.body.slice(0, 300) });
  }
  const sorted = latencies.sort((a, b) => a - b);
  return {
    seed: opts.seed,
    requests: opts.count,
    byStatus,
    byCode,
    failures,
    latencyMs: { p50: round(percentile(sorted, 50)), p99: round(percentile(sorted, 99)), max: round(sorted.at(-1) ?? 0) },
    heapGrowthMb: round((retainedHeap() - heapBefore) / 2 ** 20),
    seconds: round((performance.now() - started) / 1000),
  };
}

const round = (n: number) => Math.round(n * 10) / 10;
