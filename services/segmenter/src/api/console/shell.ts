/**
 * The one page shell of the console and the inspector (docs/console.md): head, nav, the key prompt.
 * Every page is served with CONSOLE_CSP: it loads nothing but this origin's files and calls nothing
 * but this origin, and what users wrote (names, definitions, SQL results) is put in as text by the
 * scripts, never as markup.
 */

export const CONSOLE_CSP = "default-src 'self'; frame-ancestors 'none'";

interface NavEntry {
  id: string;
  label: string;
  href: string;
}

/**
 * The nav, in order. `keys` is the Keys page (key rotation and last use): served by the keys work,
 * built with consolePage() below; the console links to it and leaves its path free.
 */
export const CONSOLE_NAV: readonly NavEntry[] = [
  { id: 'campaigns', label: 'Campaigns', href: '/console/campaigns' },
  { id: 'segments', label: 'Segments', href: '/console/segments' },
  { id: 'sql', label: 'SQL', href: '/console/sql' },
  { id: 'health', label: 'Health', href: '/console/health' },
  { id: 'inspector', label: 'Inspector', href: '/inspector' },
  { id: 'keys', label: 'Keys', href: '/console/keys' },
  { id: 'privacy', label: 'Privacy', href: '/console/privacy' },
  { id: 'audit', label: 'Access log', href: '/console/audit' },
];

export interface ShellOptions {
  /** The nav entry shown as current. */
  section: string;
  title: string;
  /** The page's own markup (static: never anything a user wrote). */
  body: string;
  /** Scripts after the body, in order (this origin's paths). */
  scripts: readonly string[];
  /** Stylesheets, in order (this origin's paths): the shell's, then the page's own. */
  stylesheets: readonly string[];
  /** Fields inside the key prompt after the key (the inspector's filters). */
  promptFields?: string;
  /** The prompt's button label. Default "Connect". */
  promptButton?: string;
}

/** A whole page: the shell around `body`. */
export function consolePage(o: ShellOptions): string {
  const nav = CONSOLE_NAV.map((n) => `<a href="${n.href}" data-nav="${n.id}"${n.id === o.section ? ' aria-current="page"' : ''}>${n.label}</a>`).join('\n    ');
  const styles = o.stylesheets.map((s) => `<link rel="stylesheet" href="${s}">`).join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${o.title}</title>
${styles}
</head>
<body data-section="${o.section}">
<header>
  <nav aria-label="Console">
    <strong>evp console</strong>
    ${nav}
  </nav>
  <form id="connect" autocomplete="off">
    <label>API key <input id="key" type="password" required placeholder="the app's API key" data-testid="key"></label>
    ${o.promptFields ?? ''}
    <button type="submit" data-testid="connect">${o.promptButton ?? 'Connect'}</button>
  </form>
  <p id="status" role="status" data-testid="status">Enter the app's API key.</p>
</header>
<main id="main">
${o.body}
</main>
${o.scripts.map((s) => `<script src="${s}"></script>`).join('\n')}
</body>
</html>
`;
}
