import { InfraError } from '@evp/core';
import { CLICKHOUSE_DEPENDENCY } from './errors';

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
const QUALIFIED = /^([A-Za-z_][A-Za-z0-9_]*\.)?[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Database and table names end up inside SQL text (DDL and the INSERT head cannot take bound
 * parameters), so only plain identifiers are accepted; anything else is a programming or
 * configuration mistake and never retriable.
 */
export function identifier(name: string, what = 'identifier'): string {
  if (!IDENTIFIER.test(name)) throw invalid(name, what);
  return name;
}

/** `table` or `database.table`. */
export function tableName(name: string): string {
  if (!QUALIFIED.test(name)) throw invalid(name, 'table name');
  return name;
}

const invalid = (name: string, what: string) =>
  new InfraError(CLICKHOUSE_DEPENDENCY, `invalid ${what} "${name}": use letters, digits and _`, { retriable: false });
