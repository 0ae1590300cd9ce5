import { RateLimiter } from './rate-limit';

// A fake clock that sleeping advances: the waits the limiter asks for are exact.
function fakeTime() {
  let t = 0;
  const sleeps: number[] = [];
  const limiter = new RateLimiter(
    () => t,
    async (ms) => {
      sleeps.push(ms);
      t += ms;
    },
  );
  return { limiter, sleeps, now: () => t };
}

describe('RateLimiter', () => {
  it('lets a burst of one second through at once, then paces at the rate', async () => {
    const { limiter, sleeps, now } = fakeTime();
    await limiter.take('c', 100, 100);
    expect(sleeps).toEqual([]);
    await limiter.take('c', 100, 50);
    expect(now()).toBe(500);
    await limiter.take('c', 100, 250);
    // 250 more at 100/s: in parts of at most a full bucket.
    expect(now()).toBe(3_000);
  });

  it('keeps campaigns apart and does not limit without a rate', async () => {
    const { limiter, sleeps } = fakeTime();
    await limiter.take('a', 10, 10);
    await limiter.take('b', 10, 10);
    await limiter.take('c', undefined, 1_000_000);
    expect(sleeps).toEqual([]);
  });
});
