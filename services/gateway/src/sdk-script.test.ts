import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { createInProcessBus } from '@evp/embedded';
import { harness } from './test-fixtures';
import { scriptFilesFromDir, type ScriptFiles } from './sdk-script';

// A fake build: the route is written against the loader, whatever builds the files.
const CORE = 'window.evp={init(){}};';
const MESSAGES = 'evp._renderer={};';
const ACTIONS = 'evp._actions=function(){};';
const ERRORS = 'evp._errors=function(){};';
const CONTEXT = 'evp._context=function(){};';
const VITALS = 'evp._vitals=function(){};';
const SPLIT = 'evp._split=function(){};';
/** The fake build's files by name. */
const FILES = {
  'web.js': CORE,
  'web-messages.js': MESSAGES,
  'web-actions.js': ACTIONS,
  'web-errors.js': ERRORS,
  'web-context.js': CONTEXT,
  'web-vitals.js': VITALS,
  'web-split.js': SPLIT,
};
const etagOf = (text: string) => `"${createHash('sha256').update(text).digest('base64url').slice(0, 27)}"`;

const setup = (webSdk?: ScriptFiles) => harness(createInProcessBus(), webSdk ? { deps: { webSdk } } : {});

describe('GET /sdk/{file} (the web library’s script build)', () => {
  it('serves each file as JavaScript with its content hash as ETag, a 5-minute cache, and CORS for any site; no key needed', async () => {
    let loads = 0;
    const s = await setup(async () => (loads++, FILES));
    for (const [file, text] of Object.entries(FILES)) {
      const res = await request(s.app).get(`/sdk/${file}`).set('Origin', 'https://any-site.example');
      expect([res.status, res.text]).toEqual([200, text]);
      expect({
        type: res.headers['content-type'],
        etag: res.headers.etag,
        cache: res.headers['cache-control'],
        acao: res.headers['access-control-allow-origin'],
        corp: res.headers['cross-origin-resource-policy'],
        nosniff: res.headers['x-content-type-options'],
        length: res.headers['content-length'],
      }).toEqual({
        type: 'text/javascript; charset=utf-8',
        etag: etagOf(text),
        cache: 'public, max-age=300, stale-while-revalidate=86400',
        acao: '*',
        corp: 'cross-origin',
        nosniff: 'nosniff',
        length: String(Buffer.byteLength(text)),
      });
    }
    // Built (or read) once, on the first request.
    expect(loads).toBe(1);
    await s.close();
  });

  it('answers 304 without a body when If-None-Match names the current ETag, 200 for an old one', async () => {
    const s = await setup(async () => FILES);
    const same = await request(s.app)
      .get('/sdk/web.js')
      .set('If-None-Match', `"old", ${etagOf(CORE)}`);
    expect([same.status, same.text, same.headers.etag, same.headers['cache-control']]).toEqual([
      304,
      '',
      etagOf(CORE),
      'public, max-age=300, stale-while-revalidate=86400',
    ]);
    const old = await request(s.app).get('/sdk/web.js').set('If-None-Match', '"old"');
    expect([old.status, old.text]).toEqual([200, CORE]);
    await s.close();
  });

  it('answers 404 for any other file and 503 not_enabled while there is no build (retrying the load next time)', async () => {
    let fail = true;
    const s = await setup(async () => {
      if (fail) throw new Error('ENOENT: /app/sdk/web.js');
      return FILES;
    });
    const other = await request(s.app).get('/sdk/evil.js');
    expect([other.status, other.body.error.code, other.body.error.path]).toEqual([404, 'not_found', 'params.file']);
    const missing = await request(s.app).get('/sdk/web.js');
    expect([missing.status, missing.body.error.code]).toEqual([503, 'not_enabled']);
    expect(s.logs.filter((l) => l.msg === 'the web library script build could not be loaded')).toHaveLength(1);
    fail = false;
    expect((await request(s.app).get('/sdk/web.js')).status).toBe(200);
    await s.close();
  });

  it('without a build given, answers 503 not_enabled', async () => {
    const s = await setup();
    const res = await request(s.app).get('/sdk/web.js');
    expect([res.status, res.body.error.code]).toEqual([503, 'not_enabled']);
    await s.close();
  });

  it('reads a directory the image build wrote (services: WEB_SDK_DIR)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sdk-'));
    for (const [name, text] of Object.entries(FILES)) writeFileSync(join(dir, name), text);
    expect(await scriptFilesFromDir(dir)()).toEqual(FILES);
    await expect(scriptFilesFromDir(join(dir, 'none'))()).rejects.toThrow(/ENOENT/);
  });
});
