import { LIMITS } from '@evp/actions';
import { actionFor, expiresAt, mergeVariant, variantTemplates } from './action-template';
import type { ActionTemplate, CampaignDocument } from './document';

const template: ActionTemplate = {
  type: 'message',
  render_method: 'push_notification',
  delivery_mode: 'one-off',
  content: { title: 'Hi {{ user.name }}', body: 'In stock' },
  attr: { campaign: 'refill' },
  tags: ['refill'],
  expires_after: 'P3D',
};

describe('mergeVariant and variantTemplates', () => {
  it('replaces fields, merges content by field, and replaces both expiries when the variant gives one', () => {
    expect(mergeVariant(template, { content: { title: 'Hello' }, tags: ['b'] })).toEqual({
      ...template,
      content: { title: 'Hello', body: 'In stock' },
      tags: ['b'],
    });
    expect(mergeVariant(template, { expired_at: '2026-04-01T00:00:00Z' })).toEqual({
      ...template,
      expires_after: undefined,
      expired_at: '2026-04-01T00:00:00Z',
    });
    expect(Object.keys(mergeVariant(template, { expired_at: '2026-04-01T00:00:00Z' }))).not.toContain('expires_after');
  });

  it('gives one template per variant, or the action alone', () => {
    const campaign = { name: 'n', trigger: { api: true }, action: template } as CampaignDocument;
    expect(variantTemplates(campaign)).toEqual([template]);
    const withVariants = {
      ...campaign,
      variants: [
        { weight: 1, action: {} },
        { weight: 3, action: { render_method: 'in_app_message' } },
      ],
    } as CampaignDocument;
    expect(variantTemplates(withVariants)).toEqual([template, { ...template, render_method: 'in_app_message' }]);
  });
});

describe('expiresAt', () => {
  const created = Date.parse('2026-01-31T10:15:30.250Z');
  it('counts expires_after from creation in UTC, months by the calendar', () => {
    expect(expiresAt(template, created)).toBe('2026-02-03T10:15:30.250Z');
    expect(expiresAt({ ...template, expires_after: 'P1M' }, created)).toBe('2026-02-28T10:15:30.250Z');
    expect(expiresAt({ ...template, expires_after: 'PT90M' }, created)).toBe('2026-01-31T11:45:30.250Z');
  });

  it('keeps a given instant, and never', () => {
    const { expires_after: _, ...fixed } = template;
    expect(expiresAt({ ...fixed, expired_at: '2026-04-01T00:00:00+05:45' }, created)).toBe('2026-04-01T00:00:00+05:45');
    expect(expiresAt({ ...fixed, expired_at: '0001-01-01T00:00:00Z' }, created)).toBe('0001-01-01T00:00:00Z');
  });
});

describe('actionFor', () => {
  const instance = { userId: 'u1', content: { title: 'Hi Asha', body: 'In stock' }, inv_id: 12, action_id: 3, createdAtMs: Date.parse('2026-01-15T03:15:00Z') };

  it('builds the action for one user with the campaign ids and the expiry', () => {
    expect(actionFor(template, instance)).toEqual({
      ok: true,
      value: {
        user_id: 'u1',
        type: 'message',
        render_method: 'push_notification',
        delivery_mode: 'one-off',
        content: { title: 'Hi Asha', body: 'In stock' },
        attr: { campaign: 'refill' },
        tags: ['refill'],
        expired_at: '2026-01-18T03:15:00.000Z',
        inv_id: 12,
        action_id: 3,
      },
    });
  });

  it("refuses rendered content the store would refuse, with the store's problem", () => {
    const long = 'x'.repeat(LIMITS.titleLength + 1);
    expect(actionFor(template, { ...instance, content: { title: long, body: '' } })).toEqual({
      ok: false,
      reasons: [{ path: '$.content.title', rule: 'max', message: 'String must contain at most 1000 character(s)' }],
    });
  });
});
