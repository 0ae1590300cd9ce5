import { ClickHouseError } from '@clickhouse/client';
import { InfraError } from '@evp/core';
import { mayBeRowFault, toAnalyticsError } from './errors';

const chError = (code: string, type: string, message = 'boom') => new ClickHouseError({ code, type, message });

describe('toAnalyticsError', () => {
  it.each([
    ['62', 'SYNTAX_ERROR', false],
    ['60', 'UNKNOWN_TABLE', false],
    ['53', 'TYPE_MISMATCH', false],
    ['27', 'CANNOT_PARSE_INPUT_ASSERTION_FAILED', false],
    ['241', 'MEMORY_LIMIT_EXCEEDED', true],
    ['252', 'TOO_MANY_PARTS', true],
    ['159', 'TIMEOUT_EXCEEDED', true],
    ['202', 'TOO_MANY_SIMULTANEOUS_QUERIES', true],
    ['242', 'TABLE_IS_READ_ONLY', true],
  ])('a server error with code %s (%s) has retriable=%s', (code, type, retriable) => {
    const e = toAnalyticsError(chError(code, type), 'insert into events');
    expect(e).toBeInstanceOf(InfraError);
    expect({ dependency: e.dependency, retriable: e.retriable, message: e.message }).toEqual({
      dependency: 'clickhouse',
      retriable,
      message: `clickhouse: insert into events failed (code ${code}): boom`,
    });
  });

  it.each([
    [Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8123'), { code: 'ECONNREFUSED' }), true],
    [Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }), true],
    [new Error('Timeout error.'), true],
    [new Error('socket hang up'), true],
    [new Error('<html><body><h1>503 Service Unavailable</h1></body></html>'), true],
    [new Error('Cannot parse JSON'), false],
    [new TypeError("Cannot read properties of undefined (reading 'x')"), false],
  ])('a client-side error %p has retriable=%s', (err, retriable) => {
    expect(toAnalyticsError(err, 'query').retriable).toBe(retriable);
  });

  it('keeps an InfraError as it is and the original error as cause', () => {
    const infra = new InfraError('clickhouse', 'x', { retriable: true });
    expect(toAnalyticsError(infra, 'query')).toBe(infra);
    const original = chError('62', 'SYNTAX_ERROR');
    expect(toAnalyticsError(original, 'query').cause).toBe(original);
  });

  it('folds a multi-line server message into one bounded line', () => {
    const e = toAnalyticsError(chError('62', 'SYNTAX_ERROR', `line one\n  line two\n${'x'.repeat(1000)}`), 'query');
    expect(e.message.startsWith('clickhouse: query failed (code 62): line one line two xxx')).toBe(true);
    expect(e.message).not.toContain('\n');
    expect(e.message.length).toBe('clickhouse: query failed (code 62): '.length + 500);
  });
});

describe('mayBeRowFault', () => {
  it.each([
    ['117', 'INCORRECT_DATA', true],
    ['53', 'TYPE_MISMATCH', true],
    ['27', 'CANNOT_PARSE_INPUT_ASSERTION_FAILED', true],
    ['60', 'UNKNOWN_TABLE', false],
    ['16', 'NO_SUCH_COLUMN_IN_TABLE', false],
    ['497', 'ACCESS_DENIED', false],
    ['241', 'MEMORY_LIMIT_EXCEEDED', false],
  ])('a server error with code %s (%s): the rows may be at fault = %s', (code, type, fault) => {
    expect(mayBeRowFault(toAnalyticsError(chError(code, type), 'insert into events'))).toBe(fault);
  });

  it('holds for a non-retriable failure without a server code, not for a retriable one or a non-InfraError', () => {
    expect(mayBeRowFault(new InfraError('clickhouse', 'refused', { retriable: false }))).toBe(true);
    expect(mayBeRowFault(new InfraError('clickhouse', 'unreachable', { retriable: true }))).toBe(false);
    expect(mayBeRowFault(new Error('bug'))).toBe(false);
  });
});
