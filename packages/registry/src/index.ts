export * from './avro-schema';
export * from './compatibility';
export * from './confluent-registry';
export * from './exact-long';
export * from './registry-error';
export * from './schema-store';
export * from './wire-format';
