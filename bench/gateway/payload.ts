/** Realistic current-form uploads (spec 2.1): one session envelope of 50 mixed core/commerce events. */
const NAMES = [
  ['page', 'Home', { screen: 'home', referrer: 'push' }],
  ['click', 'add_to_cart', { item_id: 'sku-1042', price: 12.5, currency: 'USD' }],
  ['search', 'paracetamol 500', { results: 14, page: 1 }],
  ['purchase', 'checkout', { order_id: 'o-88121', total: 41.2, items: 3, currency: 'USD' }],
  ['identify', 'login', { method: 'phone' }],
] as const;

export function envelopeBody(user: number, events = 50): string {
  const start = 1_732_000_000_000 + user * 1000;
  return JSON.stringify({
    id: `user-${user}`,
    tz: '+05:30',
    internal: {
      s_id: `user-${user}_${start}_${start + 600_000}`,
      sdk: 'android/2.4.1',
      a_id: 'com.example.health',
      a_ver: '3.12.0 (3120)',
      d_id: `dev-${user}`,
      os: 'android',
    },
    data: Array.from({ length: events }, (_, i) => {
      const [name, property, ctx] = NAMES[i % NAMES.length]!;
      const t = new Date(start + i * 7_000).toISOString().replace('T', ' ').replace('Z', '');
      return { time: t, __ol: i % 9 !== 0, name, property, ctx: { ...ctx, seq: i } };
    }),
  });
}
