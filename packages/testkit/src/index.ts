export * from './wait-for';
export * from './stack/endpoints';
export * from './conformance/bus';
export * from './conformance/schema-registry';
export * from './schema-registry-double';
export * from './conformance/action-store';
export * from './conformance/action-store-redis';
