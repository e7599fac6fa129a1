import type { ApiKeys } from './api-keys';
import type { TokenVerifier, Verdict } from './token-verifier';

/**
 * Turns an `Authorization` header into a principal: `Bearer <API key>`, or,
 * when an OIDC issuer is configured, `Bearer <JWT>`. Anything else is
 * refused with a reason the 401 can show (it never repeats the credential).
 */
export class Authenticator {
  constructor(
    private readonly keys: ApiKeys,
    private readonly tokens?: TokenVerifier,
  ) {}

  async authenticate(authorization: string | undefined): Promise<Verdict> {
    if (!authorization) return { refused: 'an Authorization: Bearer <API key or token> header is required' };
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!match) return { refused: 'the Authorization header must be "Bearer <API key or token>"' };
    const credential = match[1]!;
    if (credential.startsWith('noetl_')) {
      const principal = await this.keys.verify(credential);
      return principal ? { principal } : { refused: 'the API key is unknown or revoked' };
    }
    if (this.tokens) return this.tokens.verify(credential);
    return { refused: 'the bearer credential is not an API key, and no OIDC issuer is configured (NOETL_OIDC_JWKS_URL)' };
  }
}
