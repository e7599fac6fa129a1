import { loadConfig, parseDatabaseUrl } from '@noetl/config';
import type { INetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { findManifest, loadManifests, readRepoFile, type Manifest } from './support/deploy-files';
import { modelProblems } from './support/kubernetes-schema';
import { parseAllDocuments } from 'yaml';

const FILE = 'k8s/ha/postgres-cloudnativepg.yaml';
const text = readRepoFile(FILE);
const docs: Manifest[] = parseAllDocuments(text).map((d) => {
  const doc = d.toJSON() as Record<string, unknown>;
  return {
    file: FILE,
    apiVersion: String(doc.apiVersion),
    kind: String(doc.kind),
    name: String((doc.metadata as { name?: string }).name),
    doc,
  };
});
const cluster = docs.find((d) => d.kind === 'Cluster')!;
const spec = cluster.doc.spec as {
  instances: number;
  minSyncReplicas: number;
  maxSyncReplicas: number;
  bootstrap: { initdb: { database: string; owner: string; secret: { name: string } } };
  managed: { roles: { name: string; passwordSecret: { name: string } }[] };
  inheritedMetadata: { labels: Record<string, string> };
};
/** The DATABASE_URL examples the file's comments give. */
const urls = [...text.matchAll(/DATABASE_URL=(\S+)/g)].map((m) => m[1]!);

/** Issue 29: the CloudNativePG example of an HA ledger database, and the DATABASE_URLs it documents. */
describe('k8s/ha: the CloudNativePG example', () => {
  it('is a CloudNativePG Cluster of a primary and standbys, one of them synchronous', () => {
    expect(cluster.apiVersion).toBe('postgresql.cnpg.io/v1');
    expect(spec.instances).toBeGreaterThanOrEqual(2);
    expect(spec.minSyncReplicas).toBeGreaterThanOrEqual(1);
    expect(spec.maxSyncReplicas).toBeLessThan(spec.instances);
    expect(spec.bootstrap.initdb).toMatchObject({ database: 'noetl', owner: 'noetl_owner' });
  });

  it('has the Secrets it names, valid against the Kubernetes schema', () => {
    const secrets = docs.filter((d) => d.kind === 'Secret');
    expect(secrets.flatMap(modelProblems)).toEqual([]);
    const named = [spec.bootstrap.initdb.secret.name, ...spec.managed.roles.map((r) => r.passwordSecret.name)];
    expect(secrets.map((s) => s.name).sort()).toEqual([...named].sort());
  });

  it('labels its pods so that k8s/network-policy.yaml admits the control plane to them', () => {
    const policy = findManifest(loadManifests(), 'NetworkPolicy', 'noetl-postgres-ingress')!.doc as unknown as INetworkPolicy;
    for (const [key, value] of Object.entries(policy.spec!.podSelector.matchLabels ?? {}))
      expect(spec.inheritedMetadata.labels[key]).toBe(value);
  });

  it('documents DATABASE_URLs the configuration accepts: the rw Service, and instances listed with target_session_attrs=read-write', () => {
    expect(urls).toHaveLength(2);
    for (const url of urls) expect(loadConfig({ DATABASE_URL: url }).database.url?.reveal()).toBe(url);
    const [service, instances] = urls.map(parseDatabaseUrl) as [ReturnType<typeof parseDatabaseUrl>, ReturnType<typeof parseDatabaseUrl>];
    expect(service.hosts).toEqual([{ host: `${cluster.name}-rw`, port: 5432 }]);
    expect(instances.hosts).toHaveLength(spec.instances);
    expect(instances.targetSessionAttrs).toBe('read-write');
    // The runtime's login, as the rest of k8s/ uses it.
    for (const parsed of [service, instances]) expect(new URL(parsed.forHost(parsed.hosts[0]!)).username).toBe('noetl_app');
  });
});
