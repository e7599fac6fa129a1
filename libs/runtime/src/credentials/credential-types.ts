import type { JsonObject } from '@noetl/event-kernel';

export interface CredentialInput {
  name: string;
  /** e.g. `postgres`, `http`, `bearer`: what the data is for. */
  type: string;
  data: JsonObject;
}

/** What the API lists: never the data. */
export interface CredentialSummary {
  name: string;
  type: string;
  created_at: string;
  updated_at: string;
}

/**
 * Credentials encrypted at rest (AES-256-GCM with NOETL_ENCRYPTION_KEY),
 * resolved only at the worker at call time (DESIGN.md invariant 8).
 */
export interface CredentialStore {
  put(input: CredentialInput): Promise<CredentialSummary>;
  list(): Promise<CredentialSummary[]>;
  /** Throws RuntimeError not_found. */
  get(name: string): Promise<CredentialSummary>;
  /** The decrypted data; throws not_found, or credentials_locked without a key. */
  resolve(name: string): Promise<{ type: string; data: JsonObject }>;
  delete(name: string): Promise<void>;
}
