/**
 * The gateway's answers around a cluster fault, sorted into the cluster's states by when each
 * request was sent and answered, so the scenario can state exactly where 503s fell.
 */

export interface Answer {
  status: number;
  sentAt: number;
  answeredAt: number;
}

/** Moments of the fault, ms since epoch. */
export interface ClusterMarks {
  /** The first node died (kill -9 returned). */
  firstKilled: number;
  /** Every watched partition had a live leader and no dead node in its in-sync replicas again. */
  failedOver: number;
  /** The second node died: one live replica, fewer than min.insync.replicas (2). */
  secondKilled: number;
  /** Both nodes were being started again. */
  restarted: number;
}

export type Window = 'oneDown' | 'twoDown' | 'back' | 'transition';
export interface Tally {
  ok: number;
  unavailable: number;
  /** Anything but 2xx and 503 (no answer = 0, 500, …). */
  other: number;
}

/**
 * oneDown: sent after the failover, answered before the second kill; twoDown: sent after the second
 * kill, answered before the restart; back: sent once an upload sent after the restart was
 * acknowledged (`back`, the answer time of the first such ack); transition: the rest (the failover
 * after the first kill, requests straddling a kill, the rejoin after the restart).
 */
export function sortAnswers(answers: Answer[], m: ClusterMarks): { back: number | undefined; windows: Record<Window, Tally> } {
  const back = answers
    .filter((a) => a.sentAt >= m.restarted && isOk(a.status))
    .reduce<number | undefined>((min, a) => (min === undefined || a.answeredAt < min ? a.answeredAt : min), undefined);
  const windows: Record<Window, Tally> = { oneDown: tally(), twoDown: tally(), back: tally(), transition: tally() };
  for (const a of answers) {
    const w: Window =
      a.sentAt >= m.failedOver && a.answeredAt <= m.secondKilled
        ? 'oneDown'
        : a.sentAt >= m.secondKilled && a.answeredAt <= m.restarted
          ? 'twoDown'
          : back !== undefined && a.sentAt >= back
            ? 'back'
            : 'transition';
    const t = windows[w];
    if (isOk(a.status)) t.ok++;
    else if (a.status === 503) t.unavailable++;
    else t.other++;
  }
  return { back, windows };
}

/**
 * What the issue asks, in words (empty when all hold): with one node down the gateway acknowledges
 * every upload; with two down (one replica in sync) it acknowledges none and answers each with 503;
 * once back, every upload is acknowledged again; nowhere an answer other than 2xx or 503.
 */
export function answerFailures(windows: Record<Window, Tally>): string[] {
  const f: string[] = [];
  const { oneDown, twoDown, back, transition } = windows;
  if (oneDown.ok === 0) f.push('no upload answered while one node was down');
  if (oneDown.unavailable + oneDown.other > 0) f.push(`${oneDown.unavailable + oneDown.other} uploads refused with one node down`);
  if (twoDown.unavailable === 0) f.push('no upload answered while two nodes were down');
  if (twoDown.ok > 0) f.push(`${twoDown.ok} uploads acknowledged with one replica in sync`);
  if (back.ok === 0) f.push('no upload acknowledged after the restart');
  if (back.unavailable + back.other > 0) f.push(`${back.unavailable + back.other} uploads refused after the cluster was back`);
  const other = oneDown.other + twoDown.other + back.other + transition.other;
  if (other > 0) f.push(`${other} answers neither 2xx nor 503`);
  return f;
}

const isOk = (status: number) => status >= 200 && status < 300;
const tally = (): Tally => ({ ok: 0, unavailable: 0, other: 0 });
