import { answerFailures, sortAnswers, type Answer } from './answer-windows';

const marks = { firstKilled: 1_000, failedOver: 5_000, secondKilled: 10_000, restarted: 20_000 };
const a = (status: number, sentAt: number, answeredAt = sentAt + 100): Answer => ({ status, sentAt, answeredAt });

describe('sortAnswers / answerFailures (fault scenario k)', () => {
  it('sorts each answer into the cluster state it was sent and answered in', () => {
    const answers = [
      a(202, 500), // before the fault: transition (neither window)
      a(503, 1_200), // failover after the first kill
      a(202, 6_000), // one node down
      a(202, 9_950), // straddles the second kill: transition
      a(503, 10_000, 15_000), // two down
      a(503, 19_000, 21_000), // straddles the restart: transition
      a(503, 20_500), // rejoin, before the first ack after the restart
      a(202, 21_000, 22_000), // the first ack after the restart: back = 22_000; sent before it: transition
      a(202, 22_000), // back
    ];
    const { back, windows } = sortAnswers(answers, marks);
    expect(back).toBe(22_000);
    expect(windows).toEqual({
      oneDown: { ok: 1, unavailable: 0, other: 0 },
      twoDown: { ok: 0, unavailable: 1, other: 0 },
      back: { ok: 1, unavailable: 0, other: 0 },
      transition: { ok: 3, unavailable: 3, other: 0 },
    });
    expect(answerFailures(windows)).toEqual([]);
  });

  it('names every breach: a refusal with one node down, an ack with one replica, an answer that is not 503, no recovery', () => {
    const answers = [a(202, 6_000), a(500, 7_000), a(503, 8_000), a(202, 11_000), a(0, 12_000), a(503, 13_000), a(503, 25_000)];
    const { back, windows } = sortAnswers(answers, marks);
    expect(back).toBeUndefined();
    expect(answerFailures(windows)).toEqual([
      '2 uploads refused with one node down',
      '1 uploads acknowledged with one replica in sync',
      'no upload acknowledged after the restart',
      '2 answers neither 2xx nor 503',
    ]);
  });
});
