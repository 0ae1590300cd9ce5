/// <reference lib="dom" />
import type { MemberPage, MembershipHour, SegmentAnswer, SegmentPreview, DataAnswer } from '@evp/segmenter';
import { HOUR_MS, api, buckets, byId, chart, clear, every, messageOf, refusalOf, status, text, total } from '../../shell';
import { matchWords, problemsOf } from './problems';

/**
 * A segment's page: its definition, entries and exits per hour, its members a page at a time, and
 * an editor that previews the count as one types (problems listed at their paths) and saves.
 */
export function segmentPage(id: string): void {
  const base = `/v1/segments/${encodeURIComponent(id)}`;
  const editor = byId<HTMLTextAreaElement>('definition-editor');
  let segment: SegmentAnswer | undefined;
  // The cursor of each page seen so far (page 0 has none), so Previous needs no cursor of its own.
  const cursors: (string | undefined)[] = [undefined];
  let pageAt = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;

  async function members(): Promise<void> {
    const c = cursors[pageAt];
    const r = await api<MemberPage>(`${base}/members?limit=20${c ? `&cursor=${encodeURIComponent(c)}` : ''}`);
    const ol = clear(byId('members'));
    for (const m of r.data) {
      const li = text('li', `${m.user_id} · since ${m.entered_at}`);
      li.dataset.userId = m.user_id;
      ol.appendChild(li);
    }
    cursors[pageAt + 1] = r.cursor;
    byId<HTMLButtonElement>('members-next').disabled = !r.cursor;
    byId<HTMLButtonElement>('members-prev').disabled = pageAt === 0;
    byId('members-page').textContent = `page ${pageAt + 1}`;
  }
  byId('members-next').onclick = () => {
    pageAt += 1;
    void members();
  };
  byId('members-prev').onclick = () => {
    pageAt = Math.max(0, pageAt - 1);
    void members();
  };

  async function history(): Promise<void> {
    const r = await api<DataAnswer<MembershipHour>>(`${base}/history?hours=48`);
    const b = buckets(r.data, 'hour', HOUR_MS, 48, ['entered', 'exited'], Date.now());
    const canvas = byId<HTMLCanvasElement>('history-chart');
    canvas.dataset.entered = String(total(b.series[0]!));
    canvas.dataset.exited = String(total(b.series[1]!));
    canvas.setAttribute('aria-label', `${canvas.dataset.entered} entries and ${canvas.dataset.exited} exits in the last 48 hours`);
    chart(canvas, {
      type: 'bar',
      data: {
        labels: b.labels,
        datasets: [
          { label: 'entered', data: b.series[0]!, backgroundColor: '#1a7f37' },
          { label: 'exited', data: b.series[1]!.map((x) => -(x ?? 0)), backgroundColor: '#cf222e' },
        ],
      },
      options: {
        plugins: { legend: { position: 'bottom' } },
        scales: { x: { stacked: true }, y: { stacked: true, title: { display: true, text: 'users per hour' } } },
      },
    });
  }

  async function preview(): Promise<void> {
    const out = byId('preview-count');
    const problems = clear(byId('preview-problems'));
    let definition: unknown;
    try {
      definition = JSON.parse(editor.value);
    } catch (err) {
      out.textContent = `Not JSON: ${messageOf(err)}`;
      return;
    }
    out.textContent = 'Counting…';
    try {
      const r = await api<SegmentPreview>('/v1/segments/preview', { method: 'POST', body: { definition } });
      out.textContent = matchWords(r.count);
      out.dataset.count = String(r.count);
    } catch (err) {
      delete out.dataset.count;
      out.textContent = `Not valid: ${messageOf(err)}`;
      for (const p of problemsOf(refusalOf(err))) {
        const li = text('li', `${p.path}: ${p.message}`);
        li.dataset.path = p.path;
        problems.appendChild(li);
      }
    }
  }
  editor.oninput = () => {
    clearTimeout(timer);
    timer = setTimeout(() => void preview(), 400);
  };

  function show(s: SegmentAnswer, editorToo: boolean): void {
    segment = s;
    byId('segment-name').textContent = s.name;
    byId('segment-meta').textContent = `id ${s.id} · version ${s.version} · updated ${s.updated_at}`;
    byId('segment-definition').textContent = JSON.stringify(s.definition, null, 2);
    if (editorToo) editor.value = JSON.stringify(s.definition, null, 2);
  }
  byId('definition-save').onclick = () => {
    let definition: unknown;
    try {
      definition = JSON.parse(editor.value);
    } catch (err) {
      status(`Not saved: not JSON: ${messageOf(err)}`, true);
      return;
    }
    api<SegmentAnswer>(base, { method: 'PUT', body: { name: segment?.name, definition } }).then(
      (s) => {
        show(s, true);
        status(`Saved version ${s.version}`);
      },
      (err: unknown) => status(`Not saved: ${messageOf(err)}`, true),
    );
  };

  api<SegmentAnswer>(base).then(
    (s) => show(s, true),
    () => undefined, // the poll below says why
  );
  every(5000, async () => {
    show(await api<SegmentAnswer>(base), false);
    await Promise.all([history(), members()]);
  });
}
