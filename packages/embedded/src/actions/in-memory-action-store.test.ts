import { describeActionStoreConformance } from '@evp/testkit';
import { InMemoryActionStore } from './in-memory-action-store';

describeActionStoreConformance('in-memory', async (clock, opts) => ({ store: new InMemoryActionStore({ clock, ...opts }) }));
