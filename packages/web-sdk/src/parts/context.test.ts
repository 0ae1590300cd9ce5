import { SESSION_IDLE_MS } from '../core/options';
import { fakeDeps, memoryShared, testClient } from '../core/testing/fakes';
import { ATTRIBUTION_KEY, IDLE_MS, sessionAttribution } from './context';

describe('context part: the visit’s attribution, kept for the session', () => {
  const first = { landing_url: 'https://shop.example/landing', referrer: 'https://search.example/', utm_source: 'sms', utm_campaign: 'refill' };
  const later = { landing_url: 'https://shop.example/cart', referrer: 'https://shop.example/landing' };
  const kept = { at: 1_000_000, a: first };

  it('sends the session’s first page’s attribution from later pages of the session', () => {
    expect(sessionAttribution(kept, later, false, 0, kept.at + 60_000)).toBe(first);
    // Activity (the session's last event) keeps it alive past the kept record's own time.
    expect(sessionAttribution(kept, later, false, kept.at + 25 * 60_000, kept.at + 50 * 60_000)).toBe(first);
  });

  it('starts a new attribution on a page with UTM parameters of its own, after the idle limit, on a clock set back, and with none kept', () => {
    const campaign = { ...later, utm_source: 'email' };
    expect(sessionAttribution(kept, campaign, true, 0, kept.at + 60_000)).toBe(campaign);
    expect(sessionAttribution(kept, later, false, 0, kept.at + IDLE_MS + 1)).toBe(later);
    expect(sessionAttribution(kept, later, false, 0, kept.at - 1)).toBe(later);
    expect(sessionAttribution(undefined, later, false, 0, kept.at)).toBe(later);
  });

  it('uses the session’s idle limit, and its key is one optOut clears', async () => {
    expect(IDLE_MS).toBe(SESSION_IDLE_MS);
    const shared = memoryShared();
    const t = testClient({}, fakeDeps(shared));
    const key = `evp:${t.client.cfg.appId}:${ATTRIBUTION_KEY}`;
    shared.set(key, kept);
    await t.client.setConsent('denied');
    expect(shared.get(key)).toBeUndefined();
  });
});
