import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api, data } from '../api/client';
import { when } from '../components/format';

/** Registered playbooks; choosing one lists its versions, choosing a version shows its YAML. */
export function CatalogPage() {
  const [path, setPath] = useState<string>();
  const [version, setVersion] = useState<number>();
  const catalog = useQuery({ queryKey: ['catalog'], queryFn: () => data(api.GET('/api/catalog')) });
  const versions = useQuery({
    queryKey: ['catalog', path, 'versions'],
    queryFn: () => data(api.GET('/api/catalog/versions', { params: { query: { path: path! } } })),
    enabled: path !== undefined,
  });
  const source = useQuery({
    queryKey: ['playbook', path, version],
    queryFn: () => data(api.GET('/api/catalog/playbook', { params: { query: { path: path!, ...(version ? { version } : {}) } } })),
    enabled: path !== undefined,
  });

  return (
    <section className="catalog">
      <h1>Catalog</h1>
      {catalog.error && <p role="alert">{catalog.error.message}</p>}
      <div className="columns">
        <ul aria-label="Playbooks">
          {catalog.data?.entries.map((e) => (
            <li key={e.path}>
              <button type="button" aria-pressed={e.path === path} onClick={() => (setPath(e.path), setVersion(undefined))}>
                {e.path} (v{e.version})
              </button>
            </li>
          ))}
        </ul>
        {path && (
          <div>
            <h2>{path}</h2>
            <ul aria-label="Versions">
              {versions.data?.versions.map((v) => (
                <li key={v.version}>
                  <button
                    type="button"
                    aria-pressed={v.version === (version ?? source.data?.version)}
                    onClick={() => setVersion(v.version)}
                  >
                    version {v.version}
                  </button>{' '}
                  registered {when(v.created_at)}
                </li>
              ))}
            </ul>
            {source.data && <pre aria-label={`YAML of ${path} version ${source.data.version}`}>{source.data.content}</pre>}
          </div>
        )}
      </div>
    </section>
  );
}
