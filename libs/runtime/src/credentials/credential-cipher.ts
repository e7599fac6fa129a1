import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Secret } from '@noetl/config';
import type { JsonObject } from '@noetl/event-kernel';
import { RuntimeError } from '../runtime-error';

/** What one credential looks like at rest. */
export interface SealedCredential {
  ciphertext: Buffer;
  iv: Buffer;
  authTag: Buffer;
}

const ALGORITHM = 'aes-256-gcm';
/** 96 bits: the IV size GCM is specified for; a fresh random one per write. */
const IV_BYTES = 12;
const KEY_BYTES = 32;

/**
 * AES-256-GCM over a credential's JSON data. The associated data binds each
 * ciphertext to its row (tenant, organization, name, type), so a ciphertext
 * copied onto another row fails authentication instead of decrypting.
 */
export class CredentialCipher {
  private constructor(private readonly key: Buffer) {}

  /** `key` as `loadConfig` leaves NOETL_ENCRYPTION_KEY: 32 bytes as 64 hex characters. */
  static fromKey(key: Secret): CredentialCipher {
    const hex = key.reveal();
    if (!/^[0-9a-fA-F]{64}$/.test(hex)) {
      throw new RuntimeError('credentials_locked', `the credential encryption key must be ${KEY_BYTES} bytes as 64 hex characters`);
    }
    return new CredentialCipher(Buffer.from(hex, 'hex'));
  }

  seal(data: JsonObject, associatedData: string): SealedCredential {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv(ALGORITHM, this.key, iv);
    cipher.setAAD(Buffer.from(associatedData, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(JSON.stringify(data), 'utf8'), cipher.final()]);
    return { ciphertext, iv, authTag: cipher.getAuthTag() };
  }

  /** Throws `credentials_locked` when the key (or the row) is not the one the data was sealed with. */
  open(sealed: SealedCredential, associatedData: string, name: string): JsonObject {
    const decipher = createDecipheriv(ALGORITHM, this.key, sealed.iv);
    decipher.setAAD(Buffer.from(associatedData, 'utf8'));
    decipher.setAuthTag(sealed.authTag);
    let plaintext: string;
    try {
      plaintext = Buffer.concat([decipher.update(sealed.ciphertext), decipher.final()]).toString('utf8');
    } catch {
      throw new RuntimeError(
        'credentials_locked',
        `credential "${name}" cannot be decrypted: NOETL_ENCRYPTION_KEY is not the key it was stored with (or the row was altered)`,
      );
    }
    return JSON.parse(plaintext) as JsonObject;
  }
}
