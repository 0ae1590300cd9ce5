import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { allTopics } from '@evp/core';

const root = join(__dirname, '../..');

describe('repository invariants', () => {
  it('deploy/local/topics.txt lists exactly the topics of packages/core/src/topics.ts', () => {
    const listed = readFileSync(join(root, 'deploy/local/topics.txt'), 'utf8')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#'))
      .map((l) => {
        const [name, partitions] = l.split(/\s+/);
        return { name, partitions: Number(partitions) };
      });
    expect(listed.sort((a, b) => a.name!.localeCompare(b.name!))).toEqual(
      allTopics().sort((a, b) => a.name.localeCompare(b.name)),
    );
  });

  it.each(['gateway', 'validator', 'segmenter', 'action-store'])(
    'the %s bundle (its image) carries no embedded adapter and no chdb',
    async (service) => {
      const result = await build({
        entryPoints: [join(root, `services/${service}/src/main.ts`)],
        bundle: true,
        platform: 'node',
        target: 'node20',
        write: false,
        metafile: true,
        logLevel: 'silent',
      });
      const inputs = Object.keys(result.metafile.inputs);
      expect(inputs.filter((p) => /chdb|packages\/embedded|packages\/testkit/.test(p))).toEqual([]);
      expect(inputs.some((p) => p.includes(`services/${service}/src/main.ts`))).toBe(true);
    },
    60_000,
  );
});
