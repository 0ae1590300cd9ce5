import { stringifyWellFormed } from './well-formed';

/**
 * A row already written as the JSON text it is sent as: a value array (`[v1, v2, …]`, with
 * `columns`) or an object, well-formed (see wellFormedJson). A caller that can serialize a row
 * while it waits for the previous insert (the sink, decoding the next slice) hands these over, so
 * the insert itself only joins text; both adapters send them through the same client code
 * (`stringifyRow` is their client's `json.stringify`). Whoever builds one answers for its shape:
 * the adapter cannot check the column count of text without parsing it.
 */
export class JsonRow {
  constructor(readonly json: string) {}
}

/** The clients' `json.stringify`: a JsonRow as its text, anything else as well-formed JSON. */
export function stringifyRow(row: unknown): string {
  return row instanceof JsonRow ? row.json : stringifyWellFormed(row);
}
