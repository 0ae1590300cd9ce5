import { sessionFacts } from './session-facts';

const facts = (sId: string, appVersion = '2.3.1 (45)') => sessionFacts({ sId, userId: 'u', sdk: 'ios/1.0.1', appVersion, path: '$.internal' });
const rules = (f: ReturnType<typeof facts>) => f.warnings.map((w) => [w.path, w.rule]);

describe('sessionFacts: what clients really compose', () => {
  it('an s_id that ends before it starts (Kenkai after a resume) has an unknown end', () => {
    const f = facts('u_1741950303789_1741948812456');
    expect([f.sessionStart, f.sessionEnd]).toEqual([1741950303789, null]);
    expect(rules(f)).toEqual([['$.internal.s_id', 'session_end_before_start']]);
  });

  it('keeps an ordinary session and an immediate one (end 0) without warnings', () => {
    expect([facts('u_1_2').sessionEnd, facts('u_1_0').sessionEnd, rules(facts('u_1_2'))]).toEqual([2, null, []]);
  });

  it('reads a two-part app version as sent, and 0.0 as unknown', () => {
    const two = facts('u_1_2', '2.3 (45)');
    expect([two.appVersion, two.appVersionCode, rules(two)]).toEqual(['2.3', 45, [['$.internal.app_version', 'app_version_two_part']]]);
    const none = facts('u_1_2', '0.0');
    expect([none.appVersion, none.appVersionCode, rules(none)]).toEqual(['', null, [['$.internal.app_version', 'app_version_unknown']]]);
    expect(rules(facts('u_1_2', 'beta'))).toEqual([['$.internal.app_version', 'app_version_shape']]);
  });
});
