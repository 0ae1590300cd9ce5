/// <reference lib="dom" />
/**
 * The inspector (docs/inspector.md): an app's events and rejections live, with their warnings and
 * reasons, and its dead letters (messages a platform consumer could not handle). It polls every
 * second for what arrived since the newest row it has (watch.ts).
 */
import type { DataAnswer, InspectedDeadLetter, InspectedEvent, InspectedRejection } from '@evp/segmenter';
import { api, byId, clear, every, startPage, text } from '../../shell';
import { Watch, type Kind, type Rows } from './watch';

const POLL_MS = 1000;

function reasons(list: InspectedEvent['warnings'], cls: string): HTMLUListElement {
  const ul = text('ul', null, cls);
  for (const r of list) {
    const li = text('li', null, 'reason');
    li.append(text('span', r.rule, 'rule'), ` ${r.path}: ${r.message}`);
    ul.appendChild(li);
  }
  return ul;
}

function eventItem(e: InspectedEvent): HTMLLIElement {
  const li = text('li', null, `event${e.warnings.length ? ' warned' : ''}`);
  li.dataset.eventId = e.event_id;
  li.append(
    text('div', e.name + (e.sent_name ? ` (sent as ${e.sent_name})` : ''), 'name'),
    text('div', `user ${e.user_id} · ${e.time} · request ${e.request_id}${e.sdk ? ` · ${e.sdk}` : ''}`, 'meta'),
  );
  if (e.warnings.length) li.appendChild(reasons(e.warnings, 'warnings'));
  return li;
}

function rejectionItem(r: InspectedRejection): HTMLLIElement {
  const li = text('li', null, 'rejection');
  li.dataset.rejectionId = r.rejection_id;
  li.append(
    text('div', `${r.name || '(unreadable)'} · ${r.kind}`, 'name'),
    text('div', `user ${r.user_id || '?'} · ${r.received_at} · request ${r.request_id}${r.event_index === null ? '' : ` · event #${r.event_index}`}`, 'meta'),
    reasons(r.reasons, 'reasons'),
  );
  return li;
}

function deadLetterItem(d: InspectedDeadLetter): HTMLLIElement {
  const li = text('li', null, 'deadletter');
  li.dataset.deadLetterId = d.dead_letter_id;
  li.append(
    text('div', `${d.source.topic} · ${d.error.kind}${d.replay ? ` · replay #${d.replay.count}` : ''}`, 'name'),
    text('div', `${d.failed_at} · group ${d.group} · ${d.processor.name}/${d.processor.version} · id ${d.dead_letter_id}`, 'meta'),
    text('div', d.error.message, 'reason'),
    text('pre', (d.payload_encoding === 'base64' ? '(base64) ' : '') + d.payload + (d.payload_truncated ? '…' : ''), 'payload'),
  );
  return li;
}

/** Each list's element, its count's element, and how a row of it is drawn. */
const LISTS: { [K in Kind]: { list: string; count: string; item: (r: Rows[K]) => HTMLLIElement } } = {
  events: { list: 'events', count: 'event-count', item: eventItem },
  rejected: { list: 'rejected', count: 'rejected-count', item: rejectionItem },
  deadletters: { list: 'deadletters', count: 'deadletter-count', item: deadLetterItem },
};

function renderKind<K extends Kind>(watch: Watch, kind: K): void {
  const { list, count, item } = LISTS[kind];
  clear(byId(list)).append(...watch.list(kind).map(item));
  byId(count).textContent = String(watch.count(kind));
}

const render = (watch: Watch) => (Object.keys(LISTS) as Kind[]).forEach((k) => renderKind(watch, k));

async function poll<K extends Kind>(watch: Watch, kind: K): Promise<void> {
  watch.add(kind, (await api<DataAnswer<Rows[K]>>(watch.query(kind))).data);
}

startPage({
  // A new watch on every "Watch": the lists start empty under the new key and filters.
  run: () => {
    const field = (id: string) => byId<HTMLInputElement>(id).value.trim();
    const watch = new Watch({ user_id: field('user'), name: field('name'), request_id: field('request') });
    render(watch);
    every(POLL_MS, async () => {
      await Promise.all([poll(watch, 'events'), poll(watch, 'rejected'), poll(watch, 'deadletters')]);
      render(watch);
    });
  },
  runWithStoredKey: false,
});
