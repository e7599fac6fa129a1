import { RuntimeError } from '../runtime-error';

export const CREDENTIAL_NAME_MAX_LENGTH = 200;
const CREDENTIAL_NAME = /^[A-Za-z0-9_.:-]+$/;

/** Throws `invalid_request` unless `name` can name a credential: 1-200 of `A-Z a-z 0-9 _ . : -`. */
export function assertCredentialName(name: string): void {
  if (name.length === 0 || name.length > CREDENTIAL_NAME_MAX_LENGTH || !CREDENTIAL_NAME.test(name)) {
    throw new RuntimeError(
      'invalid_request',
      `credential name "${name.slice(0, CREDENTIAL_NAME_MAX_LENGTH)}" is invalid: use 1-${CREDENTIAL_NAME_MAX_LENGTH} characters of A-Z, a-z, 0-9, "_", ".", ":" and "-"`,
    );
  }
}
