import { matchWords, problemsOf } from './problems';

describe('a refused definition’s problems', () => {
  it('lists details.issues at their paths, else the error itself ($ without a path)', () => {
    const issues = [
      { path: '$.all[0].event', message: 'unknown event', rule: 'x' },
      { path: '', message: 'empty path' },
    ];
    expect(problemsOf({ error: { code: 'invalid_definition', message: 'm', details: { issues } } })).toEqual([
      { path: '$.all[0].event', message: 'unknown event' },
      { path: '$', message: 'empty path' },
    ]);
    expect(problemsOf({ error: { code: 'invalid_json', message: 'The body is not valid JSON.' } })).toEqual([
      { path: '$', message: 'The body is not valid JSON.' },
    ]);
    expect(problemsOf({})).toEqual([]);
  });

  it('says the count in words', () => {
    expect([matchWords(0), matchWords(1), matchWords(2)]).toEqual(['0 users match now', '1 user matches now', '2 users match now']);
  });
});
