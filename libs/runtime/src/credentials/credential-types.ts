import type { CredentialUseRow } from '@noetl/storage';
import type { JsonObject } from '@noetl/event-kernel';

export interface CredentialInput {
  name: string;
  /** e.g. `postgres`, `http`, `bearer`: what the data is for. */
  type: string;
  data: JsonObject;
  /**
   * The catalog paths (globs: `etl/**`, `reports/daily`) of the playbooks
   * whose executions may use it; absent or null: any, unless the tenant
   * requires binding (`CredentialSettings`).
   */
  allowed_paths?: string[] | null;
}

/** What the API lists: never the data. */
export interface CredentialSummary {
  name: string;
  type: string;
  allowed_paths: string[] | null;
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
  /**
   * The decrypted data, for `use` (recorded in the audit): throws not_found,
   * credentials_locked without a key, or credential_not_allowed when the
   * credential is not bound to the use's playbook path.
   */
  resolve(name: string, use: CredentialUse): Promise<{ type: string; data: JsonObject }>;
  delete(name: string): Promise<void>;
  /** The tenant's credential settings. */
  settings(): Promise<CredentialSettings>;
  updateSettings(settings: CredentialSettings): Promise<CredentialSettings>;
  /** The latest uses of a credential, newest first. */
  uses(name: string, limit: number): Promise<CredentialUseView[]>;
}

/** Who uses a credential, for what: the work a worker holds. */
export interface CredentialUse {
  executionId: string;
  /** The playbook path of the execution: what the credential's binding is checked against. */
  path: string;
  step: string | null;
  holder: { kind: 'command' | 'frame'; id: string };
  workerId: string;
}

export interface CredentialSettings {
  /** Every credential must name the paths that may use it: one with none is refused to every playbook. */
  require_binding: boolean;
}

/** A use as the audit lists it (its row, with the time as ISO text). */
export type CredentialUseView = Omit<CredentialUseRow, 'used_at'> & { used_at: string };
