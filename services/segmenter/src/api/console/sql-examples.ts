/** One example query of docs/analytics.md, as the SQL page offers it. */
export interface SqlExample {
  /** The block's `-- name:` line. */
  name: string;
  /** The paragraph that introduces it in the docs. */
  description: string;
  /** The query as printed, its name line included. */
  sql: string;
}

const BLOCK = /```sql\n(-- name: ([a-z0-9_]+)\n[\s\S]*?)```/g;

/**
 * The named example queries of a markdown text (docs/analytics.md): every ```sql block whose first
 * line is `-- name: …`, with the paragraph before it as its description. Read when the segmenter
 * starts, so the page offers what the docs print (and the docs' test runs) and nothing else.
 */
export function parseSqlExamples(markdown: string): SqlExample[] {
  const out: SqlExample[] = [];
  for (const m of markdown.matchAll(BLOCK)) {
    const before = markdown.slice(0, m.index).replace(/\s+$/, '');
    const paragraph = before.slice(before.lastIndexOf('\n\n') + 2);
    out.push({
      name: m[2] as string,
      description: paragraph.replace(/\s+/g, ' ').replace(/:$/, '').trim(),
      sql: (m[1] as string).replace(/\n$/, ''),
    });
  }
  return out;
}
