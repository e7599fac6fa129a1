import { isRecord } from '../shared/read-config';
import { invalidConfig } from '../shared/tool-errors';

/**
 * Credential data -> request headers: `{headers: {...}}` as given; type `bearer` (or a
 * `token` / `access_token`) -> `Authorization: Bearer`; type `basic` (or `username` +
 * `password`) -> `Authorization: Basic`; type `api_key` (`key`/`value`/`api_key`, header
 * `header`, default X-API-Key). `label` names the credential in messages; values never do.
 */
export function authHeaders(data: Record<string, unknown>, label: string): Record<string, string> {
  const type = typeof data.type === 'string' ? data.type.toLowerCase() : undefined;
  const headers: Record<string, string> = {};
  if (isRecord(data.headers)) {
    for (const [key, value] of Object.entries(data.headers)) if (value !== undefined && value !== null) headers[key] = String(value);
  }
  const token = firstString(data, ['token', 'access_token', 'bearer_token']);
  const username = firstString(data, ['username', 'user']);
  const password = firstString(data, ['password']);
  const apiKey = firstString(data, ['api_key', 'key', 'value']);
  if ((type === 'bearer' || type === undefined || type === 'token' || type === 'oauth2') && token !== undefined) {
    headers.Authorization = `Bearer ${token}`;
  } else if ((type === 'basic' || type === undefined) && username !== undefined && password !== undefined) {
    headers.Authorization = `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
  } else if ((type === 'api_key' || type === 'apikey' || type === 'header') && apiKey !== undefined) {
    headers[firstString(data, ['header', 'header_name']) ?? 'X-API-Key'] = apiKey;
  }
  if (Object.keys(headers).length === 0) {
    throw invalidConfig('http', `${label} has no usable auth fields (expected headers, token, username/password or api_key)`);
  }
  return headers;
}

function firstString(data: Record<string, unknown>, keys: readonly string[]): string | undefined {
  for (const key of keys) {
    const value = data[key];
    if (typeof value === 'string' && value !== '') return value;
    if (typeof value === 'number') return String(value);
  }
  return undefined;
}
