import { InfraError } from '@evp/core';
import { toInfraError } from './confluent-errors';

const CLIENT = 'Confluent_Schema_Registry';
/** The shape of the client's ResponseError: its message is "<clientId> - <registry message>". */
const responseError = (status: number, message: string) => Object.assign(new Error(`${CLIENT} - ${message}`), { name: 'ResponseError', status });

describe('toInfraError', () => {
  it.each([
    ['connection refused (reported as a fake 400)', responseError(400, 'Error, status 400: connect ECONNREFUSED 127.0.0.1:1'), true],
    ['socket hang up', responseError(400, 'Error, status 400: socket hang up'), true],
    ['a client timeout', responseError(400, 'Error, status 400: Timeout (1000ms)'), true],
    ['a 500', responseError(500, 'Error in the backend data store'), true],
    ['a 503', responseError(503, 'Error, status 503: '), true],
    ['a 408', responseError(408, 'Request timeout'), true],
    ['a 429', responseError(429, 'Too many requests'), true],
    ['an incompatible schema (409)', responseError(409, 'Schema being registered is incompatible with an earlier schema'), false],
    ['an invalid schema (422)', responseError(422, 'Invalid schema'), false],
    ['an unknown schema id (404)', responseError(404, 'Schema 7 not found'), false],
    ['bad credentials (401)', responseError(401, 'Unauthorized'), false],
    ['a genuine 400 from the registry', responseError(400, 'Unrecognized field "foo"'), false],
    ['a low-level socket error', Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }), true],
    ['a local validation error', Object.assign(new Error('invalid "int": "x"'), { name: 'ConfluentSchemaRegistryValidationError', paths: [['age']] }), false],
  ])('%s → retriable: %s', (_label, err, retriable) => {
    const mapped = toInfraError(err, 'do something', CLIENT);
    expect(mapped).toBeInstanceOf(InfraError);
    expect(mapped.retriable).toBe(retriable);
    expect(mapped.dependency).toBe('schema-registry');
    expect(mapped.cause).toBe(err);
  });

  it('keeps the registry message and drops the client-id prefix', () => {
    const mapped = toInfraError(responseError(409, 'Schema being registered is incompatible'), 'register x', CLIENT);
    expect(mapped.message).toBe('schema-registry: register x failed: registry answered 409: Schema being registered is incompatible');
  });

  it('says "unreachable" for transport failures instead of echoing the fake status', () => {
    const mapped = toInfraError(responseError(400, 'Error, status 400: connect ECONNREFUSED 127.0.0.1:1'), 'register x', CLIENT);
    expect(mapped.message).toBe('schema-registry: register x failed: registry unreachable (connect ECONNREFUSED 127.0.0.1:1)');
  });

  it('names the offending paths of a value that does not match the schema', () => {
    const err = Object.assign(new Error('invalid "int": "x"'), { paths: [['age'], ['address', 'zip']] });
    expect(toInfraError(err, 'encode with schema 3', CLIENT).message).toBe(
      'schema-registry: encode with schema 3 failed: invalid "int": "x" at $.age, $.address.zip',
    );
  });

  it('passes an InfraError through untouched', () => {
    const original = new InfraError('schema-registry', 'already mapped', { retriable: true });
    expect(toInfraError(original, 'x', CLIENT)).toBe(original);
  });
});
