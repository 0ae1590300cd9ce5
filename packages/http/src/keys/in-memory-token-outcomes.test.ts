import { createInMemoryUserTokenCountStore } from '@evp/core';
import { describeUserTokenCountStoreConformance } from './token-outcomes-conformance';

// One process: the "peer" is the same store, as every part of `npm start` shares one.
describeUserTokenCountStoreConformance('in-memory', async () => {
  const store = createInMemoryUserTokenCountStore();
  return { store, peer: store };
});
