import { mergeNextCall } from './merge-next-call';

describe('mergeNextCall', () => {
  const previous = {
    method: 'GET',
    url: 'http://api/items',
    params: { page: 1, pageSize: 10 },
    headers: { Authorization: 'Bearer t' },
    body: { filter: { kind: 'a' }, cursor: 'c1' },
    input: { job_id: 'j1', batch: 1 },
    timeout: 30,
  };

  it('deep-merges params and keeps the rest', () => {
    expect(mergeNextCall(previous, { params: { page: 2 } })).toEqual({ ...previous, params: { page: 2, pageSize: 10 } });
  });

  it('replaces the url and other scalars', () => {
    expect(mergeNextCall(previous, { url: 'http://api/items?page=2', timeout: 5 })).toMatchObject({
      url: 'http://api/items?page=2',
      timeout: 5,
    });
  });

  it('deep-merges headers, body and input', () => {
    const next = mergeNextCall(previous, {
      headers: { 'X-Cursor': 'c2' },
      body: { cursor: 'c2', filter: { since: 3 } },
      input: { batch: 2 },
    });
    expect(next).toEqual({
      ...previous,
      headers: { Authorization: 'Bearer t', 'X-Cursor': 'c2' },
      body: { filter: { kind: 'a', since: 3 }, cursor: 'c2' },
      input: { job_id: 'j1', batch: 2 },
    });
  });

  it.each<[string, string, string]>([
    ['args', 'input', 'batch'],
    ['payload', 'body', 'cursor'],
    ['json', 'body', 'cursor'],
    ['data', 'body', 'cursor'],
  ])('merges the alias %s into %s', (alias, key, field) => {
    const next = mergeNextCall(previous, { [alias]: { [field]: 'x' } });
    expect((next[key] as Record<string, unknown>)[field]).toBe('x');
    expect(next).not.toHaveProperty(alias);
  });

  it('maps endpoint to url', () => {
    expect(mergeNextCall(previous, { endpoint: 'http://api/next' }).url).toBe('http://api/next');
  });

  it('replaces a text body and lists', () => {
    expect(mergeNextCall({ body: 'a', params: { ids: [1, 2] } }, { body: { x: 1 }, params: { ids: [3] } })).toEqual({
      body: { x: 1 },
      params: { ids: [3] },
    });
  });

  it('adds keys the previous request did not have', () => {
    expect(mergeNextCall({ url: 'u' }, { params: { cursor: 'c' } })).toEqual({ url: 'u', params: { cursor: 'c' } });
  });

  it('ignores undefined and writes null', () => {
    expect(mergeNextCall(previous, { params: { page: undefined, pageSize: null }, url: undefined })).toMatchObject({
      url: 'http://api/items',
      params: { page: 1, pageSize: null },
    });
  });

  it('does not mutate its inputs', () => {
    const before = JSON.stringify(previous);
    const rendered = { params: { page: 2 } };
    mergeNextCall(previous, rendered);
    expect(JSON.stringify(previous)).toBe(before);
    expect(rendered).toEqual({ params: { page: 2 } });
  });
});
