import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { formatDateTime64 } from '@evp/clickhouse';
import { createLogger, topics } from '@evp/core';
import { chdbScratchPath, createChdbAnalystSql } from '@evp/embedded';
import type { CanonicalEvent } from '@evp/schemas';
import { TABLES, createCampaigns, eventRow, parseSqlExamples, wilsonInterval } from '@evp/segmenter';
import { percent, readingWords, upliftWords } from '@evp/segmenter/report-words';
import { requireProgram, uniqueName, waitFor } from '@evp/testkit';
import { createEmbeddedParts } from './embedded-parts';
import { startPipeline, type RunningPipeline } from './pipeline';
import { API_KEY, SDK_KEY, e2eKeys } from './testing/scenario';

const APP = 'e2e-app';
const IMG = resolve(__dirname, '../../docs/img');
const HOUR = 3_600_000;
/** Every consumer group `npm start` runs, as the Health page lists them. */
const LAG_GROUPS = [
  'action-store.feedback',
  'action-store.requests',
  'segmenter-campaign-entries',
  'segmenter-campaigns',
  'segmenter-segments',
  'segmenter-sink',
  'validator',
];

/** A campaign measured against a goal, with half its audience held out as control. */
const CAMPAIGN = {
  name: 'Refill nudge',
  trigger: { api: true },
  action: {
    type: 'message',
    render_method: 'push_notification',
    delivery_mode: 'one-off',
    content: { title: 'Your refill is ready', body: 'Pick it up today.' },
    expires_after: 'P1D',
  },
  holdout: 0.5,
  goal: { event: 'checkout', where: [{ prop: 'is_successful', op: 'eq', value: true }], within: 'P3D' },
};
const SEGMENT = { name: 'Viewed the refill page', definition: { event: 'page', where: [{ prop: 'path', op: 'eq', value: '/refill' }], within: 'P7D' } };

const range = (n: number) => Array.from({ length: n }, (_, i) => i);
const pad = (i: number) => String(i).padStart(4, '0');

/** A stored canonical event of the app (seeded as the sink stores it). */
function event(user: string, name: string, time: number, props: Record<string, unknown>, block: string): CanonicalEvent {
  return {
    event_id: `${user}-${name}-${time}`,
    app_id: APP,
    user_id: user,
    session_id: `${user}_s`,
    session_start: time,
    session_end: time,
    device_id: `d-${user}`,
    os: 'android',
    sdk_name: 'android',
    sdk_version: '2.1.0',
    app_version: '1.0.0 (1)',
    app_version_code: 1,
    tz: '+00:00',
    block,
    name,
    sent_name: null,
    property: null,
    time,
    online: true,
    received_at: time,
    sent_at: null,
    corrected_time: time,
    request_id: `req-${user}`,
    pseudonym_key: null,
    envelope: 'current',
    props,
    meta: null,
    client: null,
    warnings: [],
  } as CanonicalEvent;
}

/**
 * The console as a person uses it, in headless Chromium against the pipeline `npm start` runs: a
 * campaign whose outcomes, actions and goal events are seeded so its report is known (control 50 of
 * 1,000 converted, the variant 80 of 1,000: +3.0 points, 95% CI +0.8 to +5.2), a segment filled by
 * real uploads, the SQL page over /clickhouse/, the Health page. Each page is photographed into
 * docs/img/console-*.png (docs/console.md shows them).
 */
