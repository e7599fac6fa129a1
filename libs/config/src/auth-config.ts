import { ConfigError } from './config-error';
import { url, type Env } from './env-values';
import { Secret } from './secret';

/**
 * Who may call the API (issue 11). `enabled` is false only when
 * NOETL_AUTH=off says so; `oidc` adds JWT bearer tokens to API keys;
 * `metrics: 'key'` asks any valid key of /metrics.
 */
export interface AuthConfig {
  enabled: boolean;
  oidc?: OidcConfig;
  metrics: 'open' | 'key';
  bootstrapKeys: BootstrapKeys;
}

/** An OIDC issuer whose JWT bearer tokens the API accepts beside API keys. */
export interface OidcConfig {
  /** Where the issuer publishes its signing keys (JWKS). */
  jwksUrl: string;
  issuer?: string;
  audience?: string;
  /** The web UI's (public, PKCE) client at the issuer: with `issuer`, the sign-in page offers the identity provider. */
  clientId?: string;
  /** The claims that carry the caller's tenant, organization and role. */
  tenantClaim: string;
  organizationClaim: string;
  roleClaim: string;
}

/**
 * Keys an operator chose for a deployment (NOETL_BOOTSTRAP_ADMIN_KEY,
 * NOETL_BOOTSTRAP_WORKER_KEY, from its secret store): the api stores them,
 * hashed, at every start (as `noetl keys bootstrap` does), so no key has to
 * be written to a home directory.
 */
export interface BootstrapKeys {
  admin?: Secret;
  worker?: Secret;
}

/** A claim name: letters, digits and `_ . : / -`. */
function claimName(env: Env, name: string, fallback: string): string {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  if (!/^[\w.:/-]{1,100}$/.test(raw)) throw new ConfigError(`${name} must be a claim name (letters, digits, _ . : / -), got "${raw}"`);
  return raw;
}

export function oidc(env: Env): OidcConfig | undefined {
  const jwksUrl = url(env, 'NOETL_OIDC_JWKS_URL', ['https:', 'http:']);
  const issuer = env.NOETL_OIDC_ISSUER?.trim();
  const audience = env.NOETL_OIDC_AUDIENCE?.trim();
  const clientId = env.NOETL_OIDC_CLIENT_ID?.trim();
  const claims = {
    tenantClaim: claimName(env, 'NOETL_OIDC_TENANT_CLAIM', 'noetl_tenant'),
    organizationClaim: claimName(env, 'NOETL_OIDC_ORGANIZATION_CLAIM', 'noetl_organization'),
    roleClaim: claimName(env, 'NOETL_OIDC_ROLE_CLAIM', 'noetl_role'),
  };
  if (!jwksUrl) return undefined;
  return { jwksUrl, ...(issuer ? { issuer } : {}), ...(audience ? { audience } : {}), ...(clientId ? { clientId } : {}), ...claims };
}

export function bootstrapKeys(env: Env): BootstrapKeys {
  const admin = env.NOETL_BOOTSTRAP_ADMIN_KEY?.trim();
  const worker = env.NOETL_BOOTSTRAP_WORKER_KEY?.trim();
  return { ...(admin ? { admin: new Secret(admin) } : {}), ...(worker ? { worker: new Secret(worker) } : {}) };
}
