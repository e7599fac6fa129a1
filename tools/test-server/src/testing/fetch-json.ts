/** Spec helper: one HTTP call through Node's global `fetch`, with the JSON body parsed. */
export interface JsonResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
}

export async function fetchJson<T = unknown>(url: string, init?: RequestInit): Promise<JsonResponse<T>> {
  const response = await fetch(url, init);
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: (text === '' ? undefined : JSON.parse(text)) as T };
}

export const postJson = <T = unknown>(url: string): Promise<JsonResponse<T>> => fetchJson<T>(url, { method: 'POST' });
