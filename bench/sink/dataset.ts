import type { CanonicalEvent } from '@evp/schemas';

/** The bench's events (shared by run.ts and levers.ts): three apps, 5,000 users, page/app/media events of the core block. */
const t0 = Date.UTC(2024, 2, 1);
export function makeEvents(rows: number): CanonicalEvent[] {
  const names = ['page', 'app', 'media'] as const;
  return Array.from({ length: rows }, (_, i) => {
    const user = `user-${i % 5_000}`;
    const name = names[i % 3] as (typeof names)[number];
    const props =
      name === 'page'
        ? { path: `/p/${i % 50}`, title: `Page ${i % 50}`, duration: 1.5, render_time: 120 + (i % 7) }
        : name === 'app'
          ? { action: 'open', start_time: 800 + (i % 13) }
          : { id: `m-${i % 20}`, type: 'video', action: 'play', time: i % 1000 };
    return {
      event_id: `ev-${i.toString(36).padStart(8, '0')}`,
      app_id: `app-${i % 3}`,
      user_id: user,
      session_id: `${user}_${t0}_${t0 + 600_000}`,
      session_start: t0,
      session_end: t0 + 600_000,
      device_id: `dev-${i % 5_000}`,
      os: i % 2 ? 'android' : 'ios',
      sdk_name: i % 2 ? 'android' : 'ios',
      sdk_version: '2.1.0',
      app_version: '1.4.2 (142)',
      app_version_code: 142,
      tz: '+03:00',
      block: 'core',
      name,
      sent_name: null,
      property: null,
      time: t0 + i * 10,
      online: true,
      received_at: t0 + i * 10 + 500,
      sent_at: null,
      corrected_time: t0 + i * 10,
      request_id: `req-${Math.floor(i / 50)}`,
      pseudonym_key: null,
      envelope: 'current',
      props,
      meta: null,
      client: null,
      warnings: [],
    };
  });
}
