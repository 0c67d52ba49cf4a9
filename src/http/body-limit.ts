/**
 * Bounded request bodies, shared by every API we serve (registry, ledger, scan, validator).
 *
 * A body larger than the API's limit is answered 413, in the API's own error shape, before it is
 * buffered: a declared Content-Length is checked before a byte is read, and a body without one
 * (chunked) is counted while it streams in and abandoned at the first byte over the limit. The
 * 413 carries `Connection: close`, so Node destroys the socket once the answer is flushed instead
 * of reading (and discarding) the rest of a huge upload.
 *
 * JSON bodies are also bounded in nesting depth (`jsonDepthExceeds`): a value nested thousands of
 * levels deep parses fine, but every recursive walk of it afterwards (zod, JSON.stringify in an
 * error message, the Daml value codecs) overflows the stack. Real nodes refuse such values too
 * (protobuf-java, behind Canton's JSON API, stops at a recursion depth of 100).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Context, Env, MiddlewareHandler } from 'hono';

/** The declared body length, or undefined when the body is chunked or the header is absent/invalid. */
export function declaredLength(contentLength: string | undefined, transferEncoding: string | undefined): number | undefined {
  if (contentLength === undefined || transferEncoding !== undefined) return undefined;
  const n = Number(contentLength);
  return Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}

export interface HonoBodyLimitOptions<E extends Env> {
  /** The limit for this request (e.g. larger for a DAR upload). */
  maxBytes: (c: Context<E>) => number;
  /** The API's 413 answer; `Connection: close` is added to it. */
  tooLarge: (c: Context<E>, maxBytes: number, receivedBytes: number) => Response;
}

/**
 * Hono middleware bounding the request body. A declared length over the limit is refused before
 * a byte is read; a body without one is handed on as a stream that counts what the handler reads
 * and fails at the first chunk over the limit, whatever the handler makes of that failure the
 * answer is then the 413. Nothing is buffered here: the handler reads as it always does.
 *
 * Why not `hono/body-limit` (honojs/hono `src/middleware/body-limit/index.ts`): it looks at
 * `c.req.raw.body` before the declared length, so on @hono/node-server the body stream is built
 * and a `100 Continue` sent before an over-long declared length is refused (the stack tests
 * require the 413 without it); it reads a chunked body whole into one buffer before the handler
 * starts (a DAR upload: up to 10 MiB); and its limit is one number, where ours is per request.
 */
export function honoBodyLimit<E extends Env>(opts: HonoBodyLimitOptions<E>): MiddlewareHandler<E> {
  return async (c, next) => {
    const method = c.req.method;
    if (method === 'GET' || method === 'HEAD') return next();
    // Method and headers first: @hono/node-server builds the body stream (which starts reading the
    // Node request, and so sends an awaited `100 Continue`, expect-continue.ts) only when `body`
    // is touched, and a declared length over the limit must be refused before that.
    const limit = opts.maxBytes(c);
    const declared = declaredLength(c.req.header('content-length'), c.req.header('transfer-encoding'));
    if (declared !== undefined) {
      if (declared > limit) return close(opts.tooLarge(c, limit, declared));
      return next();
    }
    const raw = c.req.raw;
    if (raw.body === null) return next();
    const reader = raw.body.getReader();
    let size = 0;
    let over = false;
    const counted = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const { done, value } = await reader.read();
        if (done) return controller.close();
        size += value.byteLength;
        if (size > limit) {
          over = true;
          controller.error(new Error(`request body over the limit of ${limit} bytes`));
          return;
        }
        controller.enqueue(value);
      },
      // No cancel of the source: cancelling Node's request stream destroys the socket before the
      // 413 is written. Node closes the connection after the answer (Connection: close).
    });
    c.req.raw = new Request(raw.url, { method: raw.method, headers: raw.headers, body: counted, signal: raw.signal, duplex: 'half' } as RequestInit);
    await next();
    if (over) c.res = close(opts.tooLarge(c, limit, size));
  };
}

function close(res: Response): Response {
  res.headers.set('connection', 'close');
  return res;
}

/** The outcome of reading a Node request body with a limit. */
export type LimitedBody = { ok: true; body: Buffer } | { ok: false; receivedBytes: number };

/**
 * Reads a Node request body, at most `maxBytes` of it. An over-long declared length is refused
 * before reading; a chunked body is abandoned (paused, listeners removed) at the first byte over.
 */
export function readLimitedBody(req: IncomingMessage, maxBytes: number): Promise<LimitedBody> {
  return new Promise((resolve, reject) => readLimitedBodyThen(req, maxBytes, (err, read) => (err ? reject(err) : resolve(read!))));
}

/**
 * readLimitedBody with a callback, called once: for a server's hot path, where a promise per
 * request (and its microtask) is measurable.
 */
