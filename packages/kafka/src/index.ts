export * from './kafka-bus';
export * from './kafka-errors';
export * from './cluster-probe';
