/**
 * The named parameters of one compiled query. Every literal of a definition (event names, values,
 * bounds, durations, window times) becomes `{pN:Type}` in the SQL text and its value in `params`,
 * so user input never becomes SQL text. The same literal of the same type is one parameter.
 */
export class Params {
  readonly values: Record<string, unknown> = {};
  private readonly byLiteral = new Map<string, string>();

  /** The placeholder for `value` as ClickHouse type `type` (a fixed type name written by the compiler). */
  add(value: unknown, type: string): string {
    const key = `${type}\u0000${JSON.stringify(value)}`;
    let name = this.byLiteral.get(key);
    if (name === undefined) {
      name = `p${this.byLiteral.size}`;
      this.byLiteral.set(key, name);
      this.values[name] = value;
    }
    return `{${name}:${type}}`;
  }
}

/** The parameters every compiled query takes besides its own (compiled.ts, evaluationParams). */
export const APP = '{app_id:String}';
export const NOW = "{now:DateTime64(3, 'UTC')}";
/** Restricts a table to the evaluated users: all of them (scoped = 0) or those in `users`. */
export const inScope = (column: string): string => `(NOT {scoped:UInt8} OR has({users:Array(String)}, ${column}))`;
