import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { allTopics } from '@evp/core';

const root = join(__dirname, '../..');

describe('repository invariants', () => {
  it('deploy/local/topics.txt lists exactly the topics of packages/core/src/topics.ts, with their partitions and retention', () => {
    const listed = readFileSync(join(root, 'deploy/local/topics.txt'), 'utf8')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#'))
      .map((l) => {
        const [name, partitions, retention] = l.split(/\s+/);
        return { name, partitions: Number(partitions), retention: retention === 'compact' ? retention : Number(retention) };
      });
    expect(listed.sort((a, b) => a.name!.localeCompare(b.name!))).toEqual(
      allTopics()
        .map(({ name, partitions, retentionMs, compacted }) => ({ name, partitions, retention: compacted ? 'compact' : retentionMs }))
        .sort((a, b) => a.name.localeCompare(b.name)),
    );
  });

  it.each(['gateway', 'validator', 'segmenter', 'action-store'])(
    'the %s bundle (its image) carries no embedded adapter and no chdb',
    async (service) => {
      // The same entries as deploy/docker/Dockerfile: main.ts and any worker-thread entry.
      const src = join(root, `services/${service}/src`);
      const workers = readdirSync(src).filter((f) => f.endsWith('.worker.ts'));
      expect(workers).toEqual(service === 'validator' ? ['encode.worker.ts'] : []);
      const result = await build({
        entryPoints: [join(src, 'main.ts'), ...workers.map((f) => join(src, f))],
        outdir: '/bundle-check',
        bundle: true,
        platform: 'node',
        target: 'node20',
        write: false,
        metafile: true,
        logLevel: 'silent',
        // As the Dockerfile: the one native module stays out of the bundle and is installed in the image.
        external: ['lz4-napi'],
      });
      const inputs = Object.keys(result.metafile.inputs);
      expect(inputs.filter((p) => /chdb|packages\/embedded|packages\/testkit/.test(p))).toEqual([]);
      for (const entry of ['main.ts', ...workers]) expect(inputs.some((p) => p.includes(`services/${service}/src/${entry}`))).toBe(true);
      // Only the segmenter needs it (and its image installs it: the Dockerfile is checked below).
      const external = Object.values(result.metafile.outputs).flatMap((o) => o.imports.filter((i) => i.external).map((i) => i.path));
      expect([service, external.includes('lz4-napi')]).toEqual([service, service === 'segmenter']);
    },
    60_000,
  );

  it("the Dockerfile keeps lz4-napi out of the bundle and installs it, at the lock's version, in the segmenter's image", () => {
    const dockerfile = readFileSync(join(root, 'deploy/docker/Dockerfile'), 'utf8');
    const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version: string }> };
    expect(dockerfile).toContain('--external:lz4-napi');
    expect(dockerfile).toContain(
      `if [ "\${SERVICE}" = segmenter ]; then npm install --no-save --no-audit --no-fund lz4-napi@${lock.packages['node_modules/lz4-napi']?.version}; fi`,
    );
  });
});
