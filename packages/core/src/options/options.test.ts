import { z } from 'zod';
import { ConfigError, envFragments, parseConfig } from '../config';
import { defaultsOf, envOption, envShapeOf, fixedOption, fromEnv, optionsTable, withDefaults } from './options';

const OPTIONS = {
  groupId: fixedOption('part', 'Consumer group.'),
  batchRows: envOption('PART_BATCH_ROWS', envFragments.positiveInt, 100, 'Rows per batch | at most.'),
  fromStart: envOption('PART_FROM_START', envFragments.bool, false, 'Where a new group starts.'),
  threads: envOption(
    'PART_THREADS',
    z.union([z.literal('auto'), z.coerce.number()]).transform((v) => (v === 'auto' ? 8 : v)),
    0,
    'Threads.',
    'auto',
  ),
};

const schema = z.object({ OTHER: z.string(), ...envShapeOf(OPTIONS) });

describe('options', () => {
  it('gives every default, and a part’s given options over them', () => {
    expect(defaultsOf(OPTIONS)).toEqual({ groupId: 'part', batchRows: 100, fromStart: false, threads: 0 });
    expect(withDefaults(OPTIONS, { batchRows: 5 })).toEqual({ groupId: 'part', batchRows: 5, fromStart: false, threads: 0 });
    expect(withDefaults(OPTIONS, undefined)).toEqual(defaultsOf(OPTIONS));
  });

  it('reads each variable in the config schema: unset is the default (or what envDefault reads as), set is parsed', () => {
    const unset = parseConfig(schema, { OTHER: 'x' });
    expect(unset).toEqual({ OTHER: 'x', PART_BATCH_ROWS: 100, PART_FROM_START: false, PART_THREADS: 8 });
    expect(fromEnv(OPTIONS, unset)).toEqual({ batchRows: 100, fromStart: false, threads: 8 });
    const set = parseConfig(schema, { OTHER: 'x', PART_BATCH_ROWS: '7', PART_FROM_START: 'true', PART_THREADS: '2' });
    expect(fromEnv(OPTIONS, set)).toEqual({ batchRows: 7, fromStart: true, threads: 2 });
  });

  it('refuses a bad value with every other problem, by variable', () => {
    let err: unknown;
    try {
      parseConfig(schema, { PART_BATCH_ROWS: '0', PART_FROM_START: 'yes' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).problems.map((p) => p.split(':')[0])).toEqual(['OTHER', 'PART_BATCH_ROWS', 'PART_FROM_START']);
  });

  it('documents each option once: variable (or field set in code), default, meaning', () => {
    expect(optionsTable(OPTIONS)).toBe(
      [
        '| Option | Default | Meaning |',
        '| --- | --- | --- |',
        '| `groupId` (code only) | `part` | Consumer group. |',
        '| `PART_BATCH_ROWS` | 100 | Rows per batch \\| at most. |',
        '| `PART_FROM_START` | false | Where a new group starts. |',
        '| `PART_THREADS` | `auto` (in code: 0) | Threads. |',
      ].join('\n'),
    );
  });
});