export function readLimitedBodyThen(req: IncomingMessage, maxBytes: number, done: (err: Error | undefined, read?: LimitedBody) => void): void {
  const declared = declaredLength(req.headers['content-length'], req.headers['transfer-encoding']);
  if (declared !== undefined && declared > maxBytes) {
    done(undefined, { ok: false, receivedBytes: declared });
    return;
  }
  let first: Buffer | undefined;
  let more: Buffer[] | undefined;
  let size = 0;
  const onData = (chunk: Buffer) => {
    size += chunk.length;
    if (size > maxBytes) {
      cleanup();
      req.pause();
      done(undefined, { ok: false, receivedBytes: size });
      return;
    }
    if (first === undefined) first = chunk;
    else (more ??= [first]).push(chunk);
  };
  const onEnd = () => {
    cleanup();
    // A small body arrives in one chunk: no copy then.
    done(undefined, { ok: true, body: more ? Buffer.concat(more, size) : (first ?? Buffer.alloc(0)) });
  };
  const onError = (err: Error) => {
    cleanup();
    done(err);
  };
  const cleanup = () => {
    req.off('data', onData);
    req.off('end', onEnd);
    req.off('error', onError);
  };
  req.on('data', onData);
  req.on('end', onEnd);
  req.on('error', onError);
}

/** Writes a 413 on a Node response and lets Node close the connection after it. */
export function writeTooLarge(res: ServerResponse, contentType: string, body: string): void {
  res.writeHead(413, { 'content-type': contentType, 'content-length': Buffer.byteLength(body), connection: 'close' });
  res.end(body);
}

/**
 * Whether a JSON text nests arrays/objects deeper than `maxDepth`. One pass over the text, no
 * recursion, brackets inside strings ignored; meant to run before JSON.parse, so a too-deep value
 * is refused before anything walks it.
 */
export function jsonDepthExceeds(text: string, maxDepth: number): boolean {
  // No value nests deeper than the number of its opening brackets. Counting them with indexOf (a
  // native search) is far cheaper than the character loop below, and a typical API body has a
  // handful: then the loop is not needed at all.
  if (openingBracketsAtMost(text, maxDepth)) return false;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 0x22 /* " */) {
      // Jump over the string with a native search for its closing quote (one not escaped: preceded
      // by an even number of backslashes): a big body is mostly strings (a filter naming tens of
      // thousands of parties), and a character loop over them cost as much as JSON.parse.
      let end = i;
      for (;;) {
        end = text.indexOf('"', end + 1);
        if (end < 0) return false; // unterminated: JSON.parse reports it
        let backslashes = 0;
        while (text.charCodeAt(end - 1 - backslashes) === 0x5c /* \ */) backslashes++;
        if (backslashes % 2 === 0) break;
      }
      i = end;
    } else if (ch === 0x5b /* [ */ || ch === 0x7b /* { */) {
      if (++depth > maxDepth) return true;
    } else if (ch === 0x5d /* ] */ || ch === 0x7d /* } */) depth--;
  }
  return false;
}

/** Whether `text` holds at most `n` of `{` and `[` (inside strings or not), stopping at n + 1. */
function openingBracketsAtMost(text: string, n: number): boolean {
  let count = 0;
  for (let i = text.indexOf('{'); i >= 0; i = text.indexOf('{', i + 1)) if (++count > n) return false;
  for (let i = text.indexOf('['); i >= 0; i = text.indexOf('[', i + 1)) if (++count > n) return false;
  return true;
}

/** A bounded rendering of a client's JSON value for an error message (never throws, never huge). */
export function showJson(value: unknown, maxChars = 200): string {
  let s: string;
  try {
    s = JSON.stringify(value) ?? String(value);
  } catch {
    s = '<unprintable value>';
  }
  return s.length > maxChars ? `${s.slice(0, maxChars)}...` : s;
}

/** The 413 text of the `{"error": ...}` APIs (registry, scan, validator). */
export function tooLargeMessage(limit: number, receivedBytes: number, declared: boolean): string {
  return declared
    ? `Request Content-Length of ${receivedBytes} bytes exceeds the configured limit of ${limit} bytes`
    : `Request body exceeds the configured limit of ${limit} bytes`;
}

/** honoBodyLimit for the APIs whose errors are `{"error": "..."}`. */
export function jsonErrorBodyLimit<E extends Env>(maxBytes: number): MiddlewareHandler<E> {
  return honoBodyLimit<E>({
    maxBytes: () => maxBytes,
    tooLarge: (c, limit, received) =>
      c.json({ error: tooLargeMessage(limit, received, declaredLength(c.req.header('content-length'), c.req.header('transfer-encoding')) !== undefined) }, 413),
  });
}
