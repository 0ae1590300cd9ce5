import { describeActionStoreConformance } from '@evp/testkit/src/conformance/action-store';
import { InMemoryActionStore } from './in-memory-action-store';

describeActionStoreConformance('in-memory', async (clock, opts) => ({ store: new InMemoryActionStore({ clock, ...opts }) }));
