import { createLogger } from '@evp/core';
import { ManualClock, NEVER_EXPIRES } from '@evp/actions';
import { InMemoryActionStore } from '@evp/embedded';
import { waitFor } from '@evp/testkit';
import { startSweeper } from './sweeper';

describe('startSweeper', () => {
  it('sweeps expired actions on its interval and stops cleanly', async () => {
    const clock = new ManualClock(Date.UTC(2030, 0, 1));
    const store = new InMemoryActionStore({ clock });
    const base = {
      type: 'message',
      render_method: 'push_notification',
      delivery_mode: 'cached',
      content: { title: 't', body: 'b' },
      attr: {},
      tags: [],
    } as const;
    await store.create('app-1', [
      { ...base, tags: [], user_id: 'u1', expired_at: '2030-01-01T00:00:01Z', inv_id: 1, action_id: 1 },
      { ...base, tags: [], user_id: 'u1', expired_at: NEVER_EXPIRES, inv_id: 1, action_id: 2 },
    ]);
    const sweeper = startSweeper({ store, logger: createLogger('test', 'silent'), intervalMs: 10 });
    clock.set(Date.UTC(2030, 0, 1, 0, 0, 1));
    await waitFor(async () => (await store.stats('app-1', 1))?.totals.expired === 1, { timeoutMs: 2000, what: 'the sweep' });
    await sweeper.stop();
    expect((await store.stats('app-1', 2))?.totals.expired).toBe(0);
  });

  it('keeps going after a failed sweep', async () => {
    const store = new InMemoryActionStore({ clock: new ManualClock(0) });
    let calls = 0;
    store.sweepExpired = async () => {
      calls++;
      if (calls === 1) throw new Error('boom');
      return 0;
    };
    const sweeper = startSweeper({ store, logger: createLogger('test', 'silent'), intervalMs: 5 });
    await waitFor(() => calls >= 3, { timeoutMs: 2000, what: 'three sweeps' });
    await sweeper.stop();
  });
});
