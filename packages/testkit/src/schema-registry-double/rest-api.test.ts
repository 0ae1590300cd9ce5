import request from 'supertest';
import { SCHEMA_REGISTRY_CONTENT_TYPE, createSchemaRegistryDouble } from './app';

const CT = SCHEMA_REGISTRY_CONTENT_TYPE;
const user = {
  type: 'record',
  name: 'User',
  namespace: 'evp.test',
  fields: [{ name: 'id', type: 'string' }],
};
const userV2 = { ...user, fields: [...user.fields, { name: 'age', type: 'int', default: 0 }] };
const userBroken = { ...user, fields: [{ name: 'id', type: 'int' }] };
const body = (schema: object) => ({ schema: JSON.stringify(schema) });

function setup() {
  const app = createSchemaRegistryDouble();
  const register = (subject: string, schema: object) =>
    request(app)
      .post(`/subjects/${subject}/versions`)
      .set('Content-Type', CT)
      .send(JSON.stringify(body(schema)));
  return { app, register };
}

function expectError(res: request.Response, status: number, errorCode: number, message?: RegExp): void {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toBe(CT);
  expect(res.body.error_code).toBe(errorCode);
  expect(typeof res.body.message).toBe('string');
  if (message) expect(res.body.message).toMatch(message);
}

describe('schema registry test double: registration', () => {
  it('returns {id} with the registry media type, the same id for the same schema', async () => {
    const { register } = setup();
    const first = await register('users-value', user);
    expect(first.status).toBe(200);
    expect(first.headers['content-type']).toBe(CT);
    expect(first.body).toEqual({ id: 1 });
    expect((await register('users-value', user)).body).toEqual({ id: 1 });
    expect((await register('other-value', user)).body).toEqual({ id: 1 });
    expect((await register('users-value', userV2)).body).toEqual({ id: 2 });
  });

  it('accepts plain application/json too', async () => {
    const { app } = setup();
    const res = await request(app).post('/subjects/s/versions').send(body(user));
    expect(res.body).toEqual({ id: 1 });
  });

  it('answers 409 / 409 to an incompatible schema', async () => {
    const { register } = setup();
    await register('users-value', user);
    expectError(await register('users-value', userBroken), 409, 409, /incompatible with an earlier schema for subject "users-value"/);
  });

  it.each([
    ['an unparsable schema', { schema: '{"type":' }],
    ['an invalid Avro schema', { schema: '{"type":"record","name":"R","fields":[{"name":"a","type":"integer"}]}' }],
    ['a missing schema', {}],
    ['a non-Avro schema type', { schema: 'syntax = "proto3";', schemaType: 'PROTOBUF' }],
    ['schema references', { schema: JSON.stringify(user), references: [{ name: 'x', subject: 'y', version: 1 }] }],
  ])('answers 422 / 42201 to %s', async (_label, payload) => {
    const { app } = setup();
    expectError(await request(app).post('/subjects/s/versions').send(payload), 422, 42201);
  });

  it('answers 400 to a body that is not JSON', async () => {
    const { app } = setup();
    const res = await request(app).post('/subjects/s/versions').set('Content-Type', CT).send('{nope');
    expectError(res, 400, 400);
  });
});

describe('schema registry test double: reads', () => {
  async function seeded() {
    const s = setup();
    await s.register('users-value', user);
    await s.register('users-value', userV2);
    await s.register('copy-value', user);
    return s;
  }

  it('GET /schemas/ids/{id} returns the schema text', async () => {
    const { app } = await seeded();
    const res = await request(app).get('/schemas/ids/2');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ schema: JSON.stringify(userV2) });
    expectError(await request(app).get('/schemas/ids/99'), 404, 40403, /^Schema 99 not found$/);
    expectError(await request(app).get('/schemas/ids/abc'), 404, 404);
  });

  it('GET /schemas/ids/{id}/versions lists every subject-version using the id', async () => {
    const { app } = await seeded();
    expect((await request(app).get('/schemas/ids/1/versions')).body).toEqual([
      { subject: 'users-value', version: 1 },
      { subject: 'copy-value', version: 1 },
    ]);
    expectError(await request(app).get('/schemas/ids/99/versions'), 404, 40403);
  });

  it('GET /subjects and /subjects/{s}/versions', async () => {
    const { app } = await seeded();
    expect((await request(app).get('/subjects')).body).toEqual(['copy-value', 'users-value']);
    expect((await request(app).get('/subjects/users-value/versions')).body).toEqual([1, 2]);
    expectError(await request(app).get('/subjects/nope/versions'), 404, 40401, /^Subject 'nope' not found\.$/);
  });

  it('GET /subjects/{s}/versions/{v|latest}', async () => {
    const { app } = await seeded();
    expect((await request(app).get('/subjects/users-value/versions/latest')).body).toEqual({
      subject: 'users-value',
      version: 2,
      id: 2,
      schema: JSON.stringify(userV2),
    });
    expect((await request(app).get('/subjects/users-value/versions/1')).body.id).toBe(1);
    expect((await request(app).get('/subjects/users-value/versions/-1')).body.version).toBe(2);
    expect(JSON.parse((await request(app).get('/subjects/users-value/versions/1/schema')).text)).toEqual(user);
    expectError(await request(app).get('/subjects/users-value/versions/3'), 404, 40402, /^Version 3 not found\.$/);
    expectError(await request(app).get('/subjects/users-value/versions/abc'), 422, 42202);
    expectError(await request(app).get('/subjects/users-value/versions/0'), 422, 42202);
    expectError(await request(app).get('/subjects/nope/versions/1'), 404, 40401);
  });

  it('POST /subjects/{s} looks a schema up', async () => {
    const { app } = await seeded();
    expect((await request(app).post('/subjects/users-value').send(body(userV2))).body).toEqual({
      subject: 'users-value',
      version: 2,
      id: 2,
      schema: JSON.stringify(userV2),
    });
    expectError(await request(app).post('/subjects/copy-value').send(body(userV2)), 404, 40403, /^Schema not found$/);
    expectError(await request(app).post('/subjects/nope').send(body(user)), 404, 40401);
    expectError(await request(app).post('/subjects/users-value').send({ schema: '{' }), 422, 42201);
  });

  it('answers 404 / 404 to unknown routes', async () => {
    const { app } = setup();
    expectError(await request(app).get('/nope'), 404, 404);
  });
});

