import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';

/** A path of its own: an issuer of a bare origin is `http://host/` to some clients and `http://host` to others. */
const PATH = '/idp';

export interface LoopbackOidcProvider {
  /** e.g. `http://127.0.0.1:41234/idp`: the issuer, its discovery document under it. */
  issuer: string;
  jwksUrl: string;
  close(): Promise<void>;
}

export interface ProviderOptions {
  /** The one public client it knows. */
  clientId: string;
  /** The `aud` of the access tokens it issues (the API's NOETL_OIDC_AUDIENCE). */
  audience: string;
  /** What the access token says of the user: tenant, organization, role claims. */
  claims: Record<string, unknown>;
}

/**
 * An OpenID provider on loopback at which the user is already signed in:
 * /authorize sends the browser straight back with a code, /token trades the
 * code for tokens once, checking the PKCE verifier, the client and the
 * redirect. Its endpoints answer any origin (CORS), as a provider does for
 * a browser app.
 */
export async function startLoopbackOidcProvider(options: ProviderOptions): Promise<LoopbackOidcProvider> {
  const { publicKey, privateKey } = await generateKeyPair('RS256');
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  const codes = new Map<string, { challenge: string; redirectUri: string }>();
  let issuer = '';

  const sign = (claims: Record<string, unknown>, audience: string): Promise<string> =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
      .setIssuer(issuer)
      .setAudience(audience)
      .setSubject('ada@example.test')
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(privateKey);

  const routes: Record<string, (req: IncomingMessage, url: URL, res: ServerResponse) => Promise<void> | void> = {
    'GET /.well-known/openid-configuration': (_req, _url, res) =>
      json(res, 200, {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        jwks_uri: `${issuer}/jwks.json`,
        response_types_supported: ['code'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
        code_challenge_methods_supported: ['S256'],
      }),
    'GET /jwks.json': (_req, _url, res) => json(res, 200, { keys: [jwk] }),
    'GET /authorize': (_req, url, res) => {
      const redirectUri = url.searchParams.get('redirect_uri') ?? '';
      if (url.searchParams.get('client_id') !== options.clientId || url.searchParams.get('code_challenge_method') !== 'S256')
        return json(res, 400, { error: 'invalid_request' });
      const code = randomBytes(16).toString('hex');
      codes.set(code, { challenge: url.searchParams.get('code_challenge') ?? '', redirectUri });
      const back = new URL(redirectUri);
      back.search = new URLSearchParams({ code, state: url.searchParams.get('state') ?? '' }).toString();
      res.writeHead(302, { location: back.toString() }).end();
    },
    'POST /token': async (req, _url, res) => {
      const form = new URLSearchParams(await body(req));
      const code = codes.get(form.get('code') ?? '');
      codes.delete(form.get('code') ?? '');
      const verified =
        code &&
        createHash('sha256')
          .update(form.get('code_verifier') ?? '')
          .digest('base64url') === code.challenge;
      if (!verified || form.get('client_id') !== options.clientId || form.get('redirect_uri') !== code.redirectUri)
        return json(res, 400, { error: 'invalid_grant' });
      json(res, 200, {
        token_type: 'Bearer',
        expires_in: 300,
        access_token: await sign(options.claims, options.audience),
        id_token: await sign({}, options.clientId),
      });
    },
  };

  const server = createServer((req, res) => {
    res.setHeader('access-control-allow-origin', '*');
    res.setHeader('access-control-allow-headers', '*');
    if (req.method === 'OPTIONS') return void res.writeHead(204).end();
    const url = new URL(req.url ?? '/', issuer);
    const route = routes[`${req.method} ${url.pathname.replace(PATH, '')}`];
    if (!route) return json(res, 404, { error: 'not_found' });
    Promise.resolve(route(req, url, res)).catch((error: Error) => json(res, 500, { error: error.message }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}${PATH}`;
  return { issuer, jwksUrl: `${issuer}/jwks.json`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

function json(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
}

async function body(req: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of req) text += String(chunk);
  return text;
}
