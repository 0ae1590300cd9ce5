import { Counter, type Registry } from 'prom-client';

/**
 * Every series the validator declares (scripts/lint.js keeps `new Counter/Gauge/Histogram` in
 * metrics.ts files), registered in the registry it is given. Dead letters and its group's lag are
 * the shared ones of @evp/http (busMetrics).
 */
export function createValidatorMetrics(metrics: Registry) {
  return {
    accepted: new Counter({ name: 'validator_events_accepted_total', help: 'Canonical events written', labelNames: ['block'], registers: [metrics] }),
    catalogAccepted: new Counter({
      name: 'validator_catalog_records_accepted_total',
      help: 'Catalog records written',
      labelNames: ['kind'],
      registers: [metrics],
    }),
    suppressedCount: new Counter({
      name: 'validator_suppressed_total',
      help: 'Events and catalog records dropped because they name a suppressed (erased) user or patient',
      labelNames: ['kind'],
      registers: [metrics],
    }),
    privacyFields: new Counter({
      name: 'validator_privacy_fields_total',
      help: 'Fields of accepted events and records the app\'s privacy policy pseudonymised or dropped (docs/privacy.md, "Policy")',
      labelNames: ['app_id', 'class', 'action'],
      registers: [metrics],
    }),
    rejectedCount: new Counter({
      name: 'validator_events_rejected_total',
      help: 'Events covered by rejected records',
      labelNames: ['kind'],
      registers: [metrics],
    }),
  };
}