describe('schema registry test double: deletes', () => {
  it('soft-deletes, refuses a second soft delete, then deletes permanently', async () => {
    const { app, register } = setup();
    await register('users-value', user);
    await register('users-value', userV2);
    expectError(await request(app).delete('/subjects/users-value?permanent=true'), 404, 40405);
    expect((await request(app).delete('/subjects/users-value')).body).toEqual([1, 2]);
    expect((await request(app).get('/subjects')).body).toEqual([]);
    expect((await request(app).get('/subjects?deleted=true')).body).toEqual(['users-value']);
    expectError(await request(app).get('/subjects/users-value/versions'), 404, 40401);
    expect((await request(app).get('/subjects/users-value/versions/1?deleted=true')).body.id).toBe(1);
    expectError(await request(app).delete('/subjects/users-value'), 404, 40404);
    expect((await request(app).delete('/subjects/users-value?permanent=true')).body).toEqual([1, 2]);
    expect((await request(app).get('/subjects?deleted=true')).body).toEqual([]);
    expect((await request(app).get('/schemas/ids/1')).status).toBe(200);
    expectError(await request(app).delete('/subjects/users-value'), 404, 40401);
  });
});

describe('schema registry test double: compatibility and config', () => {
  it('POST /compatibility/subjects/{s}/versions/{v} answers is_compatible, with messages when verbose', async () => {
    const { app, register } = setup();
    await register('users-value', user);
    const check = (version: string, schema: object, query = '') =>
      request(app)
        .post(`/compatibility/subjects/users-value/versions/${version}${query}`)
        .set('Content-Type', CT)
        .send(JSON.stringify(body(schema)));
    expect((await check('latest', userV2)).body).toEqual({ is_compatible: true });
    expect((await check('1', userBroken)).body).toEqual({ is_compatible: false });
    const verbose = await check('latest', userBroken, '?verbose=true');
    expect(verbose.body.is_compatible).toBe(false);
    expect(verbose.body.messages).toEqual([expect.stringMatching(/cannot read "string" as "int"/)]);
    expectError(await check('7', userV2), 404, 40402);
    expectError(await check('x', userV2), 422, 42202);
    expectError(await request(app).post('/compatibility/subjects/nope/versions/latest').send(body(user)), 404, 40401);
    expect((await request(app).post('/compatibility/subjects/users-value/versions').send(body(userBroken))).body).toEqual({
      is_compatible: false,
    });
  });

  it('GET/PUT /config: {compatibilityLevel} on GET, {compatibility} on PUT', async () => {
    const { app } = setup();
    expect((await request(app).get('/config')).body).toEqual({ compatibilityLevel: 'BACKWARD' });
    expect((await request(app).put('/config').send({ compatibility: 'full' })).body).toEqual({ compatibility: 'FULL' });
    expect((await request(app).get('/config')).body).toEqual({ compatibilityLevel: 'FULL' });
    expectError(await request(app).put('/config').send({ compatibility: 'SIDEWAYS' }), 422, 42203);
    expectError(await request(app).put('/config').send({}), 422, 42203);
  });

  it('GET/PUT /config/{s}: 40408 until the subject has its own level', async () => {
    const { app, register } = setup();
    expectError(await request(app).get('/config/users-value'), 404, 40408, /does not have subject-level compatibility configured/);
    expect((await request(app).get('/config/users-value?defaultToGlobal=true')).body).toEqual({ compatibilityLevel: 'BACKWARD' });
    expect((await request(app).put('/config/users-value').send({ compatibility: 'NONE' })).body).toEqual({ compatibility: 'NONE' });
    expect((await request(app).get('/config/users-value')).body).toEqual({ compatibilityLevel: 'NONE' });
    await register('users-value', user);
    expect((await register('users-value', userBroken)).status).toBe(200);
    expectError(await request(app).put('/config/users-value').send({ compatibility: 'nope' }), 422, 42203);
  });
});
