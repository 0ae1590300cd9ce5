import type { RuleName } from '../rules/registry';
/**
 * Event names real clients send that the spec does not define, and the definition each is read with
 * (docs/data-contract.md, "Real clients"). Consulted only for a name no definition or alias knows,
 * so a spec event is never re-read. The name as sent stays in the event's `sent_name`.
 */
export interface ClientEventVariant {
  /** The name as sent; `*` for any otherwise unknown name. */
  sent: string;
  /** When the variant applies, given the props as sent. */
  when: (props: Record<string, unknown>, sentName: string) => boolean;
  /** The definition it is read with. */
  event: string;
  /** The warning that says so. */
  rule: RuleName;
  message: string;
}

const CLIENT_EVENT_VARIANTS: readonly ClientEventVariant[] = [
  // Kenkai's payments module has one `payment` event (PaymentObject.swift) whose action decides
  // which of the payment block's two events it is.
  {
    sent: 'payment',
    when: (p) => p.action === 'payment_processed',
    event: 'deferred_payment',
    rule: 'payment_event_mapped',
    message: 'payment with action payment_processed read as deferred_payment',
  },
  {
    sent: 'payment',
    when: () => true,
    event: 'payment_method',
    rule: 'payment_event_mapped',
    message: 'payment (a choice of payment method) read as payment_method; its action is kept as an extra',
  },
  // Kenkai's track(): the app's own event name, repeated in ctx `name` (TrackEventObject.swift).
  {
    sent: '*',
    when: (p, sentName) => p.name === sentName,
    event: 'custom',
    rule: 'custom_event',
    message: "an app-defined event (the client's track); its name is in props.name",
  },
];

/** The variant an otherwise unknown event name is read as, if any. */
export function clientEventVariant(sentName: string, props: Record<string, unknown>): ClientEventVariant | undefined {
  return CLIENT_EVENT_VARIANTS.find((v) => (v.sent === sentName || v.sent === '*') && v.when(props, sentName));
}
