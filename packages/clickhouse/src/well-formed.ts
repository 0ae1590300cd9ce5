/**
 * JSON text ClickHouse can take. A JS string can hold a lone UTF-16 surrogate (`"\ud800"`: valid
 * JSON, sent by clients, kept by JSON.parse); JSON.stringify writes it as the escape `\ud800`, and
 * ClickHouse refuses that escape in a JSON column (code 117) or stores it as bytes that are not
 * UTF-8 in a String column. A refused insert is refused again on every retry, so such text would
 * hold its partition forever: each lone surrogate becomes U+FFFD (what a UTF-8 encoder writes for
 * it), written as the character itself so JSON kept as text (meta) reads back as it is stored.
 *
 * JSON.stringify (ES2019 well-formed) escapes a surrogate only when it is lone (a pair is written as
 * the character itself), so every `\ud800`–`\udfff` escape it writes is one; an escape preceded by an
 * escaped backslash (`\\ud800`) is literal text and stays.
 */
const LONE_SURROGATE_ESCAPE = /(?<!\\)((?:\\\\)*)\\ud[89a-f][0-9a-f]{2}/g;

export function wellFormedJson(text: string): string {
  // The common case costs one scan and no allocation.
  return text.includes('\\ud') ? text.replace(LONE_SURROGATE_ESCAPE, '$1\ufffd') : text;
}

/** JSON.stringify whose output ClickHouse takes (see wellFormedJson). */
export function stringifyWellFormed(value: unknown): string {
  return wellFormedJson(JSON.stringify(value));
}
