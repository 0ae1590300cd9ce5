import { createInMemoryLeaseStore } from '@evp/core';
import { describeLeaseConformance } from '@evp/testkit';

// One process: the "peer" is the same store, as every part of `npm start` shares one.
describeLeaseConformance('in-memory', async () => {
  const store = createInMemoryLeaseStore();
  return { store, peer: store };
});
