/**
 * A `fetch` that answers from a Hono app in process (the emulated ledger's `app.request`), so the
 * JSON Ledger API client talks to the emulator exactly as to a participant, without a socket.
 * `onCall` observes every request (tests and benchmarks count ledger calls with it).
 */
export interface RequestHandler {
  request(input: string | Request, init?: RequestInit): Response | Promise<Response>;
}

export function inProcessFetch(app: RequestHandler, onCall?: (url: string) => void): typeof fetch {
  return (async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
    const target = input instanceof Request ? input : String(input);
    onCall?.(typeof target === 'string' ? target : target.url);
    return app.request(target, init);
  }) as typeof fetch;
}
