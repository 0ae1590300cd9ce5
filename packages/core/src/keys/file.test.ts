import { parseKeysFile } from './file';
import { KeyRing } from './ring';

const sdk = { id: 'sdk', app_id: 'app-1', role: 'sdk', key: 'sdk_key_0123456789' };
const jwk = { kty: 'EC', crv: 'P-256', x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU', y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0' };
const parse = (file: object) => () => parseKeysFile(JSON.stringify(file), 'keys.json');

describe('the keys file: user token keys and policies', () => {
  it('reads ES256 (public jwk) and HS256 (secret) keys and the per-app policy', () => {
    const file = parseKeysFile(
      JSON.stringify({
        keys: [
          sdk,
          { id: 'es', app_id: 'app-1', role: 'user_token', alg: 'ES256', jwk },
          { id: 'hs', app_id: 'app-1', role: 'user_token', alg: 'HS256', key: 's'.repeat(32) },
        ],
        apps: { 'app-1': { user_tokens: 'report' } },
      }),
      'keys.json',
    );
    expect(file.keys.map((k) => k.role)).toEqual(['sdk', 'user_token', 'user_token']);
    expect(file.apps).toEqual({ 'app-1': { user_tokens: 'report' } });
  });

  it.each([
    ['a private key in the file', { id: 'es', app_id: 'app-1', role: 'user_token', alg: 'ES256', jwk: { ...jwk, d: 'secret' } }, 'jwk must be the public key'],
    ['an ES256 key without jwk', { id: 'es', app_id: 'app-1', role: 'user_token', alg: 'ES256', key: 's'.repeat(32) }, 'gives the public key as jwk'],
    ['an HS256 secret under 32 bytes', { id: 'hs', app_id: 'app-1', role: 'user_token', alg: 'HS256', key: 's'.repeat(31) }, 'at least 32 bytes'],
    ['another algorithm', { id: 'rs', app_id: 'app-1', role: 'user_token', alg: 'RS256', key: 's'.repeat(32) }, 'alg'],
  ])('refuses %s', (_what, entry, message) => {
    expect(parse({ keys: [sdk, entry] })).toThrow(message);
  });

  it('refuses an unknown policy, and a kid that is also a bearer key’s id of the app', () => {
    expect(parse({ keys: [sdk], apps: { 'app-1': { user_tokens: 'on' } } })).toThrow('apps.app-1.user_tokens');
    expect(
      () =>
        new KeyRing(parseKeysFile(JSON.stringify({ keys: [sdk, { id: 'sdk', app_id: 'app-1', role: 'user_token', alg: 'HS256', key: 's'.repeat(32) }] }), 'k')),
    ).toThrow('keys file: app app-1 has two keys with id sdk');
  });
});
