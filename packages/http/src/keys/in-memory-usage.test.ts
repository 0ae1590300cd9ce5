import { createInMemoryKeyUsageStore } from '@evp/core';
import { describeKeyUsageStoreConformance } from './conformance';

// One process: the "peer" is the same store, as every part of `npm start` shares one.
describeKeyUsageStoreConformance('in-memory', async () => {
  const store = createInMemoryKeyUsageStore();
  return { store, peer: store };
});
