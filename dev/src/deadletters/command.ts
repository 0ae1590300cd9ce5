import { parseArgs } from 'node:util';
import { readDeadLetter, replayOf, topics, type Bus, type DeadLetter } from '@evp/core';

export const USAGE = `usage: npm run deadletters -- list   [filters]
       npm run deadletters -- replay [filters] (--id ID ... | --all)

filters (all optional, combined with AND):
  --topic T     source topic the message was read from (e.g. actions.requested)
  --group G     consumer group that failed on it
  --since TIME  failed at or after TIME (ISO 8601)
  --until TIME  failed before TIME (ISO 8601)
  --id ID       the dead letter's id (dlq_id); repeat for several

list prints one JSON object per dead letter. replay puts each chosen dead letter back on its source
topic (original key, value and headers; replay_of / replay_count added) once; it needs --id, or
--all to replay every dead letter the filters match.`;

interface DeadLetterFilter {
  topic?: string;
  group?: string;
  /** Epoch ms, inclusive. */
  since?: number;
  /** Epoch ms, exclusive. */
  until?: number;
  ids?: string[];
}

export type Command = { kind: 'list'; filter: DeadLetterFilter } | { kind: 'replay'; filter: DeadLetterFilter; all: boolean };

/** The command line → a command, or a usage problem (stable text, printed with USAGE). */
export function parseCommand(argv: string[]): { ok: true; command: Command } | { ok: false; problem: string } {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        topic: { type: 'string' },
        group: { type: 'string' },
        since: { type: 'string' },
        until: { type: 'string' },
        id: { type: 'string', multiple: true },
        all: { type: 'boolean' },
      },
    });
  } catch (err) {
    return { ok: false, problem: err instanceof Error ? err.message : String(err) };
  }
  const [verb, ...rest] = parsed.positionals;
  if (verb !== 'list' && verb !== 'replay') return { ok: false, problem: verb === undefined ? 'no command' : `unknown command ${verb}` };
  if (rest.length > 0) return { ok: false, problem: `unexpected argument ${rest[0]}` };
  const v = parsed.values;
  const filter: DeadLetterFilter = {};
  if (v.topic !== undefined) filter.topic = v.topic;
  if (v.group !== undefined) filter.group = v.group;
  for (const bound of ['since', 'until'] as const) {
    const text = v[bound];
    if (text === undefined) continue;
    const ms = Date.parse(text);
    if (Number.isNaN(ms)) return { ok: false, problem: `--${bound} ${text} is not an ISO 8601 time` };
    filter[bound] = ms;
  }
  if (v.id !== undefined) filter.ids = v.id;
  if (verb === 'list') {
    if (v.all) return { ok: false, problem: '--all is for replay' };
    return { ok: true, command: { kind: 'list', filter } };
  }
  if (!v.all && filter.ids === undefined) return { ok: false, problem: 'replay needs --id ID (repeatable) or --all' };
  return { ok: true, command: { kind: 'replay', filter, all: v.all === true } };
}

const matches = (l: DeadLetter, f: DeadLetterFilter) =>
  (f.topic === undefined || l.source.topic === f.topic) &&
  (f.group === undefined || l.group === f.group) &&
  (f.since === undefined || l.failedAt >= f.since) &&
  (f.until === undefined || l.failedAt < f.until) &&
  (f.ids === undefined || f.ids.includes(l.id));

/**
 * The dead letters the filter matches, oldest first, once each: the same failure written twice
 * (a consumer that crashed between the dead-letter write and its commit) has one id. Messages of
 * `deadletters` that carry no envelope are reported, not hidden.
 */
async function findDeadLetters(bus: Bus, filter: DeadLetterFilter): Promise<{ letters: DeadLetter[]; unreadable: string[] }> {
  const byId = new Map<string, DeadLetter>();
  const unreadable: string[] = [];
  // A dead letter is appended after it failed: nothing older than `since` can match.
  await bus.scan(topics.deadLetters, filter.since ?? 0, (m) => {
    const r = readDeadLetter(m);
    if (!r.ok) {
      unreadable.push(`${m.topic}/${m.partition}/${m.offset}: ${r.problem}`);
      return;
    }
    if (matches(r.letter, filter) && !byId.has(r.letter.id)) byId.set(r.letter.id, r.letter);
  });
  return { letters: [...byId.values()].sort((a, b) => a.failedAt - b.failedAt || (a.id < b.id ? -1 : 1)), unreadable };
}

/** One dead letter as `list` prints it (one JSON line). */
function listed(l: DeadLetter) {
  const text = l.value.toString('utf8');
  return {
    id: l.id,
    failed_at: new Date(l.failedAt).toISOString(),
    source: l.source,
    group: l.group,
    error: l.error,
    processor: l.processor,
    replay: l.replay,
    headers: l.headers,
    value_bytes: l.value.length,
    // Enough to recognise it; the bytes themselves go back on replay.
    value_preview: text.length > 200 ? `${text.slice(0, 200)}…` : text,
  };
}

/** Runs a command; every line of output goes to `print`. Resolves with the process's exit code. */
export async function runCommand(bus: Bus, command: Command, print: (line: string) => void): Promise<number> {
  const { letters, unreadable } = await findDeadLetters(bus, command.filter);
  for (const u of unreadable) print(JSON.stringify({ unreadable: u }));
  if (command.kind === 'list') {
    for (const l of letters) print(JSON.stringify(listed(l)));
    print(JSON.stringify({ dead_letters: letters.length }));
    return 0;
  }
  const missing = (command.filter.ids ?? []).filter((id) => !letters.some((l) => l.id === id));
  if (missing.length > 0) {
    print(JSON.stringify({ error: 'no dead letter with these ids matches the filters', ids: missing }));
    return 1;
  }
  const producer = await bus.producer();
  try {
    for (const l of letters) {
      const { topic, message } = replayOf(l);
      // One at a time, in the order they failed: a replayed message is durable before the next.
      await producer.send(topic, [message]);
      print(JSON.stringify({ replayed: l.id, topic, replay_count: Number(message.headers?.replay_count) }));
    }
  } finally {
    await producer.close();
  }
  print(JSON.stringify({ replayed_total: letters.length }));
  return 0;
}
