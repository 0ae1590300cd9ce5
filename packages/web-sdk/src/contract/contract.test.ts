import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { normalizeCatalog, normalizeUpload } from '@evp/schemas';
import { CORPUS_COMMAND, CORPUS_PATH, webCorpus, webEventDefs } from './corpus';

/**
 * The contract between the library and the platform: every upload the library builds (each spec
 * event, identify, catalog) is accepted by the platform's normaliser with zero warnings, and the web
 * corpus file (which the validator's and the HTTP corpus tests run) is exactly what the library
 * builds today.
 */
const ROOT = join(__dirname, '..', '..', '..', '..');
const ctx = { appId: 'app-1', requestId: 'req-web', receivedAt: Date.UTC(2025, 2, 14, 10, 0, 0), keyId: 'k-sdk' };

describe('the web library against the data contract', () => {
  let corpus: Awaited<ReturnType<typeof webCorpus>>;
  beforeAll(async () => {
    corpus = await webCorpus();
  });

  it(`${CORPUS_PATH} is what the library builds (else run: ${CORPUS_COMMAND})`, () => {
    expect(JSON.parse(readFileSync(join(ROOT, CORPUS_PATH), 'utf8'))).toEqual(JSON.parse(JSON.stringify(corpus)));
  });

  it('covers every event the web types have, and the web types have every spec event the contract defines', () => {
    const generated = readFileSync(join(__dirname, '..', 'generated', 'events.ts'), 'utf8');
    const typed = [...(/export interface EventPropsByName \{([^}]*)\}/.exec(generated)?.[1] ?? '').matchAll(/^\s+(\w+):/gm)].map((m) => m[1]);
    expect(typed).toEqual(webEventDefs().map((d) => d.event));
    const sent = new Set(corpus.payloads.flatMap((p) => p.expect.verdicts.map((v) => v.name)));
    for (const name of typed) expect(sent).toContain(name);
  });

  it('every log upload is accepted by the normaliser with zero warnings (app-defined events included)', () => {
    const logs = corpus.payloads.filter((p) => p.request.path === '/v1/ingest/log');
    expect(logs.length).toBeGreaterThan(40);
    for (const p of logs) {
      const r = normalizeUpload(p.request.body, ctx);
      expect({ id: p.id, rejected: r.rejected.flatMap((x) => x.reasons) }).toEqual({ id: p.id, rejected: [] });
      for (const a of r.accepted) {
        expect({ id: p.id, warnings: a.warnings.map((w) => w.rule) }).toEqual({ id: p.id, warnings: [] });
      }
    }
  });

  it('every catalog upload is accepted with zero warnings', () => {
    const catalogs = corpus.payloads.filter((p) => p.request.path.startsWith('/v1/ingest/catalog/'));
    expect(catalogs.length).toBeGreaterThanOrEqual(15);
    for (const p of catalogs) {
      const r = normalizeCatalog(p.request.path.split('/').pop()!, p.request.body, ctx);
      expect({ id: p.id, rejected: r.rejected.length, warnings: r.accepted.flatMap((a) => a.warnings.map((w) => w.rule)) }).toEqual({
        id: p.id,
        rejected: 0,
        warnings: [],
      });
    }
  });
});
