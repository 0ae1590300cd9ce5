export * from './bus/in-process-bus';
export * from './registry/in-process-registry';
export * from './actions/in-memory-action-store';
export * from './analytics/chdb-analytics';
export * from './analyst/chdb-analyst-sql';
