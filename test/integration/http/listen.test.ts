/** The listen helper's shutdown: stop accepting, drain in-flight requests (bounded), then cut. */
import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { listen } from '../../../src/http/listen.js';

function get(url: string): Promise<{ status: number; body: string; connection?: string }> {
  return new Promise((resolve, reject) => {
    request(url, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, body, connection: res.headers.connection }));
      res.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
}

describe('listen', () => {
  it('serves, and on close finishes the requests in flight before closing, refusing new connections', async () => {
    const order: string[] = [];
    const l = await listen(
      (req, res) => {
        const wait = req.url === '/slow' ? 300 : 0;
        setTimeout(() => res.end(`done ${req.url}`, () => req.url === '/slow' && order.push('answered')), wait);
      },
      { port: 0, host: '127.0.0.1' },
    );
    expect(l.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await get(`${l.url}/fast`)).toMatchObject({ status: 200, body: 'done /fast' });
    const slow = get(`${l.url}/slow`);
    await new Promise((r) => setTimeout(r, 50));
    expect(l.inFlight).toBe(1);
    const closed = l.close({ drainMs: 5000, beforeCut: () => void order.push('beforeCut') }).then(() => order.push('closed'));
    await expect(get(`${l.url}/fast`)).rejects.toThrow(/ECONNREFUSED/);
    const answer = await slow;
    expect(answer).toMatchObject({ status: 200, body: 'done /slow' });
    await closed;
    expect(order).toEqual(['answered', 'beforeCut', 'closed']);
  });

  it('cuts what is still running once the drain time is up', async () => {
    const l = await listen(() => {}, { port: 0, host: '127.0.0.1' }); // never answers
    const hanging = get(`${l.url}/hang`).then(
      () => 'answered',
      (e: Error) => e.message,
    );
    await new Promise((r) => setTimeout(r, 50));
    const t0 = Date.now();
    await l.close({ drainMs: 200 });
    const took = Date.now() - t0;
    expect(took).toBeGreaterThanOrEqual(150);
    expect(took).toBeLessThan(3000);
    expect(await hanging).toMatch(/socket hang up|ECONNRESET/);
  });

  it('reports a port already in use as an error', async () => {
    const a = await listen((_q, s) => s.end(), { port: 0, host: '127.0.0.1' });
    const port = Number(new URL(a.url).port);
    await expect(listen((_q, s) => s.end(), { port, host: '127.0.0.1' })).rejects.toThrow(/EADDRINUSE/);
    await a.close();
  });
});
