import { liftRawJson, RawJson, HoldsRawJson, RawJsonError, restoreRawJson, type Lifted } from './raw-json';

class Row {
  index!: number;
  @RawJson({ optional: true })
  result?: unknown;
}

class Report {
  worker_id!: string;
  @RawJson({ object: true, optional: true })
  ctx?: unknown;
  @HoldsRawJson(() => Row)
  rows!: Row[];
}

describe('raw JSON fields', () => {
  it('lifts them out of the body and puts them back untouched, keys named constructor and __proto__ included', () => {
    const body = JSON.parse(
      '{"worker_id":"w","ctx":{"constructor":{"a":1}},"rows":[{"index":0,"result":{"__proto__":{"x":1},"constructor":2}},{"index":1}]}',
    ) as Record<string, unknown>;
    const lifted: Lifted[] = [];
    const rest = liftRawJson(body, Report, lifted) as Record<string, unknown>;
    expect(rest).toEqual({ worker_id: 'w', rows: [{ index: 0 }, { index: 1 }] });
    const dto = structuredClone(rest);
    restoreRawJson(dto, lifted);
    const sorted = (value: unknown): unknown =>
      JSON.parse(
        JSON.stringify(value, (_key, v: unknown) =>
          v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort()) : v,
        ),
      );
    expect(sorted(dto)).toEqual(sorted(body));
    expect(Object.keys((dto as { ctx: object }).ctx)).toEqual(['constructor']);
    expect(Object.keys((dto as { rows: { result: object }[] }).rows[0]!.result)).toEqual(['__proto__', 'constructor']);
  });

  it('says which field must be an object', () => {
    expect(() => liftRawJson({ worker_id: 'w', ctx: [1] }, Report)).toThrow(new RawJsonError('ctx must be an object'));
  });
});
