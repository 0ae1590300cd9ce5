import { ClickHouseFailure } from '@evp/core';
import { browseStatement, checkAst, checkQueryTree, withoutFormat } from './guard';

// The guard reads ClickHouse's own EXPLAIN output; these are excerpts of what chdb 26 prints.
const failure = (f: () => unknown) => {
  try {
    f();
  } catch (err) {
    return err instanceof ClickHouseFailure ? [err.code, err.type, err.message] : err;
  }
  return 'passed';
};

describe('analyst query guard', () => {
  it('passes one SELECT and returns its own FORMAT', () => {
    expect(checkAst('SelectWithUnionQuery (children 2)\n ExpressionList (children 1)\n  SelectQuery (children 1)\n Identifier JSON\n')).toBe('JSON');
    expect(checkAst('SelectWithUnionQuery (children 1)\n ExpressionList (children 1)\n')).toBeUndefined();
  });

  it('refuses other statements, INTO OUTFILE, SETTINGS and functions that reach outside the app', () => {
    expect(failure(() => checkAst('InsertQuery   (children 1)\n Identifier events\n'))).toEqual([
      164,
      'READONLY',
      'InsertQuery statement: this interface runs read-only SELECT queries only',
    ]);
    expect(failure(() => checkAst("SelectWithUnionQuery (children 2)\n ExpressionList (children 1)\n Literal \\'/tmp/x\\'\n"))).toEqual([
      164,
      'READONLY',
      'INTO OUTFILE: this interface runs read-only SELECT queries only',
    ]);
    expect(failure(() => checkAst('SelectWithUnionQuery (children 1)\n ExpressionList (children 1)\n  SelectQuery (children 2)\n   Set\n'))).toEqual([
      164,
      'READONLY',
      'SETTINGS: this interface runs read-only SELECT queries only',
    ]);
    expect(
      failure(() => checkAst("SelectWithUnionQuery (children 1)\n ExpressionList (children 1)\n    Function FILE (children 1)\n     Literal \\'/etc/x\\'\n")),
    ).toEqual([497, 'ACCESS_DENIED', 'Not enough privileges: function FILE() is not readable with this key']);
    expect(failure(() => checkAst('SelectWithUnionQuery (children 1)\n ExpressionList (children 1)\n    Function dictGetString (children 1)\n'))).toEqual([
      497,
      'ACCESS_DENIED',
      'Not enough privileges: function dictGetString() is not readable with this key',
    ]);
  });

  it('allows the app-scoped tables, system.one and generators; refuses every other table and table function', () => {
    const scoped = new Set(['analytics.events']);
    expect(
      failure(() =>
        checkQueryTree(
          '    TABLE id: 9, alias: __table3, table_name: analytics.events\n    TABLE id: 3, table_name: system.one\n  TABLE_FUNCTION id: 23, alias: __table1, table_function_name: numbers\n',
          scoped,
        ),
      ),
    ).toBe('passed');
    expect(failure(() => checkQueryTree('  TABLE id: 29, alias: __table8, table_name: system.parts\n', scoped))).toEqual([
      497,
      'ACCESS_DENIED',
      'Not enough privileges: table system.parts is not readable with this key',
    ]);
    expect(failure(() => checkQueryTree('  TABLE id: 2, table_name: analytics.schema_migrations\n', scoped))).toEqual([
      497,
      'ACCESS_DENIED',
      'Not enough privileges: table analytics.schema_migrations is not readable with this key',
    ]);
    expect(failure(() => checkQueryTree('  TABLE_FUNCTION id: 3, table_function_name: view\n', scoped))).toEqual([
      497,
      'ACCESS_DENIED',
      'Not enough privileges: table function view() is not readable with this key',
    ]);
  });

  it('allows system catalogs and VALUES (any case) beside the filtered tables', () => {
    const filtered = new Set(['analytics.events', 'system.tables']);
    const tree =
      '  TABLE id: 3, table_name: system.tables\n  TABLE id: 5, table_name: system.data_type_families\n  TABLE_FUNCTION id: 7, table_function_name: VALUES\n';
    expect(failure(() => checkQueryTree(tree, filtered))).toBe('passed');
    expect(failure(() => checkQueryTree('  TABLE id: 3, table_name: system.columns\n', filtered))).toEqual([
      497,
      'ACCESS_DENIED',
      'Not enough privileges: table system.columns is not readable with this key',
    ]);
  });

  it('recognises the whole browse statements in canonical text only, DESCRIBE on a readable table only', () => {
    const filtered = new Set(['analytics.events']);
    const browse = (sql: string) => failure(() => browseStatement(sql, 'analytics', filtered));
    expect(browseStatement('SHOW DATABASES', 'analytics', filtered)).toEqual({ statement: 'SHOW DATABASES', format: undefined });
    expect(browseStatement("SHOW TABLES FROM analytics NOT ILIKE '%\\'x' LIMIT 3\nFORMAT JSON", 'analytics', filtered)).toEqual({
      statement: "SHOW TABLES FROM analytics NOT ILIKE '%\\'x' LIMIT 3",
      format: 'JSON',
    });
    expect(browseStatement('DESCRIBE TABLE events', 'analytics', filtered)).toEqual({ statement: 'DESCRIBE TABLE events', format: undefined });
    expect(browseStatement('SHOW CREATE TABLE analytics.events', 'analytics', filtered)).toEqual({
      statement: 'SHOW CREATE TABLE analytics.events',
      format: undefined,
    });
    expect(browseStatement('DESCRIBE TABLE system.one', 'analytics', filtered)).toEqual({ statement: 'DESCRIBE TABLE system.one', format: undefined });
    for (const other of [
      'SHOW DICTIONARIES',
      'SHOW CREATE DATABASE analytics',
      "SHOW TABLES\nINTO OUTFILE 'x'",
      'SHOW TABLES\nSETTINGS a = 1',
      'SHOW TABLES\nFORMAT JSON\nSETTINGS a = 1',
      'DESCRIBE TABLE (SELECT 1)',
      'SELECT 1',
    ]) {
      expect([other, browse(other)]).toEqual([other, 'passed']);
      expect(browseStatement(other, 'analytics', filtered)).toBeUndefined();
    }
    expect(browse('DESCRIBE TABLE analytics.schema_migrations')).toEqual([
      497,
      'ACCESS_DENIED',
      'Not enough privileges: table analytics.schema_migrations is not readable with this key',
    ]);
  });

  it('strips the FORMAT line formatQuery prints last, quoted or not', () => {
    expect(withoutFormat('SELECT 1\nFORMAT JSON', 'JSON')).toBe('SELECT 1');
    expect(withoutFormat('SELECT name\nFROM t\nFORMAT `Null`', 'Null')).toBe('SELECT name\nFROM t');
    expect(withoutFormat('SELECT 1', undefined)).toBe('SELECT 1');
    expect(failure(() => withoutFormat('SELECT 1\nFORMAT CSV\nSETTINGS a = 1', 'CSV'))).toEqual([
      164,
      'READONLY',
      'an unusual FORMAT clause: this interface runs read-only SELECT queries only',
    ]);
  });

  it('reads chdb errors into ClickHouse codes, nested once or not', () => {
    const f = ClickHouseFailure.from(
      new Error("Code: 164. DB::Exception: Code: 164. DB::Exception: Cannot modify 'x' setting in readonly mode. (READONLY) (version 26.7.2.1). (READONLY)"),
    );
    expect([f.code, f.type, f.text()]).toEqual([164, 'READONLY', "Code: 164. DB::Exception: Cannot modify 'x' setting in readonly mode. (READONLY)\n"]);
    expect(ClickHouseFailure.from(new Error('boom')).code).toBe(1001);
  });
});
