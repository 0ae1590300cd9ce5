export * from './kafka-bus';
export * from './kafka-errors';
