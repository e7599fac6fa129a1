import * as oauth from 'oauth4webapi';
import type { Schemas } from './client';

type OidcSignIn = Schemas['OidcSignInDto'];

/** What the redirect to the identity provider must find again when it comes back: kept for the tab, like the key. */
const PENDING = 'noetl.oidcPending';
const CALLBACK_PATH = '/ui/sign-in/callback';

interface Pending {
  issuer: string;
  clientId: string;
  verifier: string;
  state: string;
  /** The page that asked for a sign-in. */
  from: string;
}

const redirectUri = (): string => `${window.location.origin}${CALLBACK_PATH}`;

/** An issuer on plain http (a local one) is allowed, as the server allows its JWKS URL on http. */
const insecureIf = (issuer: URL) => (issuer.protocol === 'http:' ? { [oauth.allowInsecureRequests]: true } : {});

async function discover(issuer: string): Promise<oauth.AuthorizationServer> {
  const url = new URL(issuer);
  return oauth.processDiscoveryResponse(url, await oauth.discoveryRequest(url, { algorithm: 'oidc', ...insecureIf(url) }));
}

/** Sends the browser to the identity provider: the authorization code flow with PKCE, for a public client. */
export async function startOidcSignIn(options: OidcSignIn, from: string): Promise<void> {
  const as = await discover(options.issuer);
  if (!as.authorization_endpoint) throw new Error(`${options.issuer} publishes no authorization endpoint`);
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const pending: Pending = { issuer: options.issuer, clientId: options.client_id, verifier, state, from };
  sessionStorage.setItem(PENDING, JSON.stringify(pending));
  const url = new URL(as.authorization_endpoint);
  url.search = new URLSearchParams({
    client_id: options.client_id,
    redirect_uri: redirectUri(),
    response_type: 'code',
    scope: 'openid',
    state,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  }).toString();
  window.location.assign(url);
}

/** Back from the identity provider: the code exchanged for tokens; returns the access token (the Bearer the API verifies) and the page to return to. */
export async function finishOidcSignIn(callback: URL): Promise<{ token: string; from: string }> {
  const saved = sessionStorage.getItem(PENDING);
  sessionStorage.removeItem(PENDING);
  if (!saved) throw new Error('No sign-in was started in this tab.');
  const pending = JSON.parse(saved) as Pending;
  const as = await discover(pending.issuer);
  const client: oauth.Client = { client_id: pending.clientId };
  const params = oauth.validateAuthResponse(as, client, callback, pending.state);
  const response = await oauth.authorizationCodeGrantRequest(
    as,
    client,
    oauth.None(),
    params,
    redirectUri(),
    pending.verifier,
    insecureIf(new URL(pending.issuer)),
  );
  const tokens = await oauth.processAuthorizationCodeResponse(as, client, response);
  return { token: tokens.access_token, from: pending.from };
}
