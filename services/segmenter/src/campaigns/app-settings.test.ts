import { validateAppSettings } from './app-settings';

describe('validateAppSettings', () => {
  it('fills defaults and takes an integer cap or null', () => {
    expect(validateAppSettings({})).toEqual({ ok: true, value: { max_per_user_per_day: null } });
    expect(validateAppSettings({ max_per_user_per_day: 3 })).toEqual({ ok: true, value: { max_per_user_per_day: 3 } });
    expect(validateAppSettings({ max_per_user_per_day: null })).toEqual({ ok: true, value: { max_per_user_per_day: null } });
  });

  it('reports every problem with its path', () => {
    expect(validateAppSettings({ max_per_user_per_day: 0.5, daily: 1 })).toEqual({
      ok: false,
      reasons: [
        { path: '$.daily', rule: 'unknown_key', message: 'campaign settings has no key daily (its keys: max_per_user_per_day)' },
        { path: '$.max_per_user_per_day', rule: 'range', message: 'must be an integer from 1 to 1000, or null (no cap); got 0.5' },
      ],
    });
    expect(validateAppSettings('3')).toEqual({
      ok: false,
      reasons: [{ path: '$', rule: 'type', message: 'campaign settings must be a JSON object, got a string' }],
    });
    expect(validateAppSettings({ max_per_user_per_day: '3' })).toMatchObject({ ok: false, reasons: [{ path: '$.max_per_user_per_day', rule: 'type' }] });
  });
});
