import { randomUUID } from 'node:crypto';
import type { Analytics } from '@evp/core';
import { waitFor } from '@evp/testkit';
import type { RunningPipeline } from '../pipeline';
import type { FuzzKeys } from './requests';

/**
 * The pipeline still works after the hostile requests: a good upload is acknowledged, a good action is
 * created, and the upload's event reaches the events table. Resolves with
 * the user id it used.
 */
export async function checkStillProcessing(
  pipeline: RunningPipeline,
  analytics: Analytics,
  keys: FuzzKeys,
  opts: { timeoutMs?: number } = {},
): Promise<string> {
  const user = `after-fuzz-${randomUUID()}`;
  const envelope = {
    id: user,
    tz: '+00:00',
    internal: { s_id: `${user}_1700000000000_0`, sdk: 'web/1.0', a_id: 'x', a_ver: '1.0.0 (1)', d_id: 'd', os: 'web' },
    // A valid page event (every required property), so it must land in `events`, not `rejected`.
    data: [
      {
        time: '2024-01-01 00:00:00.000',
        __ol: true,
        name: 'page',
        property: 'after-fuzz',
        ctx: { path: '/', title: 'After fuzz', duration: 1.5, render_time: 20 },
      },
    ],
  };
  const post = (url: string, key: string, body: unknown) =>
    fetch(url, { method: 'POST', headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  const upload = await post(`${pipeline.gatewayUrl}/v1/ingest/log`, keys.sdk, envelope);
  if (upload.status !== 200) throw new Error(`a good upload after the fuzz answered ${upload.status}: ${await upload.text()}`);
  const action = {
    user_id: user,
    type: 'message',
    render_method: 'push_notification',
    delivery_mode: 'one-off',
    content: { title: 't', body: 'b' },
    expired_at: '0001-01-01T00:00:00Z',
  };
  const created = await post(`${pipeline.actionsUrl}/v1/actions`, keys.api, [action]);
  if (created.status !== 200) throw new Error(`a good action after the fuzz answered ${created.status}: ${await created.text()}`);
  await waitFor(
    // count() is a UInt64: a string or a number depending on the adapter's JSON settings.
    async () =>
      Number((await analytics.query<{ n: string | number }>('SELECT count() AS n FROM events WHERE user_id = {user:String}', { user }))[0]?.n) === 1
        ? true
        : undefined,
    { timeoutMs: opts.timeoutMs ?? 60_000, what: 'the after-fuzz event in the events table' },
  );
  return user;
}
