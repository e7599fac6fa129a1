import type { OidcConfig } from '@noetl/config';
import { API_KEY_ROLES, SCOPE_ID, type ApiKeyRole } from '@noetl/storage';
import { createRemoteJWKSet, errors, jwtVerify, type JWTPayload } from 'jose';
import type { Principal } from './principal';

/** What checking a presented credential found: who it is, or why it is refused (said in the 401, never the credential). */
export type Verdict = { principal: Principal } | { refused: string };

/**
 * OIDC/JWT bearer tokens (issue 11): the signature is checked against the
 * issuer's JWKS (fetched and cached by `jose`, refetched when a token names
 * a key it has not seen), the issuer and audience when configured, and the
 * tenant, organization and role are read from the configured claims.
 */
export class TokenVerifier {
  private readonly jwks: ReturnType<typeof createRemoteJWKSet>;

  constructor(private readonly config: OidcConfig) {
    this.jwks = createRemoteJWKSet(new URL(config.jwksUrl));
  }

  async verify(token: string): Promise<Verdict> {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, this.jwks, {
        ...(this.config.issuer ? { issuer: this.config.issuer } : {}),
        ...(this.config.audience ? { audience: this.config.audience } : {}),
      }));
    } catch (error) {
      return { refused: `the bearer token is not valid: ${reasonOf(error)}` };
    }
    const tenant = claim(payload, this.config.tenantClaim);
    const organization = claim(payload, this.config.organizationClaim);
    const role = claim(payload, this.config.roleClaim);
    if (!tenant || !organization || !role) {
      const missing = [
        [tenant, this.config.tenantClaim],
        [organization, this.config.organizationClaim],
        [role, this.config.roleClaim],
      ].flatMap(([value, name]) => (value ? [] : [name]));
      return { refused: `the bearer token lacks the claim(s) ${missing.join(', ')}` };
    }
    if (!isRole(role)) return { refused: `the bearer token's role "${role}" is not one of ${API_KEY_ROLES.join(', ')}` };
    if (!SCOPE_ID.test(tenant) || !SCOPE_ID.test(organization))
      return { refused: 'the bearer token names a tenant or organization that is not 1-64 letters, digits, _ or -' };
    return { principal: { scope: { tenantId: tenant, organizationId: organization }, role, subject: `token:${payload.sub ?? 'unknown'}` } };
  }
}

function claim(payload: JWTPayload, name: string): string | undefined {
  const value = payload[name];
  return typeof value === 'string' && value.length > 0 && value.length <= 200 && !value.includes('\u0000') ? value : undefined;
}

function isRole(value: string): value is ApiKeyRole {
  return (API_KEY_ROLES as readonly string[]).includes(value);
}

function reasonOf(error: unknown): string {
  if (error instanceof errors.JWTExpired) return 'it has expired';
  if (error instanceof errors.JWTClaimValidationFailed) return `its "${error.claim}" claim is not accepted`;
  if (error instanceof errors.JWSSignatureVerificationFailed || error instanceof errors.JWKSNoMatchingKey)
    return 'its signature does not verify';
  if (error instanceof errors.JOSEError) return error.code;
  return 'the issuer keys could not be read';
}
