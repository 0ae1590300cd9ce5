import { describeRateLimiterConformance } from './conformance';
import { createInMemoryRateLimiter } from './in-memory';

describeRateLimiterConformance('in-memory', async (policy) => createInMemoryRateLimiter(policy));