describe('the console in Chromium', () => {
  let pipeline: RunningPipeline;
  let browser: Browser;
  let page: Page;
  const database = uniqueName('console').replace(/-/g, '_');
  const parts = createEmbeddedParts({ chdbPath: ':memory:', database });
  const now = Date.now();
  const run = Date.now().toString(36);
  let campaignId = '';
  let segmentId = '';

  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${pipeline.baseUrl}${path}`, {
      method,
      headers: { Authorization: `Bearer ${API_KEY}`, 'Content-Type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };
  const upload = (user: string, data: unknown[]) =>
    fetch(`${pipeline.baseUrl}/v1/ingest/log`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${SDK_KEY}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        id: user,
        tz: '+00:00',
        internal: { s_id: `${user}_1700000000000_0`, sdk: 'web/1.0.0', a_id: APP, a_ver: '1.0.0 (1)', d_id: 'd-1', os: 'web' },
        data,
      }),
    });
  const eventTime = () => new Date().toISOString().replace('T', ' ').slice(0, 23);
  const attr = (selector: string, name: string) => page.locator(selector).getAttribute(name);

  beforeAll(async () => {
    pipeline = await startPipeline({
      parts,
      keys: e2eKeys(),
      logger: createLogger('console', 'silent'),
      sinkFlushMs: 50,
      analystSql: createChdbAnalystSql({ path: chdbScratchPath(), database }),
      analystDatabase: database,
    });
    browser = await chromium.launch({ executablePath: requireProgram('chromium'), args: ['--no-sandbox', '--disable-dev-shm-usage'] });
    page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });

    // The campaign, and its report's rows: every run three hours ago; control c-0000 … c-0999 and
    // variant v-0000 … v-0999; the variant's actions created (980) and delivered (700) two hours
    // ago, shown (600) and opened (150); goal events (a successful checkout) an hour after the runs:
    // control 50 users, the variant 80.
    const created = await api('POST', '/v1/campaigns', CAMPAIGN);
    expect(created).toMatchObject({ status: 201 });
    campaignId = created.body.id;
    const action = created.body.action_ids[0] as number;
    const t0 = now - 3 * HOUR;
    const outcome = (i: number, variant: 0 | 1) => ({
      app_id: APP,
      campaign_id: campaignId,
      inv_id: (variant === 0 ? 20000 : 10000) + i,
      user_id: `${variant === 0 ? 'c' : 'v'}-${pad(i)}`,
      variant,
      action_id: variant === 0 ? 0 : action,
      outcome: variant === 0 ? 'control' : 'requested',
      reason: '',
      trigger: 'api',
      at: formatDateTime64(t0),
    });
    await parts.analytics.insert('campaign_outcomes', [...range(1000).map((i) => outcome(i, 0)), ...range(1000).map((i) => outcome(i, 1))]);
    const log = (i: number, kind: 'created' | 'delivered') => ({
      entry_id: `${campaignId}-${i}-${kind}`,
      app_id: APP,
      user_id: `v-${pad(i)}`,
      inv_id: 10000 + i,
      action_id: action,
      kind,
      at: formatDateTime64(now - 2 * HOUR),
      created_at: formatDateTime64(now - 2 * HOUR),
      type: 'message',
      render_method: 'push_notification',
      delivery_mode: 'one-off',
      expired_at: null,
      tags: [],
      attr: {},
      source: kind === 'created' ? `campaign:${campaignId}` : '',
      reason: '',
    });
    await parts.analytics.insert('actions_log', [...range(980).map((i) => log(i, 'created')), ...range(700).map((i) => log(i, 'delivered'))]);
    const response = (i: number, r: string) =>
      event(
        `v-${pad(i)}`,
        'nudge_response',
        t0 + HOUR + (r === 'open' ? 1 : 0),
        { ref: `${10000 + i}:${action}`, time: new Date(t0 + HOUR).toISOString(), response: r },
        'core',
      );
    const checkout = (user: string) =>
      event(
        user,
        'checkout',
        t0 + HOUR,
        { id: `o-${user}`, cart_id: `c-${user}`, cart_price: 10, currency: 'KES', items: [{ id: 'i1' }], is_successful: true },
        'e_commerce',
      );
    const seeded = [
      ...range(600).map((i) => response(i, 'shown')),
      ...range(150).map((i) => response(i, 'open')),
      ...range(50).map((i) => checkout(`c-${pad(i)}`)),
      ...range(80).map((i) => checkout(`v-${pad(i)}`)),
    ];
    await parts.analytics.insert(TABLES.events, seeded.map(eventRow));

    // The segment, filled by real uploads: three users view the refill page now.
    for (const u of ['a', 'b', 'c']) {
      const res = await upload(`${run}-${u}`, [
        { time: eventTime(), __ol: true, name: 'page', property: 'Refill', ctx: { path: '/refill', title: 'Refill', duration: 1, render_time: 10 } },
      ]);
      expect(res.status).toBe(200);
    }
    // And one rejected record (a rate above 5), for the Health page.
    await upload(`${run}-d`, [{ time: eventTime(), __ol: true, name: 'rate', property: 'x', ctx: { rate_value: 9, type: 'app', subject_id: 's' } }]);
    await waitFor(async () => ((await api('GET', `/v1/inspect/events?since=${now - 60_000}&limit=100`)).body.data as unknown[]).length === 3, {
      timeoutMs: 20_000,
      what: 'the three page views stored',
    });
    const segment = await api('POST', '/v1/segments', SEGMENT);
    expect(segment).toMatchObject({ status: 201 });
    segmentId = segment.body.id;
    await waitFor(async () => ((await api('GET', `/v1/segments/${segmentId}/members`)).body.data as unknown[]).length === 3, {
      timeoutMs: 20_000,
      what: 'the segment’s three members',
    });
  });
  afterAll(async () => {
    await browser?.close();
    await pipeline?.stop();
    await Promise.allSettled([parts.bus.close(), parts.analytics.close()]);
  });

  it('asks for the key once and lists the campaign with its state and actions created per hour', async () => {
    const res = await fetch(`${pipeline.baseUrl}/console`, { redirect: 'manual' });
    expect([res.status, res.headers.get('location')]).toEqual([302, '/console/campaigns']);
    await page.goto(`${pipeline.baseUrl}/console`);
    await page.getByTestId('key').fill(API_KEY);
    await page.getByTestId('connect').click();
    const row = page.locator(`[data-testid="campaign-row"][data-campaign-id="${campaignId}"]`);
    await row.waitFor({ timeout: 10_000 });
    expect(await row.locator('td').nth(0).textContent()).toBe('Refill nudge');
    expect(await row.locator('td').nth(1).textContent()).toBe('draft');
    expect(await row.locator('[data-testid="sparkline"]').getAttribute('data-created')).toBe('980');
    expect(await row.locator('td').nth(4).textContent()).toBe('980');
    await page.getByText('Live: updated').waitFor({ timeout: 10_000 });
    await page.screenshot({ path: resolve(IMG, 'console-campaigns.png') });
  });

  it('draws the report: funnel per group, each conversion rate with its interval, the uplift in words, all equal to the JSON report', async () => {
    const report = (await api('GET', `/v1/campaigns/${campaignId}/report`)).body;
    const variant = report.variants[0];
    // The report's own numbers, as campaigns/report.test.ts computes them by hand for 50/1000 against 80/1000.
    expect([report.control.audience, report.control.converted, variant.audience, variant.converted, variant.created, variant.delivered]).toEqual([
      1000, 50, 1000, 80, 980, 700,
    ]);
    expect([variant.responses.shown, variant.responses.open]).toEqual([600, 150]);

    await page.getByText('Refill nudge').click();
    await page.waitForURL(`**/console/campaigns/${campaignId}`);
    const uplift = page.getByTestId('uplift-1');
    await uplift.waitFor({ timeout: 10_000 });
    expect(await uplift.textContent()).toBe('Variant 1 against control: +3.0 points, 95% CI +0.8 to +5.2 (p = 0.006): likely a real improvement.');
    expect(await uplift.getAttribute('data-estimate')).toBe(String(variant.uplift.absolute.estimate));
    expect([await uplift.getAttribute('data-low'), await uplift.getAttribute('data-high'), await uplift.getAttribute('data-p')]).toEqual([
      String(variant.uplift.absolute.ci[0]),
      String(variant.uplift.absolute.ci[1]),
      String(variant.uplift.p_value),
    ]);
    // Each group's rate and its drawn interval: the report's rate, and the Wilson interval of its counts.
    for (const [id, group, label] of [
      ['control', report.control, 'Control: 5.0% converted (50 of 1000), 95% CI 3.8% to 6.5%'],
      ['variant-1', variant, 'Variant 1: 8.0% converted (80 of 1000), 95% CI 6.5% to 9.8%'],
    ] as const) {
      const li = page.getByTestId(`rate-${id}`);
      const [low, high] = wilsonInterval(group.converted, group.audience) as [number, number];
      expect([await li.textContent(), await li.getAttribute('data-rate'), await li.getAttribute('data-low'), await li.getAttribute('data-high')]).toEqual([
        label,
        String(group.conversion_rate),
        String(low),
        String(high),
      ]);
    }
    // The charts' own data: what Chart.js was given to draw.
    const drawn = await page.evaluate(() => {
      const w = window as unknown as { Chart: { getChart(c: Element): { data: { labels: string[]; datasets: { label: string; data: unknown[] }[] } } } };
      const rate = w.Chart.getChart(document.getElementById('rate-chart') as Element).data;
      const funnel = w.Chart.getChart(document.getElementById('funnel-chart') as Element).data;
      return {
        rate: { labels: rate.labels, sets: rate.datasets.map((d) => [d.label, d.data]) },
        funnel: { labels: funnel.labels, sets: funnel.datasets.map((d) => [d.label, d.data]) },
      };
    });
    const pct = (g: { converted: number; audience: number }) => (wilsonInterval(g.converted, g.audience) as [number, number]).map((x) => x * 100);
    expect(drawn.rate).toEqual({
      labels: ['Control', 'Variant 1'],
      sets: [
        ['conversion rate', [5, 8]],
        ['95% interval', [pct(report.control), pct(variant)]],
      ],
    });
    expect(drawn.funnel).toEqual({
      labels: ['audience', 'created', 'delivered', 'shown', 'open', 'converted'],
      sets: [
        ['Control', [1000, 0, 0, 0, 0, 50]],
        ['Variant 1', [1000, 980, 700, 600, 150, 80]],
      ],
    });
    expect(await page.getByTestId('campaign-document').textContent()).toBe(
      JSON.stringify((await api('GET', `/v1/campaigns/${campaignId}`)).body.document, null, 2),
    );
    // The sample ratio check is always shown (1000 / 1000 under a 0.5 holdout: as configured, no warning),
    // and the variant's reading to act on once users have matured (the next test).
    const check = page.getByTestId('srm-check');
    expect([await check.textContent(), await check.getAttribute('data-mismatch'), await page.getByTestId('srm-warning').count()]).toEqual([
      `${report.srm.name}: ${report.srm.explanation}`,
      'false',
      0,
    ]);
    // Every goal window (P3D) is still open, so no user has matured: no reading to act on yet.
    expect([variant.readings, await page.getByTestId('reading-1').count()]).toEqual([null, 0]);
    await page.screenshot({ path: resolve(IMG, 'console-campaign.png'), fullPage: true });
  });

  it('changes the state with its buttons and previews the campaign for a user', async () => {
    await page.getByTestId('state-resume').click();
    await page.getByTestId('campaign-state').getByText('active', { exact: true }).waitFor({ timeout: 10_000 });
    await page.getByTestId('state-pause').click();
    await page.getByTestId('campaign-state').getByText('paused', { exact: true }).waitFor({ timeout: 10_000 });
    expect((await api('GET', `/v1/campaigns/${campaignId}`)).body.state).toBe('paused');
    await page.getByTestId('preview-user').fill('v-0001');
    await page.getByTestId('preview-run').click();
    await page.getByTestId('preview-result').getByText('"user_id": "v-0001"').waitFor({ timeout: 10_000 });
    const expected = (await api('POST', '/v1/campaigns/preview', { campaign: campaignId, user_id: 'v-0001' })).body;
    const shown = JSON.parse((await page.getByTestId('preview-result').textContent()) as string);
    expect([shown.user_id, shown.variant, shown.outcome]).toEqual([expected.user_id, expected.variant, expected.outcome]);
  });

  it('lists the segment with its members, draws entries per hour, pages members, previews an edit with problems at their paths', async () => {
    await page.goto(`${pipeline.baseUrl}/console/segments`);
    const row = page.locator(`[data-testid="segment-row"][data-segment-id="${segmentId}"]`);
    await row.waitFor({ timeout: 10_000 });
    expect([await row.locator('td').nth(0).textContent(), await row.locator('td').nth(1).textContent()]).toEqual(['Viewed the refill page', '3']);
    await row.locator('a').click();
    await page.waitForURL(`**/console/segments/${segmentId}`);
    await page.locator('#members li').nth(2).waitFor({ timeout: 10_000 });
    expect(await page.locator('#members li').evaluateAll((lis) => lis.map((l) => (l as HTMLElement).dataset.userId))).toEqual([
      `${run}-a`,
      `${run}-b`,
      `${run}-c`,
    ]);
    await page.waitForFunction(() => document.getElementById('history-chart')?.dataset.entered !== undefined);
    expect([await attr('#history-chart', 'data-entered'), await attr('#history-chart', 'data-exited')]).toEqual(['3', '0']);
    expect(await page.getByTestId('segment-definition').textContent()).toBe(JSON.stringify(SEGMENT.definition, null, 2));

    const editor = page.getByTestId('definition-editor');
    await editor.fill(JSON.stringify({ event: 'page', where: [{ prop: 'nope', op: 'eq', value: 1 }], within: 'P7D' }));
    const problem = page.getByTestId('preview-problems').locator('li');
    await problem.first().waitFor({ timeout: 10_000 });
    expect(await problem.first().getAttribute('data-path')).toBe('$.definition.where[0].prop');
    await editor.fill(JSON.stringify({ event: 'page', where: [{ prop: 'path', op: 'eq', value: '/refill' }], within: 'P1D' }));
    await page.locator('[data-testid="preview-count"][data-count="3"]').waitFor({ timeout: 10_000 });
    expect(await page.getByTestId('preview-count').textContent()).toBe('3 users match now');
    expect(await problem.count()).toBe(0);
    await page.screenshot({ path: resolve(IMG, 'console-segment.png'), fullPage: true });
  });

  it('runs SQL over /clickhouse/ as the key, draws the first number over the first time, and offers the docs’ examples', async () => {
    await page.goto(`${pipeline.baseUrl}/console/sql`);
    const examples = parseSqlExamples(readFileSync(resolve(__dirname, '../../docs/analytics.md'), 'utf8'));
    await page
      .locator('[data-example]')
      .nth(examples.length - 1)
      .waitFor({ timeout: 10_000 });
    expect(await page.locator('[data-example]').evaluateAll((bs) => bs.map((b) => (b as HTMLElement).dataset.example))).toEqual(examples.map((x) => x.name));
    await page.locator('[data-example="rejected_by_reason"]').click();
    expect(await page.getByTestId('sql-query').inputValue()).toBe(examples.find((x) => x.name === 'rejected_by_reason')?.sql);
    expect(await page.locator('#sql-params input').evaluateAll((is) => is.map((i) => (i as HTMLInputElement).name))).toEqual(['app', 'from', 'to']);

    await page
      .getByTestId('sql-query')
      .fill('SELECT toStartOfHour(received_at) AS hour, uniqExact(event_id) AS events FROM events WHERE name = {event:String} GROUP BY hour ORDER BY hour');
    await page.getByTestId('param-event').fill('checkout');
    await page.getByTestId('sql-run').click();
    await page
      .getByTestId('sql-status')
      .getByText(/^1 row/)
      .waitFor({ timeout: 10_000 });
    const cells = await page.locator('[data-testid="sql-table"] tbody td').allTextContents();
    expect(cells[1]).toBe('130');
    expect([await attr('#sql-chart', 'data-x'), await attr('#sql-chart', 'data-y')]).toEqual(['hour', 'events']);
    await page.screenshot({ path: resolve(IMG, 'console-sql.png'), fullPage: true });
  });

  it('shows events and rejections per minute, freshness, dead letters by group and every group’s lag, live', async () => {
    await page.goto(`${pipeline.baseUrl}/console/health`);
    await page.waitForFunction(() => document.getElementById('intake-chart')?.dataset.events !== undefined);
    // The three page views and the one rejection of this run (the seeded rows were received hours ago).
    expect([await attr('#intake-chart', 'data-events'), await attr('#intake-chart', 'data-rejected')]).toEqual(['3', '1']);
    expect(await page.getByTestId('freshness-now').textContent()).toMatch(/^Latest minute with events: p95 \d+\.\d\d s from receipt to stored$/);
    await page.locator('[data-testid="lag-table"]').waitFor({ timeout: 10_000 });
    // A dead letter of the app arrives: the page shows it without a reload.
    const producer = await parts.bus.producer();
    await producer.send(topics.actionsRequested, [{ key: APP, value: Buffer.from('not json') }]);
    await producer.close();
    const letters = page.locator('[data-testid="dead-letter-table"] tbody tr');
    await letters.first().waitFor({ timeout: 20_000 });
    expect(await letters.first().locator('td').allTextContents()).toEqual(['action-store.requests', '1']);
    // The (paused) campaign resumed and triggered for one user: the campaign worker's group handles a batch too.
    expect([
      (await api('POST', `/v1/campaigns/${campaignId}/resume`)).status,
      (await api('POST', `/v1/campaigns/${campaignId}/trigger`, { user_ids: ['health-user'] })).status,
    ]).toEqual([200, 202]);
    // A response to a nudge (one the platform never issued: counted `unknown`): the action store's
    // feedback group reads only actions.feedback, where the validator copies responses, so it needs one
    // to handle a batch too.
    const response = { ref: 'health-check', time: new Date().toISOString(), response: 'shown' };
    expect((await upload(`${run}-health`, [{ time: eventTime(), __ol: true, name: 'nudge_response', property: 'shown', ctx: response }])).status).toBe(200);
    // Every consumer group of the pipeline reports its lag (the bus measures it for each): all have
    // drained, and each group's total sums its partitions' rows.
    const cellsOf = (testid: string) =>
      page
        .locator(`[data-testid="${testid}"] tbody tr`)
        .evaluateAll((trs) => trs.map((tr) => Array.from(tr.querySelectorAll('td'), (td) => td.textContent ?? '')));
    const totals = await waitFor(
      async () => {
        const t = await cellsOf('lag-totals-table');
        expect(t.map(([group, , messages, seconds]) => [group, messages, seconds])).toEqual(LAG_GROUPS.map((group) => [group, '0', '0.0']));
        return t;
      },
      { timeoutMs: 20_000, what: 'every group drained on the Health page' },
    );
    const rows = await cellsOf('lag-table');
    expect(totals.map(([group, partitions]) => [group, Number(partitions)])).toEqual(
      LAG_GROUPS.map((group) => [group, rows.filter((r) => r[0] === group).length]),
    );
    expect(rows.filter((r) => r[3] !== '0' || r[4] !== '0.0')).toEqual([]);
    await page.screenshot({ path: resolve(IMG, 'console-health.png'), fullPage: true });
  });

  it('warns above the report when the split of users is not the configured one (300 treated users’ outcomes lost)', async () => {
    const doc = (await api('GET', `/v1/campaigns/${campaignId}`)).body.document;
    // A goal window that has closed for everyone (the runs were three hours ago), so the readings count every user.
    if ((await api('GET', `/v1/campaigns/${campaignId}`)).body.state === 'active') await api('POST', `/v1/campaigns/${campaignId}/pause`);
    const put = await api('PUT', `/v1/campaigns/${campaignId}`, { ...doc, goal: { ...doc.goal, within: 'PT1H' } });
    expect(put.status).toBe(200);
    // A split broken at the source (a faulty assignment, a lost write): 300 of the treated users' outcomes gone.
    await parts.analytics.command(
      `DELETE FROM campaign_outcomes WHERE campaign_id = {id:String} AND variant = 1 AND user_id IN (
         SELECT user_id FROM campaign_outcomes WHERE campaign_id = {id:String} AND variant = 1 AND startsWith(user_id, 'v-') ORDER BY user_id LIMIT 300)`,
      { id: campaignId },
    );
    const report = (await api('GET', `/v1/campaigns/${campaignId}/report`)).body;
    // The seeded 1000 a side (and a user or two the earlier tests' resume may have triggered), 700 treated left, under a 0.5 holdout.
    const [control, treated] = report.srm.observed as [number, number];
    const near = (n: number, m: number) => n >= m && n <= m + 3;
    expect([report.srm.mismatch, near(control, 1000), near(treated, 700), report.srm.expected[0] / (control + treated)]).toEqual([
      true,
      true,
      true,
      expect.closeTo(0.5, 10),
    ]);
    await page.goto(`${pipeline.baseUrl}/console/campaigns/${campaignId}`);
    const warning = page.getByTestId('srm-warning');
    await warning.waitFor({ timeout: 15_000 });
    expect([await warning.textContent(), await warning.getAttribute('role'), await page.getByTestId('srm-check').getAttribute('data-mismatch')]).toEqual([
      report.srm.warning,
      'alert',
      'true',
    ]);
    // Every window has closed now: the variant's reading to act on, in the report's own words.
    const variant = report.variants[0];
    const primary = variant.readings[variant.readings.primary];
    await page.getByTestId('reading-1').waitFor({ timeout: 15_000 });
    // The all-users Wald sentence stays, said for what it is.
    expect(await page.getByTestId('uplift-1').textContent()).toBe(
      `Variant 1 against control, all users, valid only if read once: ${upliftWords(variant.uplift)}`,
    );
    // One variant: the readings' intervals are at the report's 95%.
    expect(await page.getByTestId('reading-1').textContent()).toBe(
      `Variant 1, the reading to act on (${primary.name}): ${readingWords(primary, variant.readings.primary, 0.95)} P(beats control) = ${percent(variant.readings.bayes.p_beats_control)}.`,
    );
    await page.screenshot({ path: resolve(IMG, 'console-campaign-srm.png'), fullPage: true });
  });

  it('shows an adaptive campaign’s epoch-weighted uplift and its weights over time', async () => {
    // An adaptive campaign whose worker moved the weights once (appended as the worker does, through
    // the store), and users seeded in both epochs exactly at that epoch's shares: control 20%, then
    // the variants 50/50 of the treated, then 25/75 (500 users each). Variant 2 converts 10 points
    // above control in each, variant 1 as control.
    const created = await api('POST', '/v1/campaigns', {
      ...CAMPAIGN,
      name: 'Adaptive refill',
      holdout: 0.2,
      variants: [
        { weight: 1, action: { content: { title: 'A', body: 'a' } } },
        { weight: 1, action: { content: { title: 'B', body: 'b' } } },
      ],
      goal: { ...CAMPAIGN.goal, within: 'PT1H' },
      adaptive: {},
    });
    expect(created).toMatchObject({ status: 201 });
    const id = created.body.id as string;
    const { store } = createCampaigns({ analytics: parts.analytics, segments: { list: async () => [] } });
    const stored = await store.get(APP, id);
    // The epoch 12 h after creation, as the worker would append it (the report reads it whatever the clock).
    const moved = (stored?.created_at ?? 0) + 12 * HOUR;
    await store.appendSplit(stored as NonNullable<typeof stored>, { from: moved, holdout: 0.2, weights: [0.25, 0.75], adaptive: true });
    const at = now - 3 * HOUR;
    const rows: Record<string, unknown>[] = [];
    const goals: CanonicalEvent[] = [];
    const seed = (epoch: number, written: number, groups: [number, number][]) =>
      groups.forEach(([n, converted], variant) =>
        range(n).forEach((i) => {
          const user = `ad-${epoch}-${variant}-${pad(i)}`;
          rows.push({
            app_id: APP,
            campaign_id: id,
            inv_id: 30000 + epoch,
            user_id: user,
            variant,
            action_id: variant === 0 ? 0 : (created.body.action_ids[variant - 1] as number),
            outcome: variant === 0 ? 'control' : 'requested',
            reason: '',
            trigger: 'api',
            at: formatDateTime64(at),
            written_at: formatDateTime64(written),
          });
          if (i < converted)
            goals.push(
              event(
                user,
                'checkout',
                at + 600_000,
                { id: `o-${user}`, cart_id: `c-${user}`, cart_price: 10, currency: 'KES', items: [{ id: 'i1' }], is_successful: true },
                'e_commerce',
              ),
            );
        }),
      );
    seed(0, moved - 500, [
      [100, 10],
      [200, 20],
      [200, 40],
    ]);
    seed(1, moved + 500, [
      [100, 10],
      [100, 10],
      [300, 60],
    ]);
    await parts.analytics.insert('campaign_outcomes', rows);
    await parts.analytics.insert(TABLES.events, goals.map(eventRow));
    const report = (await api('GET', `/v1/campaigns/${id}/report`)).body;
    expect([report.allocation.estimate, report.variants[1].epoch_weighted.epochs, report.srm.mismatch]).toEqual(['epoch_weighted', 2, false]);
    expect(report.variants[1].epoch_weighted.estimate).toBeCloseTo(0.1, 12);

    await page.goto(`${pipeline.baseUrl}/console/campaigns/${id}`);
    const chart = page.getByTestId('allocation-chart');
    await page.getByTestId('allocation').waitFor({ timeout: 15_000 });
    // The chart's own points: each variant's share (%) of the treated users in each epoch.
    const points = await chart.evaluate((canvas) => {
      const c = (
        globalThis as unknown as { Chart: { getChart(el: unknown): { data: { labels: string[]; datasets: { label: string; data: number[] }[] } } } }
      ).Chart.getChart(canvas);
      return { labels: c.data.labels, datasets: c.data.datasets.map((d) => [d.label, d.data]) };
    });
    const label = (ms: number) => new Date(ms).toISOString().slice(0, 16).replace('T', ' ');
    expect(points).toEqual({
      labels: [label(stored?.created_at ?? 0), label(moved)],
      datasets: [
        ['Variant 1', [50, 25]],
        ['Variant 2', [50, 75]],
      ],
    });
    // The same numbers for a screen reader.
    expect(await chart.getAttribute('aria-label')).toBe(`${label(stored?.created_at ?? 0)}: 50.0%, 50.0%; ${label(moved)}: 25.0%, 75.0%`);
    // Each variant's epoch-weighted uplift, said and coloured as the uplift is, with the report's
    // numbers behind it. Both epochs weigh ½ (500 users each); variant 2: Δ = 0.1 in each, Var =
    // ¼·(0.09/100 + 0.16/200) + ¼·(0.09/100 + 0.16/300) = 0.00078333, half 1.959964·0.0279881 = 0.054856;
    // variant 1: Δ = 0, Var = ¼·(0.09/100 + 0.09/200) + ¼·(0.09/100 + 0.09/100) = 0.0007875, half 0.055001.
    const lines = await page
      .getByTestId('epoch-weighted')
      .locator('p')
      .evaluateAll((ps) => ps.map((p) => [p.textContent, p.className, { ...(p as HTMLElement).dataset }]));
    const numbers = (v: number) => {
      const e = report.variants[v - 1].epoch_weighted;
      return { testid: `epoch-weighted-${v}`, estimate: String(e.estimate), low: String(e.ci[0]), high: String(e.ci[1]) };
    };
    expect(lines).toEqual([
      ['Variant 1, epoch-weighted: 0.0 points, 95% CI \u22125.5 to +5.5 over 2 epochs: not distinguishable from no effect yet.', 'flat', numbers(1)],
      ['Variant 2, epoch-weighted: +10.0 points, 95% CI +4.5 to +15.5 over 2 epochs: likely a real improvement.', 'up', numbers(2)],
    ]);
    const explanation = page.getByTestId('epoch-weighted-explanation');
    expect([await explanation.isVisible(), (await explanation.textContent())?.startsWith('Epoch-weighted: the weights moved between epochs')]).toEqual([
      true,
      true,
    ]);
    await page.getByTestId('allocation').screenshot({ path: resolve(IMG, 'console-campaign-adaptive.png') });
  });

  it('keeps the inspector in the shell, with the Keys entry in the nav', async () => {
    await page.goto(`${pipeline.baseUrl}/inspector`);
    expect(
      await page.locator('nav a').evaluateAll((as) => as.map((a) => [(a as HTMLAnchorElement).textContent, (a as HTMLAnchorElement).getAttribute('href')])),
    ).toEqual([
      ['Campaigns', '/console/campaigns'],
      ['Segments', '/console/segments'],
      ['SQL', '/console/sql'],
      ['Health', '/console/health'],
      ['Inspector', '/inspector'],
      ['Keys', '/console/keys'],
      ['Privacy', '/console/privacy'],
      ['Access log', '/console/audit'],
    ]);
    expect(await page.getByTestId('key').inputValue()).toBe(API_KEY);
  });
});
