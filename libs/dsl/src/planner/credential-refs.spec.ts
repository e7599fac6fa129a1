import type { JsonObject } from '../model';
import { credentialRefs } from './credential-refs';

describe('credentialRefs', () => {
  it('names the credentials of tools, pipeline tasks, sinks, a cursor and keychain entries', () => {
    const spec: JsonObject = {
      tool: {
        tasks: [
          { name: 'a', kind: 'http', config: { url: 'http://x', auth: 'api_token' } },
          { name: 'b', kind: 'postgres', config: { auth: { credential: 'pg_main', type: 'postgres' }, query: 'select 1' } },
        ],
      },
      sink: { kind: 'table', auth: 'pg_sink', table: 't' },
      cursor: { kind: 'postgres', auth: { key: 'pg_queue' }, claim: 'select 1' },
      keychain: [
        { name: 'k', credential: 'vault_entry' },
        { name: 'static', kind: 'static', map: {} },
      ],
    };
    expect(credentialRefs(spec)).toEqual({ names: ['api_token', 'pg_main', 'pg_queue', 'pg_sink', 'vault_entry'], templated: false });
  });

  it('finds a name wherever a sink stands: a loop sink, a retry policy per-iteration sink', () => {
    const spec: JsonObject = {
      tool: { tasks: [{ kind: 'javascript', config: { code: 'return 1' } }] },
      loop: { sink: { tool: { kind: 'postgres', auth: 'loop_sink', table: 't' } } },
      retry: [
        { when: '{{ response.more }}', then: { per_iteration: { sink: { tool: { kind: 'postgres', auth: 'page_sink', table: 'p' } } } } },
      ],
    };
    expect(credentialRefs(spec)).toEqual({ names: ['loop_sink', 'page_sink'], templated: false });
  });

  it('says when a name is a template, which cannot be bound before the call', () => {
    expect(credentialRefs({ tool: { tasks: [{ kind: 'http', config: { auth: '{{ workload.cred }}' } }] } })).toEqual({
      names: [],
      templated: true,
    });
  });

  it('names nothing for work that uses no credential', () => {
    expect(credentialRefs({ tool: { tasks: [{ kind: 'noop', config: {} }] }, sink: null })).toEqual({ names: [], templated: false });
  });
});
