export { ManualClock, timerClock, type Clock, type TimerClock, type TimerHandle } from './clock';
export { every, type Every, type EveryOptions } from './every';
export { createConsumerLifecycle, type ConsumeOptions, type ConsumerLifecycle, type ConsumerLifecycleOptions, type StopSteps } from './lifecycle';
export { consumerPart, type ConsumerDeps } from './part';
