import { describeBusConformance } from '@evp/testkit';
import { createInProcessBus } from './in-process-bus';

describeBusConformance('in-process', async () => {
  const bus = createInProcessBus({ retryDelayMs: 5 });
  return { bus, close: () => bus.close() };
});
