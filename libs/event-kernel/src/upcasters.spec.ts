import type { EventEnvelope } from './envelope';
import { UpcasterError, UpcasterRegistry } from './upcasters';

const v1 = { schema_name: 'noetl.call.done', schema_version: 1, payload: { took: 5 } } as unknown as EventEnvelope;

describe('UpcasterRegistry', () => {
  it('applies a chain of upcasters in version order', () => {
    const registry = new UpcasterRegistry()
      .register({
        schemaName: 'noetl.call.done',
        fromVersion: 2,
        toVersion: 3,
        upcast: (e) => ({ ...e, schema_version: 3, meta: { v3: true } }),
      })
      .register({
        schemaName: 'noetl.call.done',
        fromVersion: 1,
        toVersion: 2,
        upcast: (e) => ({ ...e, schema_version: 2, payload: { duration_ms: (e.payload as { took: number }).took } as never }),
      });
    const out = registry.upcast(v1);
    expect(out.schema_version).toBe(3);
    expect(out.payload).toEqual({ duration_ms: 5 });
    expect(out.meta).toEqual({ v3: true });
  });

  it('has a digest independent of registration order', () => {
    const a = { schemaName: 'x', fromVersion: 1, toVersion: 2, upcast: (e: EventEnvelope) => ({ ...e, schema_version: 2 }) };
    const b = { schemaName: 'y', fromVersion: 1, toVersion: 2, upcast: (e: EventEnvelope) => ({ ...e, schema_version: 2 }) };
    expect(new UpcasterRegistry().register(a).register(b).digest()).toBe(new UpcasterRegistry().register(b).register(a).digest());
    expect(new UpcasterRegistry().register(a).digest()).not.toBe(new UpcasterRegistry().digest());
  });

  it('refuses upcasters that do not advance the version or break their promise', () => {
    expect(() => new UpcasterRegistry().register({ schemaName: 'x', fromVersion: 2, toVersion: 2, upcast: (e) => e })).toThrow(
      UpcasterError,
    );
    const liar = new UpcasterRegistry().register({ schemaName: 'noetl.call.done', fromVersion: 1, toVersion: 2, upcast: (e) => e });
    expect(() => liar.upcast(v1)).toThrow('returned version 1, promised 2');
  });

  it('refuses two upcasters for one version', () => {
    const u = { schemaName: 'x', fromVersion: 1, toVersion: 2, upcast: (e: EventEnvelope) => e };
    expect(() => new UpcasterRegistry().register(u).register(u)).toThrow('registered twice');
  });
});
