import { MAX_INPUT_DEPTH, pathProblem, valueProblem } from './unsafe-input';

describe('unsafe input', () => {
  it.each([
    ['/api/credentials/..%2F', 'is not an id or a name'],
    ['/api/credentials/..', 'is not an id or a name'],
    ['/api/executions/a%2Fb', 'is not an id or a name'],
    ['/api/executions/a%5Cb', 'is not an id or a name'],
    ['/api/credentials/a%00b', 'holds a control character'],
    ['/api/credentials/a%0Ab', 'holds a control character'],
    ['/api/executions/%E0%A4%A', 'is not valid percent-encoded UTF-8'],
    ['/api/executions/%ED%A0%80', 'is not valid percent-encoded UTF-8'],
  ])('refuses the path %s', (path, message) => {
    expect(pathProblem(path)).toContain(message);
  });

  it('takes ordinary paths, also with encoded characters', () => {
    expect(pathProblem('/api/credentials/pg.main:1')).toBeUndefined();
    expect(pathProblem('/api/executions/123/events')).toBeUndefined();
    expect(pathProblem('/api/credentials/caf%C3%A9')).toBeUndefined();
  });

  it('names the place of a NUL, a lone surrogate or a bad key, and the depth past the limit', () => {
    expect(valueProblem({ payload: { a: ['x', 'y\u0000'] } }, 'body')).toBe(
      'body.payload.a[1]: text may not hold a NUL character or a lone UTF-16 surrogate',
    );
    expect(valueProblem({ payload: { '\ud800': 1 } }, 'body')).toBe(
      'body.payload: a key may not hold a NUL character or a lone UTF-16 surrogate',
    );
    let deep: unknown = 1;
    for (let i = 0; i < 10_000; i++) deep = [deep];
    expect(valueProblem({ payload: deep }, 'body')).toMatch(new RegExp(`nests deeper than ${MAX_INPUT_DEPTH} levels$`));
    expect(valueProblem(JSON.parse('{"payload": {"x": 1e400}}'), 'body')).toBe(
      'body.payload.x: the number is too large (JSON like 1e400 reads as infinity, which no database stores)',
    );
    expect(valueProblem({ payload: { constructor: { a: 1 }, ['__proto__']: 2, text: 'plain ✓ 😀' } }, 'body')).toBeUndefined();
  });
});
