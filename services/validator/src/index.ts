export * from './validator';
export * from './process-raw';
export * from './config';
export { VALIDATOR_NAME, VALIDATOR_OPTIONS, type ValidatorConsumerConfig } from './options';
