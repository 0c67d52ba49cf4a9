/**
 * The registry's health probes, on every port that serves a registry at its root (`serve`, and
 * the emulated stack's registry): `/livez` answers 200 while the process serves HTTP; `/readyz`
 * answers 200 only while the contract index is ready, and 503 with the reason otherwise (loading
 * or reloading its snapshot, the ledger unreadable, stopped). An orchestrator then sends traffic
 * only to a registry that can answer from the ledger's current state.
 */
import { Hono, type Env } from 'hono';
import type { IndexState } from '../contracts/index-state.js';
import { noSuchEndpoint } from './app.js';

/** The part of the contract index the probes read. */
export interface Readiness {
  readonly state: IndexState;
}

export function registryHealthApp(index: Readiness): Hono {
  const health = new Hono();
  health.get('/livez', (c) => c.body(null, 200));
  health.get('/readyz', (c) => {
    switch (index.state) {
      case 'ready':
        return c.text('ready\n', 200);
      case 'unreachable':
        return c.text('the ledger node cannot be read\n', 503);
      case 'loading':
      case 'reloading':
        return c.text("loading the admin's contracts from the ledger\n", 503);
      default:
        return c.text('stopped\n', 503);
    }
  });
  return health;
}

/**
 * A registry's host app: the probes, `mounted` (proxied APIs, in that order), then the registry
 * app; a path none of them has gets the registry's own 404 (`{"error": ...}`), not Hono's text.
 */
export function registryHostApp<E extends Env>(index: Readiness, registryApp: Hono<E>, mounted: ReadonlyArray<readonly [path: string, app: Hono]> = []): Hono {
  const host = registryHealthApp(index);
  for (const [path, app] of mounted) host.route(path, app);
  host.route('/', registryApp);
  host.notFound(noSuchEndpoint);
  return host;
}
