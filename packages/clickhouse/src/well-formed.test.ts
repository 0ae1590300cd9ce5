import { stringifyWellFormed, wellFormedJson } from './well-formed';

describe('wellFormedJson', () => {
  it('writes every lone surrogate as U+FFFD and leaves pairs, literal backslashes and other escapes alone', () => {
    const value = { a: 'x\ud800y', b: '\udfff', c: '😀', d: '\\ud800', e: '\\\ud83d', f: 'tab\there\u0001', [`k\udc00`]: ['\ud800\ud800'] };
    const text = stringifyWellFormed(value);
    expect(JSON.parse(text)).toEqual({
      a: 'x\ufffdy',
      b: '\ufffd',
      c: '😀',
      d: '\\ud800',
      e: '\\\ufffd',
      f: 'tab\there\u0001',
      'k\ufffd': ['\ufffd\ufffd'],
    });
    expect(text).not.toMatch(/(?<!\\)(\\\\)*\\ud[89a-f]/);
  });

  it('returns well-formed text unchanged (the same string)', () => {
    const text = JSON.stringify({ a: 'plain', b: '😀', c: '\\ud800' });
    expect(wellFormedJson(text)).toBe(text);
  });
});
