import type { FieldType, ObjectDef } from '../dsl/types';
import { eventDef, eventDefs, eventsOfBlock, resolveEventName } from './event-defs';

/** The legacy patient-management events of causalfoundry/ios-sdk 0.4.3–1.0.3. */
const LEGACY_PATIENT_MGMT = [
  'submit_screening',
  'submit_assessment',
  'submit_enrolment',
  'medical_review',
  'treatment_plan',
  'prescription',
  'investigation',
  'counseling',
  'lifestyle',
] as const;
/** The event list of spec section 6 (and the payment block from the public SDKs), by block. */
const SPEC_EVENTS = {
  core: ['app', 'page', 'identify', 'media', 'search', 'rate', 'nudge_response', 'module_selection'],
  patient_mgmt: ['patient', 'encounter', 'appointment'],
  e_commerce: ['item', 'cart', 'checkout', 'delivery', 'cancel_checkout', 'item_report', 'item_request', 'item_verification'],
  e_learning: ['question', 'exam', 'module'],
  loyalty: ['level', 'milestone', 'promo', 'survey', 'reward'],
  emergency_mgmt: ['incident', 'ambulance'],
  call_center: ['break', 'contact', 'ops_scorecard'],
  chat: ['message', 'group', 'receipt'],
  payment: ['payment_method', 'deferred_payment'],
} as const;

/**
 * Events the spec lacks, defined from the real clients that send them: Kenkai's app-defined `custom`
 * and `diagnosis`, the `exception` both iOS lines report (client diagnostics), the legacy events.
 */
const CLIENT_EVENTS = { core: ['custom', 'exception'], patient_mgmt: ['diagnosis', ...LEGACY_PATIENT_MGMT] } as const;

function nestedDefs(type: FieldType, out: ObjectDef[]): void {
  if (type.kind === 'object') {
    out.push(type.def);
    for (const f of Object.values(type.def.fields)) nestedDefs(f.type, out);
  } else if (type.kind === 'array') nestedDefs(type.items, out);
  else if (type.kind === 'map') nestedDefs(type.values, out);
}

describe('event definitions', () => {
  it('define exactly the events of spec section 6 plus payment, each in its block, and the events real clients send that the spec lacks', () => {
    for (const [block, names] of Object.entries(SPEC_EVENTS)) {
      const extra: readonly string[] = CLIENT_EVENTS[block as keyof typeof CLIENT_EVENTS] ?? [];
      expect(eventsOfBlock(block as keyof typeof SPEC_EVENTS).map((d) => d.event)).toEqual([...names, ...extra]);
    }
    expect(eventDefs).toHaveLength(Object.values(SPEC_EVENTS).flat().length + Object.values(CLIENT_EVENTS).flat().length);
    // Exactly the events the spec lacks that only real clients send say where they come from (warning
    // event_not_in_spec, gated); exception (client diagnostics) and custom (the platform's app-defined
    // event, open to every client) are stored without a warning.
    expect(eventDefs.filter((d) => d.origin !== undefined).map((d) => d.event)).toEqual(['diagnosis', ...LEGACY_PATIENT_MGMT]);
  });

  it('give every record a name that means one definition across all blocks', () => {
    // The Avro derivation references a record by name after its first use; two different
    // definitions under one name would silently share the first one's schema.
    const byName = new Map<string, ObjectDef>();
    for (const def of eventDefs) {
      const all: ObjectDef[] = [def];
      for (const f of Object.values(def.fields)) nestedDefs(f.type, all);
      for (const d of all) {
        expect([d.name, byName.get(d.name) ?? d]).toEqual([d.name, d]);
        byName.set(d.name, d);
      }
    }
  });

  it('have enums with unique, non-empty symbol lists', () => {
    const enums: { name: string; symbols: readonly string[] }[] = [];
    const walk = (t: FieldType) => {
      if (t.kind === 'enum') enums.push(t);
      else if (t.kind === 'array') walk(t.items);
      else if (t.kind === 'map') walk(t.values);
      else if (t.kind === 'object') Object.values(t.def.fields).forEach((f) => walk(f.type));
    };
    eventDefs.forEach((d) => Object.values(d.fields).forEach((f) => walk(f.type)));
    for (const e of enums) {
      expect(e.symbols.length).toBeGreaterThan(0);
      expect(new Set(e.symbols).size).toBe(e.symbols.length);
    }
  });

  it('resolve aliases and receipts sent as group', () => {
    expect(eventDef('action_response')?.event).toBe('nudge_response');
    expect(resolveEventName('group', { msg_id: 'm', type: 'sent' })).toBe('receipt');
    expect(resolveEventName('group', { msg_id: 'm', type: 'join' })).toBe('group');
    expect(resolveEventName('group', { group_id: 'g', type: 'read' })).toBe('group');
    expect(resolveEventName('group', { msg_id: 7, type: 'read' })).toBe('group');
    expect(resolveEventName('receipt', { msg_id: 'm', type: 'read' })).toBe('receipt');
    expect(eventDef('toString')).toBeUndefined();
  });
});
