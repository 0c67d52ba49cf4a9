/**
 * Execution of the registry's POST endpoints, independent of the HTTP transport: match the path
 * against the endpoint table (routes/*.ts, the same table that documents them), decode and
 * validate the body (lenient: empty means `{}`, unknown fields ignored), call the service, and
 * map errors to `{"error": string}` with the status of errors.ts. The Hono app and the Node fast
 * path of the server (server.ts) both answer through here, so they cannot diverge.
 *
 * Why a fast path at all: a warm factory request is ~15 µs of our code; Hono's Web Request and
 * Response plumbing on Node costs several times that (bench/registry.ts), and the wallet-facing
 * POSTs are the hot path of a registry.
 */
import type { Logger } from 'pino';
import type { z } from '@hono/zod-openapi';
import type { RequestContext } from '../http/request-context.js';
import type { RegistryApi } from './api.js';
import { RegistryError, statusOf } from './errors.js';
import { jsonDepthExceeds } from '../http/body-limit.js';
import { MAX_JSON_DEPTH } from '../http/limits.js';
import type { PostEndpoint } from './routes/common.js';
import { GetChoiceContextRequestSchema, GetFactoryRequestSchema } from './schemas.js';
import { AnswerJson } from './answer-json.js';
import { inPlace } from './in-place.js';
import { isPromise, type MaybePromise } from './maybe-promise.js';

export interface Answer {
  status: number;
  /** JSON text, or its UTF-8 bytes (the success answers, AnswerJson). */
  body: string | Buffer;
  headers: Record<string, string>;
}

const JSON_HEADERS = { 'content-type': 'application/json' };

/** The request bodies, checked in place when they conform (in-place.ts). */
const GetFactoryRequest = inPlace(GetFactoryRequestSchema);
const GetChoiceContextRequest = inPlace(GetChoiceContextRequestSchema);

/** An answer with its own headers object (the Node fast path adds its headers to it). */
export function jsonAnswer(status: number, value: unknown, extra?: Record<string, string>): Answer {
  return { status, body: JSON.stringify(value), headers: extra ? { ...JSON_HEADERS, ...extra } : { 'content-type': 'application/json' } };
}

/** The one mapping of failures to the registry's error answers (also used by the Hono app). */
export function errorAnswer(err: unknown, logger?: Logger, path?: string): Answer {
  if (err instanceof RegistryError) {
    const headers: Record<string, string> = err.retryAfterSeconds !== undefined ? { 'retry-after': String(err.retryAfterSeconds) } : {};
    return jsonAnswer(statusOf(err.code), { error: err.message }, headers);
  }
  logger?.error({ err, path }, 'unexpected error in registry');
  return jsonAnswer(500, { error: 'An unexpected error occurred.' });
}

/** The message of a failed request validation (the Hono `defaultHook` uses it too). */
export function validationMessage(error: z.ZodError): string {
  const issue = error.issues[0];
  const where = issue && issue.path.length > 0 ? ` at '${issue.path.join('.')}'` : '';
  return `Invalid request${where}: ${issue?.message ?? 'malformed input'}`;
}

interface Compiled {
  endpoint: PostEndpoint;
  regex: RegExp;
  params: string[];
}

/** A path matched to its endpoint (PostDispatcher.match), to be answered with answerMatch. */
export interface PostMatch {
  /** The endpoint's path pattern (`/registry/.../{transferInstructionId}/...`). */
  readonly route: string;
  readonly compiled: Compiled;
  /** The regex match of a path with parameters; null for an exact path. */
  readonly m: RegExpExecArray | null;
}

export class PostDispatcher {
  /** Endpoints with path parameters, matched by regex. */
  private readonly compiled: Compiled[];
  /** Endpoints without path parameters (the factories), by exact path: one map lookup per request. */
  private readonly exact = new Map<string, PostMatch>();
  private readonly json = new AnswerJson();

