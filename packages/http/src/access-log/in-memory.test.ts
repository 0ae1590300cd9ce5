import { describeAccessLogConformance } from './conformance';
import { createAccessLog } from './log';
import { createInMemoryAccessLogStorage } from './in-memory';

describeAccessLogConformance('in-memory', async () => {
  const storage = createInMemoryAccessLogStorage();
  const clock = { t: 1_700_000_000_000 };
  const now = () => clock.t;
  return {
    log: createAccessLog(storage, { now }),
    peer: createAccessLog(storage, { now }),
    clock,
    tamper: {
      async modify(appId, seq, patch) {
        const list = storage.entries.get(appId) ?? [];
        const i = list.findIndex((e) => e.seq === seq);
        list[i] = { ...list[i]!, ...patch };
      },
      async remove(appId, seq) {
        storage.entries.set(
          appId,
          (storage.entries.get(appId) ?? []).filter((e) => e.seq !== seq),
        );
      },
    },
  };
});
