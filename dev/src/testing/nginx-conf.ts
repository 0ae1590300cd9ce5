import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

/** deploy/edge/nginx.conf, the edge docker-compose puts in front of the services. */
export const NGINX_CONF = resolve(__dirname, '../../../deploy/edge/nginx.conf');
/** Where docker-compose mounts docs/openapi.json in the edge container (the `root` of `location = /openapi.json`). */
export const OPENAPI_ROOT = '/usr/share/nginx/openapi';

export interface NginxLocation {
  match: 'exact' | 'prefix' | 'named';
  path: string;
  /** The upstream a `proxy_pass http://name` sends it to; undefined when nginx answers itself. */
  upstream?: string;
  /** client_max_body_size in bytes, when the block sets one. */
  maxBodyBytes?: number;
  body: string;
}

const UNITS: Record<string, number> = { '': 1, k: 1024, m: 1024 * 1024, g: 1024 * 1024 * 1024 };

/**
 * The `location` blocks of the config, enough of nginx's grammar for this file: a block's body is
 * read up to its closing brace, and braces inside quoted strings (the JSON answers) are skipped.
 */
export function nginxLocations(text = readFileSync(NGINX_CONF, 'utf8')): NginxLocation[] {
  const out: NginxLocation[] = [];
  const head = /^\s*location\s+(=\s+|@)?(\S+)\s*\{/gm;
  for (let m = head.exec(text); m; m = head.exec(text)) {
    let depth = 1;
    let quote: string | undefined;
    let i = head.lastIndex;
    for (; i < text.length && depth > 0; i++) {
      const c = text[i];
      if (quote) {
        if (c === quote) quote = undefined;
      } else if (c === "'" || c === '"') quote = c;
      else if (c === '{') depth++;
      else if (c === '}') depth--;
    }
    const body = text.slice(head.lastIndex, i - 1);
    const size = /client_max_body_size\s+(\d+)([kmg]?)\s*;/i.exec(body);
    out.push({
      match: m[1]?.trim() === '=' ? 'exact' : m[1] === '@' ? 'named' : 'prefix',
      path: m[1] === '@' ? `@${m[2]}` : (m[2] as string),
      upstream: /proxy_pass\s+http:\/\/([A-Za-z0-9_-]+)\s*;/.exec(body)?.[1],
      maxBodyBytes: size ? Number(size[1]) * (UNITS[(size[2] ?? '').toLowerCase()] as number) : undefined,
      body,
    });
  }
  return out;
}

/** `upstream name { server host:port; }` → { name: 'host:port' } (the first server of each). */
export function nginxUpstreams(text = readFileSync(NGINX_CONF, 'utf8')): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of text.matchAll(/upstream\s+([A-Za-z0-9_-]+)\s*\{[^}]*?server\s+([^\s;]+)[^;]*;/g)) out[m[1] as string] = m[2] as string;
  return out;
}

/** Where the edge runs outside docker-compose: the servers of each upstream, its own address and files. */
export interface EdgePlacement {
  /** Upstream name (gateway, action_store, segmenter) → its servers, `host:port` each. */
  upstreams: Record<string, string[]>;
  /** What `listen` takes: `127.0.0.1:18609`. */
  listen: string;
  pidFile: string;
  /** The directory `location = /openapi.json` serves openapi.json from. */
  openapiRoot: string;
}

/**
 * deploy/edge/nginx.conf placed elsewhere (tests, the fault suite's replicas): the one config with
 * each upstream's compose server replaced by the given servers (one `server` line each, keeping the
 * line's parameters), and the listen address, pid file and OpenAPI root moved. Throws when the file
 * no longer has what is replaced, so a change to it cannot leave a test on the compose host names.
 */
export function renderEdgeConf(at: EdgePlacement, text = readFileSync(NGINX_CONF, 'utf8')): string {
  const swap = (from: string | RegExp, to: (...m: string[]) => string) => {
    const next = text.replace(from, to as (substring: string, ...args: unknown[]) => string);
    if (next === text) throw new Error(`deploy/edge/nginx.conf has no ${String(from)}`);
    text = next;
  };
  for (const [name, servers] of Object.entries(at.upstreams)) {
    if (servers.length === 0) throw new Error(`upstream ${name}: no servers`);
    swap(
      new RegExp(`(upstream ${name} \\{\\n)( *)server [^\\s;]+([^;]*);\\n`),
      (_m, head, indent, params) => `${head}${servers.map((s) => `${indent}server ${s}${params};\n`).join('')}`,
    );
  }
  swap(/listen 8080;/, () => `listen ${at.listen};`);
  swap(/pid \/tmp\/nginx\.pid;/, () => `pid ${at.pidFile};`);
  swap(`root ${OPENAPI_ROOT};`, () => `root ${at.openapiRoot};`);
  return text;
}