  constructor(
    endpoints: readonly PostEndpoint[],
    private readonly api: RegistryApi,
    private readonly logger?: Logger,
    private readonly maxJsonDepth = MAX_JSON_DEPTH,
  ) {
    this.compiled = endpoints.map((endpoint) => {
      const params: string[] = [];
      const source = endpoint.route.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{([^}]+)\}/g, (_m, name: string) => {
        params.push(name);
        return '([^/]+)';
      });
      return { endpoint, regex: new RegExp(`^${source}$`), params };
    });
    // A parameterless path goes to the map unless an earlier endpoint's pattern also matches it
    // (then the ordered scan below keeps first-match-wins).
    this.compiled.forEach((c, i) => {
      const p = c.endpoint.route.path;
      if (c.params.length === 0 && !this.compiled.slice(0, i).some((e) => e.regex.test(p))) this.exact.set(p, { route: p, compiled: c, m: null });
    });
  }

  /** The endpoint of `path` (without any base path), in table order; undefined when it is none. */
  match(path: string): PostMatch | undefined {
    const exact = this.exact.get(path);
    if (exact) return exact;
    for (const c of this.compiled) {
      const m = c.regex.exec(path);
      if (m) return { route: c.endpoint.route.path, compiled: c, m };
    }
    return undefined;
  }

  /** Whether `path` (without any base path) is one of the POST endpoints. */
  matches(path: string): boolean {
    return this.match(path) !== undefined;
  }

  /** The endpoint's path pattern (`/registry/.../{transferInstructionId}/...`) of `path`, if it is one. */
  routeOf(path: string): string | undefined {
    return this.match(path)?.route;
  }

  /**
   * The answer to a POST of `bodyText` at `path`, or undefined when no endpoint has that path;
   * `ctx` is the HTTP request's context (for the ledger calls made to answer it).
   */
  answer(path: string, bodyText: string, ctx?: RequestContext): MaybePromise<Answer> | undefined {
    const found = this.match(path);
    return found && this.answerMatch(found, bodyText, ctx);
  }

  /**
   * The answer to a POST of `bodyText` at a matched path. Never fails: every failure is an error
   * answer. A warm answer (nothing to ask the ledger) is returned at once, not as a promise.
   */
  answerMatch(found: PostMatch, bodyText: string, ctx?: RequestContext): MaybePromise<Answer> {
    const { compiled: c, m } = found;
    try {
      const params: Record<string, string> = {};
      for (let i = 0; i < c.params.length; i++) {
        try {
          params[c.params[i]!] = decodeURIComponent(m![i + 1]!);
        } catch {
          return jsonAnswer(400, { error: `Malformed ${c.params[i]} in the path: not valid percent-encoding` });
        }
      }
      let json: unknown = {};
      if (bodyText.trim() !== '') {
        if (jsonDepthExceeds(bodyText, this.maxJsonDepth)) {
          return jsonAnswer(400, { error: `Malformed JSON in request body: nested deeper than ${this.maxJsonDepth} levels` });
        }
        try {
          json = JSON.parse(bodyText);
        } catch {
          return jsonAnswer(400, { error: 'Malformed JSON in request body' });
        }
      }
      const e = c.endpoint;
      const fail = (err: unknown) => errorAnswer(err, this.logger, found.m?.input ?? found.route);
      if (e.body === 'factory') {
        const parsed = GetFactoryRequest.safeParse(json);
        if (!parsed.success) return jsonAnswer(400, { error: validationMessage(parsed.error) });
        const r = e.call(this.api, params, parsed.data, ctx);
        return isPromise(r) ? r.then((v) => this.ok(this.json.factory(v))).catch(fail) : this.ok(this.json.factory(r));
      }
      const parsed = GetChoiceContextRequest.safeParse(json);
      if (!parsed.success) return jsonAnswer(400, { error: validationMessage(parsed.error) });
      const r = e.call(this.api, params, parsed.data, ctx);
      return isPromise(r) ? r.then((v) => this.ok(this.json.choiceContext(v))).catch(fail) : this.ok(this.json.choiceContext(r));
    } catch (err) {
      return errorAnswer(err, this.logger, found.m?.input ?? found.route);
    }
  }

  private ok(body: Buffer): Answer {
    return { status: 200, body, headers: { 'content-type': 'application/json' } };
  }
}
