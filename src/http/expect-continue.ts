/**
 * `Expect: 100-continue`, answered the way RFC 9110 (section 10.1.1) intends: the client waits
 * for `100 Continue` before sending its body, so a server that is going to refuse the request
 * (413 for a declared Content-Length over the limit, 404, 401...) answers at once and the body is
 * never sent.
 *
 * Node writes the 100 itself as soon as the head is parsed unless the server handles
 * 'checkContinue' (Node's http docs), i.e. before any handler could look at the request. Here the
 * request goes to the handler without it, and the 100 is written the moment the handler starts
 * reading the body (a 'data' or 'readable' listener, or resume()); a handler that answers without
 * reading never sends it. Each API's handler already checks the declared length before reading,
 * so its own limit decides, with no second copy of the limits here.
 *
 * An answer written without the 100 closes the connection: the client may still send the body it
 * announced (RFC 9110 allows either), and a keep-alive connection would then read it as the next
 * request.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Prepares `req`/`res` of a 'checkContinue' request; `keepAlive` says whether the server still keeps connections (not while draining). */
export function continueWhenRead(req: IncomingMessage, res: ServerResponse, keepAlive: () => boolean): void {
  const keep = res.shouldKeepAlive;
  res.shouldKeepAlive = false;
  let decided = false;
  const onListener = (event: string | symbol) => {
    if (event === 'data' || event === 'readable') go();
  };
  const go = () => {
    if (decided) return;
    decided = true;
    req.off('newListener', onListener);
    req.off('resume', go);
    // Reading after the answer was written (Node dumps an unread body after the response): too late for a 100.
    if (res.headersSent || res.writableEnded) return;
    res.shouldKeepAlive = keep && keepAlive();
    res.writeContinue();
  };
  req.on('newListener', onListener);
  req.on('resume', go);
}
