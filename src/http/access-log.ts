/**
 * The access log: one JSON line per answered request, in the process log (pino), at `info` (5xx at
 * `warn`). Fields: request id, trace id, method, route pattern, path (no query string), status,
 * duration in ms, and `aborted` when the client left before the answer was written; never a header
 * value, so never an Authorization header or a token.
 *
 * A busy server writes one line per request, and pino's generic object serialisation (a loop over
 * the keys, per-key serializer and stringifier lookups, key escaping) cost more than the rest of
 * the line's way to stdout. So the line is assembled here from its fixed keys, in pino's own line
 * format, and handed to the logger's stream, through the integration points pino exposes for
 * this (`pino.symbols`: the stream, the bindings, the time function).
 *
 * That shortcut is only taken when it cannot differ from what the logger itself would write: at
 * construction, a probe entry is serialised both ways (pino's own `asJson` and ours) for each
 * level, and the logger must have no mixin, message prefix, or write hooks. Otherwise (custom
 * formatters, a message key, a transport needing metadata...) every line goes through
 * `logger.info`/`logger.warn` as before.
 */
import { symbols, type Logger } from 'pino';

export interface AccessEntry {
  reqId: string;
  traceId?: string;
  method: string;
  route: string;
  path: string;
  status: number;
  ms: number;
  aborted?: true;
}

const INFO = 30;
const WARN = 40;
const MSG = 'request';

interface LineStream {
  write(line: string): unknown;
}

type AsJson = (obj: object, msg: string, num: number, time: string) => string;

export class AccessLog {
  /** Whether a 2xx-4xx line is written at all (a 5xx is written down to `warn`). */
  readonly infoEnabled: boolean;
  private readonly warnEnabled: boolean;
  private readonly direct?: { stream: LineStream; time: () => string; bindings: string };

  constructor(private readonly logger: Logger) {
    this.infoEnabled = logger.isLevelEnabled('info');
    this.warnEnabled = logger.isLevelEnabled('warn');
    this.direct = directWriter(logger);
  }

  /** Whether lines are assembled here (true) or go through logger.info/warn. */
  get writesDirectly(): boolean {
    return this.direct !== undefined;
  }

  write(e: AccessEntry): void {
    const warn = e.status >= 500;
    if (!(warn ? this.warnEnabled : this.infoEnabled)) return;
    const d = this.direct;
    if (d) d.stream.write(line(warn ? WARN : INFO, d.time(), d.bindings, e));
    else if (warn) this.logger.warn(entryObject(e), MSG);
    else this.logger.info(entryObject(e), MSG);
  }
}

/** The line as pino writes it: level, time, the logger's bindings, the entry's fields, msg. */
function line(level: number, time: string, bindings: string, e: AccessEntry): string {
  const trace = e.traceId === undefined ? '' : `,"traceId":${quoted(e.traceId)}`;
  const aborted = e.aborted ? ',"aborted":true' : '';
  return (
    `{"level":${level}${time}${bindings},"reqId":${quoted(e.reqId)}${trace},"method":${quoted(e.method)},` +
    `"route":${quoted(e.route)},"path":${quoted(e.path)},"status":${e.status},"ms":${e.ms}${aborted},"msg":"${MSG}"}\n`
  );
}

/** Printable ASCII but `"` and `\`: quoted as it is by any rule (request ids, methods, routes, most paths). */
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/**
 * A string value quoted as pino's serialiser does it (its `asString`): JSON.stringify for a
 * string over 100 code units or with a control character; otherwise only `"` and `\` are
 * escaped, so a lone surrogate stays as it is (U+FFFD once in UTF-8) where JSON.stringify would
 * write `\ud800`. The probes of `directWriter` hold this to the installed pino.
 */
function quoted(s: string): string {
  if (PLAIN.test(s)) return `"${s}"`;
  if (s.length > 100) return JSON.stringify(s);
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) < 0x20) return JSON.stringify(s);
  return `"${s.replace(/["\\]/g, '\\$&')}"`;
}

/** The entry as an object for pino, in the same key order, without absent fields. */
function entryObject(e: AccessEntry): Record<string, unknown> {
  const o: Record<string, unknown> = { reqId: e.reqId };
  if (e.traceId !== undefined) o.traceId = e.traceId;
  o.method = e.method;
  o.route = e.route;
  o.path = e.path;
  o.status = e.status;
  o.ms = e.ms;
  if (e.aborted) o.aborted = true;
  return o;
}

/** The logger's stream, time function and bindings, when lines built by `line` equal pino's own. */
function directWriter(logger: Logger): { stream: LineStream; time: () => string; bindings: string } | undefined {
  const stream: unknown = Reflect.get(logger, symbols.streamSym);
  const time: unknown = Reflect.get(logger, symbols.timeSym);
  const bindings: unknown = Reflect.get(logger, symbols.chindingsSym);
  const asJson: unknown = Reflect.get(logger, symbols.asJsonSym);
  const hooks: unknown = Reflect.get(logger, symbols.hooksSym);
  if (!isLineStream(stream) || Reflect.get(stream, symbols.needsMetadataGsym) === true) return undefined;
  if (typeof time !== 'function' || typeof bindings !== 'string' || typeof asJson !== 'function') return undefined;
  // (the message prefix's symbol is missing from pino's type declarations, not from pino)
  const msgPrefixSym: unknown = Reflect.get(symbols, 'msgPrefixSym');
  if (typeof msgPrefixSym !== 'symbol' || Reflect.get(logger, msgPrefixSym) !== undefined) return undefined;
  if (Reflect.get(logger, symbols.mixinSym) !== undefined) return undefined;
  if (typeof hooks === 'object' && hooks !== null && (Reflect.get(hooks, 'logMethod') !== undefined || Reflect.get(hooks, 'streamWrite') !== undefined)) return undefined;
  const pinoLine: AsJson = (obj, msg, num, t) => String(Reflect.apply(asJson, logger, [obj, msg, num, t]));
  const probes: AccessEntry[] = [
    { reqId: 'probe-1', method: 'POST', route: '/a/{b}', path: '/a/"x"\\y', status: 200, ms: 1.25 },
    { reqId: 'probe-2', traceId: '4bf92f3577b34da6a3ce929d0e0e4736', method: 'GET', route: 'unmatched', path: '/é\u0001\u007f', status: 503, ms: 0, aborted: true },
    // a lone surrogate, in a short string and in one over 100 code units (quoted differently by pino)
    { reqId: 'probe-3\ud800"', method: 'P\u007f', route: '/r\\s', path: `/${'\\'.repeat(100)}\udc00`, status: 404, ms: 1234567.89 },
  ];
  for (const p of probes) {
    for (const level of [INFO, WARN]) {
      // compared as UTF-8, as lines reach the log: a lone surrogate is U+FFFD in both
      const theirs = Buffer.from(pinoLine(entryObject(p), MSG, level, ',"time":1'), 'utf8');
      if (!theirs.equals(Buffer.from(line(level, ',"time":1', bindings, p), 'utf8'))) return undefined;
    }
  }
  const timeFn = time;
  return { stream, time: () => String(Reflect.apply(timeFn, logger, [])), bindings };
}

function isLineStream(s: unknown): s is LineStream {
  return typeof s === 'object' && s !== null && typeof Reflect.get(s, 'write') === 'function';
}
