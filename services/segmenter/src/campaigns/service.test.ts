import { useMigratedChdb } from '@evp/testkit';
import { createCampaignsService } from './service';
import { createCampaignStore } from './store';
import { TemplateEngine } from './templates';

// The service tells the campaign worker of its own process about every saved change (onChanged),
// after the change is saved and before it answers: a resume acts on the next trigger at once.
const chdb = useMigratedChdb('campaignsvc');

describe('campaigns service: onChanged', () => {
  it('is called after each saved state change or document, with the change readable; not for a create or a repeated command', async () => {
    const store = createCampaignStore({ analytics: chdb.analytics });
    const seen: (string | undefined)[] = [];
    let id = '';
    const service = createCampaignsService({
      store,
      segments: { list: async () => [] },
      templates: new TemplateEngine(),
      users: { load: async () => ({}), catalog: () => async () => new Map() },
      onChanged: async () => {
        const c = await store.get('app-1', id);
        seen.push(c && `${c.state} v${c.version}`);
      },
    });
    const document = {
      name: 'Order delayed',
      trigger: { api: true },
      action: {
        type: 'message',
        render_method: 'push_notification',
        delivery_mode: 'one-off',
        content: { title: 'Late', body: 'Sorry' },
        expires_after: 'PT12H',
      },
    };
    id = (await service.create('app-1', document)).id;
    expect(seen).toEqual([]);
    await service.resume('app-1', id);
    await service.resume('app-1', id);
    await service.pause('app-1', id);
    await service.update('app-1', id, { ...document, name: 'Order late' });
    await service.end('app-1', id);
    expect(seen).toEqual(['active v2', 'paused v3', 'paused v4', 'ended v5']);
  });

  it('answers the saved change even when onChanged fails (the worker’s periodic reload picks it up)', async () => {
    const store = createCampaignStore({ analytics: chdb.analytics });
    const service = createCampaignsService({
      store,
      segments: { list: async () => [] },
      templates: new TemplateEngine(),
      users: { load: async () => ({}), catalog: () => async () => new Map() },
      onChanged: async () => {
        throw Object.assign(new Error('ClickHouse away'), { retriable: true });
      },
    });
    const { id } = await service.create('app-1', {
      name: 'n',
      trigger: { api: true },
      action: { type: 'message', render_method: 'push_notification', delivery_mode: 'one-off', content: { title: 't', body: 'b' }, expires_after: 'P1D' },
    });
    expect((await service.resume('app-1', id)).state).toBe('active');
    expect((await store.get('app-1', id))?.state).toBe('active');
  });
});
