import { ctx as fixtureCtx, earlierEnvelope } from '../__fixtures__/envelopes';
import { normalizeUpload } from '../normalize/normalize';
import { resolveSentEventName } from './client-names';

// Received after the 2025 times these clients' logs carry (an earlier receipt would flag them future_time).
const ctx = { ...fixtureCtx, receivedAt: Date.UTC(2026, 0, 1) };

describe('event names real clients send (client-names.ts)', () => {
  it('reads client aliases with event_alias', () => {
    expect(resolveSentEventName('identity', {})).toEqual({
      name: 'identify',
      warning: { rule: 'event_alias', message: 'identity is a client name of identify', at: 'name' },
    });
    expect(resolveSentEventName('schedule_delivery', {})).toEqual({
      name: 'delivery',
      warning: { rule: 'event_alias', message: 'schedule_delivery is a client name of delivery', at: 'name' },
    });
  });

  it('reads camelCase Swift case names with event_spelling', () => {
    expect(resolveSentEventName('moduleSelection', {})).toEqual({
      name: 'module_selection',
      warning: { rule: 'event_spelling', message: 'moduleSelection read as module_selection', at: 'name' },
    });
    expect(resolveSentEventName('submitScreening', {}).name).toBe('submit_screening');
    expect(resolveSentEventName('medicalReview', {}).name).toBe('medical_review');
    expect(resolveSentEventName('treatmentPlan', {}).name).toBe('treatment_plan');
  });

  it('reads the clients’ variants of names the spec lacks last, reported at the props', () => {
    expect(resolveSentEventName('payment', { action: 'payment_processed' })).toEqual({
      name: 'deferred_payment',
      warning: { rule: 'payment_event_mapped', message: 'payment with action payment_processed read as deferred_payment', at: 'props' },
    });
    expect(resolveSentEventName('level_up', { name: 'level_up' }).name).toBe('custom');
    // A defined name is never re-read as a variant, even with its name repeated in the props.
    expect(resolveSentEventName('page', { name: 'page' })).toEqual({ name: 'page' });
  });

  it('leaves spec names, spec aliases and unknown names alone', () => {
    expect(resolveSentEventName('page', {})).toEqual({ name: 'page' });
    expect(resolveSentEventName('action_response', {})).toEqual({ name: 'nudge_response' });
    expect(resolveSentEventName('fooBar', {})).toEqual({ name: 'fooBar' });
    expect(resolveSentEventName('constructor', {})).toEqual({ name: 'constructor' });
    expect(resolveSentEventName('hasOwnProperty', {})).toEqual({ name: 'hasOwnProperty' });
  });

  it('keeps the name as sent and reports the warning at the type', () => {
    const r = normalizeUpload(
      { ...earlierEnvelope([{ block: 'core', ol: true, ts: '2025-03-17T09:00:20Z', type: 'identity', props: { action: 'login' } }]), sdk: 'ios/1.2.3' },
      ctx,
    );
    expect(r.accepted[0]!.event).toMatchObject({ name: 'identify', sent_name: 'identity', block: 'core', props: { action: 'login' } });
    expect(r.accepted[0]!.warnings).toEqual([{ path: '$.data[0].type', rule: 'event_alias', message: 'identity is a client name of identify' }]);
  });

  it('names legacy patient-management events (event_not_in_spec) after the spelling', () => {
    const props = { patient_id: 'pat_771', site_id: 'site_12', id: 'ls_6', lifestyle_plan_list: [{ name: 'daily walk', action: 'add' }] };
    const r = normalizeUpload(
      { ...earlierEnvelope([{ block: 'chw_mgmt', ol: true, ts: '2025-03-17T09:09:50Z', type: 'lifestyle', props }]), sdk: 'ios/0.5.3' },
      ctx,
    );
    expect(r.accepted[0]!.event).toMatchObject({ name: 'lifestyle', sent_name: null, block: 'patient_mgmt', props });
    expect(r.accepted[0]!.warnings.map((w) => `${w.path} ${w.rule}`)).toEqual(['$.data[0].type event_not_in_spec', '$.data[0].block block_spelling']);
  });
});
