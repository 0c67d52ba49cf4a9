/**
 * `*.localhost` names resolve to the loopback address (RFC 6761 §6.3), as browsers, systemd-resolved
 * and macOS resolve them and as LocalNet's documentation assumes (`scan.localhost:4000`). Node's
 * resolver asks the system's, which on a minimal Linux (no nss-myhostname) does not know them; a
 * test that uses LocalNet's addresses as published installs this once, in its own worker process.
 * Node's `fetch` and `http` reach `dns.lookup` through the module's export, so replacing it covers both.
 */
import dns from 'node:dns';

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

let installed = false;

export function resolveLocalhostNames(): void {
  if (installed) return;
  installed = true;
  const system = dns.lookup;
  const lookup = (hostname: string, options: unknown, callback?: unknown): void => {
    const cb = (typeof options === 'function' ? options : callback) as LookupCallback;
    const opts = (typeof options === 'object' && options !== null ? options : {}) as dns.LookupOptions;
    if (hostname.toLowerCase().endsWith('.localhost')) {
      if (opts.all) process.nextTick(cb, null, [{ address: '127.0.0.1', family: 4 }]);
      else process.nextTick(cb, null, '127.0.0.1', 4);
      return;
    }
    Reflect.apply(system, dns, [hostname, options, callback].filter((a) => a !== undefined));
  };
  Object.defineProperty(dns, 'lookup', { value: lookup, writable: true, configurable: true });
}
