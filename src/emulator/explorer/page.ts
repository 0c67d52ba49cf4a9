/**
 * The explorer: a web page at the admin port's root (`emulate` only) that shows the emulated
 * world and drives the admin API. It is plain ES modules run by the browser as they are: the
 * page's own files (./public, copied next to the compiled module by `npm run build`) and, for
 * rendering, Preact with htm (tagged templates instead of JSX, so no build step), served from
 * their installed package files through an import map. Nothing is loaded from elsewhere.
 *
 * The page reads only the admin API's JSON endpoints and its event stream (src/emulator/admin);
 * it holds no data itself, so it is served without authentication (its API calls carry the token
 * the user types in when the ledger's auth is on).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { OpenAPIHono } from '@hono/zod-openapi';

interface Asset {
  body: string;
  type: string;
}

const JS = 'text/javascript; charset=utf-8';

export interface ExplorerAssets {
  /** By served path. */
  files: Map<string, Asset>;
  /** The page's Content-Security-Policy: its own origin, and its one inline script (the import map) by hash. */
  csp: string;
}

/** The page's files, read once: its own (./public) and the vendored modules by their served names. */
export function explorerAssets(): ExplorerAssets {
  const here = dirname(fileURLToPath(import.meta.url));
  const own = (name: string, type: string): Asset => ({ body: readFileSync(join(here, 'public', name), 'utf8'), type });
  const require = createRequire(import.meta.url);
  // The packages' ES module builds (`exports` "default"/"import" entries); htm's CommonJS entry
  // sits next to its module build.
  const vendor = (path: string): Asset => ({ body: readFileSync(path, 'utf8'), type: JS });
  const index = own('index.html', 'text/html; charset=utf-8');
  const importMap = /<script type="importmap">([\s\S]*?)<\/script>/.exec(index.body);
  if (!importMap) throw new Error('the explorer page has no import map');
  const hash = createHash('sha256').update(importMap[1]!).digest('base64');
  const csp = `default-src 'self'; script-src 'self' 'sha256-${hash}'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; frame-ancestors 'none'`;
  const files = new Map([
    ['/', index],
    ['/explorer/app.js', own('app.js', JS)],
    ['/explorer/style.css', own('style.css', 'text/css; charset=utf-8')],
    ['/explorer/vendor/preact.mjs', vendor(require.resolve('preact'))],
    ['/explorer/vendor/preact-hooks.mjs', vendor(require.resolve('preact/hooks'))],
    ['/explorer/vendor/htm.mjs', vendor(join(dirname(require.resolve('htm')), 'htm.mjs'))],
  ]);
  return { files, csp };
}

/** Registers the page's routes on the admin app (before its not-found handler). */
export function explorerPage(assets: ExplorerAssets = explorerAssets()): (app: OpenAPIHono) => void {
  return (app) => {
    for (const [path, a] of assets.files) {
      app.get(path, (c) =>
        c.body(a.body, 200, {
          'content-type': a.type,
          'content-security-policy': assets.csp,
          'x-content-type-options': 'nosniff',
          'cache-control': 'no-cache',
        }),
      );
    }
  };
}
