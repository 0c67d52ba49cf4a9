/**
 * A mock OAuth2 / OpenID Connect server on loopback, as wallet stacks run one for their tests
 * (e.g. the wallet gateway's mock OAuth2 server): an RS256 key of its own, published as a JWKS,
 * and the client-credentials grant.
 *  - `GET /.well-known/openid-configuration`: `issuer`, `token_endpoint`, `jwks_uri`;
 *  - `GET /jwks`: the public key (`kid`, `alg: RS256`, `use: sig`);
 *  - `POST /token` (`grant_type=client_credentials`, client id and secret in HTTP Basic auth, the
 *    requested `audience` and `scope` in the form): an RS256 access token for `sub` = the client id.
 * Unknown clients, a wrong secret or another grant get 401 / 400 with an OAuth2 error body.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';

export interface MockOAuth2Server {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** The OpenID configuration URL (the wallet SDK's `client_credentials` `configUrl`). */
  configUrl: string;
  jwksUrl: string;
  /** Signs a token with the server's key (as its token endpoint does), for raw requests. */
  sign(claims: { sub: string; aud: string; scope?: string }, o?: { expiresInSeconds?: number }): Promise<string>;
  /** How many tokens the token endpoint issued. */
  issued(): number;
  close(): Promise<void>;
}

const KID = 'mock-oauth2-rs256';

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** Starts the server; `clients` maps client id to client secret. */
export async function startMockOAuth2Server(clients: Record<string, string>): Promise<MockOAuth2Server> {
  const { publicKey, privateKey } = await generateKeyPair('RS256');
  const publicJwk: JWK = { ...(await exportJWK(publicKey)), kid: KID, alg: 'RS256', use: 'sig' };
  let issued = 0;
  let base = '';
  const sign = (key: CryptoKey, claims: { sub: string; aud: string; scope?: string }, expiresInSeconds = 3600) => {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ scope: claims.scope ?? '' })
      .setProtectedHeader({ alg: 'RS256', kid: KID, typ: 'JWT' })
      .setIssuer(base)
      .setSubject(claims.sub)
      .setAudience(claims.aud)
      .setIssuedAt(now - 5)
      .setExpirationTime(now + expiresInSeconds)
      .sign(key);
  };

  const server = createServer((req, res) => {
    void (async () => {
      const path = new URL(req.url ?? '/', base).pathname;
      if (req.method === 'GET' && path === '/.well-known/openid-configuration') {
        return json(res, 200, { issuer: base, token_endpoint: `${base}/token`, jwks_uri: `${base}/jwks`, grant_types_supported: ['client_credentials'] });
      }
      if (req.method === 'GET' && path === '/jwks') return json(res, 200, { keys: [publicJwk] });
      if (req.method === 'POST' && path === '/token') {
        const form = new URLSearchParams(await readBody(req));
        if (form.get('grant_type') !== 'client_credentials') return json(res, 400, { error: 'unsupported_grant_type' });
        const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '');
        const [id, secret] = basic ? Buffer.from(basic[1]!, 'base64').toString('utf8').split(':') : [];
        if (id === undefined || clients[id] === undefined || clients[id] !== secret) return json(res, 401, { error: 'invalid_client' });
        issued++;
        const scope = form.get('scope') ?? '';
        const token = await sign(privateKey, { sub: id, aud: form.get('audience') ?? '', scope });
        return json(res, 200, { access_token: token, token_type: 'Bearer', expires_in: 3600, scope });
      }
      json(res, 404, { error: 'not_found' });
    })().catch((e: unknown) => json(res, 500, { error: String(e) }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    configUrl: `${base}/.well-known/openid-configuration`,
    jwksUrl: `${base}/jwks`,
    sign: (claims, o) => sign(privateKey, claims, o?.expiresInSeconds),
    issued: () => issued,
    close: () => new Promise<void>((resolve, reject) => server.close((e) => (e ? reject(e) : resolve()))),
  };
}
