import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { IJob } from 'kubernetes-models/batch/v1/Job';
import type { IConfigMap } from 'kubernetes-models/v1/ConfigMap';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IPodSpec } from 'kubernetes-models/v1/PodSpec';
import type { ISecret } from 'kubernetes-models/v1/Secret';
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import { parse, parseAllDocuments } from 'yaml';

/** The checkout these specs read (the deploy files live at its root). */
export const REPO_ROOT = join(__dirname, '..', '..', '..');
export const K8S_DIR = 'k8s';
export const KUSTOMIZATION_FILE = 'kustomization.yaml';

export function readRepoFile(path: string): string {
  return readFileSync(join(REPO_ROOT, path), 'utf8');
}

// ---------------------------------------------------------------- Kubernetes

/** One document of a file in k8s/, as written. */
export interface Manifest {
  /** e.g. `k8s/api.yaml`. */
  file: string;
  apiVersion: string;
  kind: string;
  name: string;
  doc: Record<string, unknown>;
}

/** `kind/name (file)`, for messages. */
export function describe(manifest: Manifest): string {
  return `${manifest.kind}/${manifest.name} (${manifest.file})`;
}

function parseYaml(file: string): unknown[] {
  const docs = parseAllDocuments(readRepoFile(file));
  const values: unknown[] = [];
  for (const doc of Array.isArray(docs) ? docs : [docs]) {
    if (doc.errors.length) throw new Error(`${file}: ${doc.errors.map((e) => e.message).join('; ')}`);
    const value: unknown = doc.toJS();
    if (value !== null && value !== undefined) values.push(value);
  }
  return values;
}

/** The YAML files of k8s/ other than the kustomization. */
export function manifestFiles(): string[] {
  return readdirSync(join(REPO_ROOT, K8S_DIR))
    .filter((name) => /\.ya?ml$/.test(name) && name !== KUSTOMIZATION_FILE)
    .sort();
}

/** Every document of every manifest file in k8s/. */
export function loadManifests(): Manifest[] {
  return manifestFiles().flatMap((name) => {
    const file = `${K8S_DIR}/${name}`;
    return parseYaml(file).map((value, index) => {
      if (typeof value !== 'object' || value === null || Array.isArray(value))
        throw new Error(`${file} document ${index + 1} is not an object`);
      const doc = value as Record<string, unknown>;
      const metadata = doc.metadata as { name?: unknown } | undefined;
      return { file, apiVersion: String(doc.apiVersion), kind: String(doc.kind), name: String(metadata?.name), doc };
    });
  });
}

export interface Kustomization {
  apiVersion: string;
  kind: string;
  namespace?: string;
  resources?: string[];
  images?: { name: string; newName?: string; newTag?: string; digest?: string }[];
}

export function loadKustomization(): Kustomization {
  return parse(readRepoFile(`${K8S_DIR}/${KUSTOMIZATION_FILE}`)) as Kustomization;
}

/** The documents of a kind, typed as that kind's model (the schema specs check that they are). */
export function manifestsOfKind<T>(manifests: Manifest[], kind: string): (Manifest & { doc: T })[] {
  return manifests.filter((m): m is Manifest & { doc: T } => m.kind === kind);
}

export function findManifest<T>(manifests: Manifest[], kind: string, name: string): (Manifest & { doc: T }) | undefined {
  return manifestsOfKind<T>(manifests, kind).find((m) => m.name === name);
}

/** A pod-making object (Deployment, StatefulSet, Job) with what the specs read of it. */
export interface Workload {
  manifest: Manifest;
  podLabels: Record<string, string>;
  annotations: Record<string, string>;
  pod: IPodSpec;
  /** Undefined for a Deployment whose count an autoscaler owns, and for a Job. */
  replicas?: number;
  /** The names its pods get: a StatefulSet's are `<name>-<ordinal>`; others are a sample. */
  podNames: string[];
}

export function loadWorkloads(manifests: Manifest[]): Workload[] {
  const controllers = [
    ...manifestsOfKind<IDeployment>(manifests, 'Deployment'),
    ...manifestsOfKind<IStatefulSet>(manifests, 'StatefulSet'),
  ];
  const jobs = manifestsOfKind<IJob>(manifests, 'Job');
  return [
    ...controllers.map((manifest): Workload => {
      const spec = manifest.doc.spec!;
      return {
        manifest,
        podLabels: spec.template.metadata?.labels ?? {},
        annotations: spec.template.metadata?.annotations ?? {},
        pod: spec.template.spec!,
        replicas: spec.replicas,
        podNames:
          manifest.kind === 'StatefulSet'
            ? Array.from({ length: spec.replicas ?? 1 }, (_, ordinal) => `${manifest.name}-${ordinal}`)
            : [`${manifest.name}-5d8c7b9f4-x2k7q`],
      };
    }),
    ...jobs.map((manifest): Workload => {
      const template = manifest.doc.spec!.template;
      return {
        manifest,
        podLabels: template.metadata?.labels ?? {},
        annotations: template.metadata?.annotations ?? {},
        pod: template.spec!,
        podNames: [`${manifest.name}-7xq2p`],
      };
    }),
  ];
}

/**
 * The api's readiness probe timeout in the shipped manifests, in ms: a
 * readiness wait past it fails the probe and counts toward taking the pod
 * out of service (the bound the e2e specs that poll /health/ready hold).
 */
export function apiReadinessTimeoutMs(): number {
  const api = loadWorkloads(loadManifests()).find((workload) => workload.manifest.name === 'noetl-api');
  const seconds = api?.pod.containers[0]?.readinessProbe?.timeoutSeconds;
  if (seconds === undefined) throw new Error('k8s/ has no noetl-api Deployment with a readiness probe timeout');
  return seconds * 1000;
}

/**
 * The environment a container starts with, as the kubelet builds it: every
 * `envFrom` source in order, then `env` (which wins). `metadata.name` field
 * references resolve to `podName`, `secretKeyRef`s to that key of a Secret
 * of k8s/; any other `valueFrom` is refused, so a spec notices when one is added.
 */
export function containerEnv(container: IContainer, manifests: Manifest[], podName: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const source of container.envFrom ?? []) {
    const name = source.configMapRef?.name ?? source.secretRef?.name;
    const kind = source.configMapRef ? 'ConfigMap' : 'Secret';
    const found = manifests.find((m) => m.kind === kind && m.name === name);
    if (!found) throw new Error(`container ${container.name}: envFrom names ${kind} ${name}, which k8s/ does not define`);
    Object.assign(env, keyValues(found));
  }
  for (const variable of container.env ?? []) {
    if (variable.value !== undefined) env[variable.name] = variable.value;
    else if (variable.valueFrom?.fieldRef?.fieldPath === 'metadata.name') env[variable.name] = podName;
    else if (variable.valueFrom?.secretKeyRef) env[variable.name] = secretValue(manifests, variable.valueFrom.secretKeyRef, container.name);
    else throw new Error(`container ${container.name}: ${variable.name} has a valueFrom these specs do not model`);
  }
  return env;
}

function secretValue(manifests: Manifest[], ref: { name?: string; key: string }, container: string): string {
  const secret = manifests.find((m) => m.kind === 'Secret' && m.name === ref.name);
  const value = secret ? keyValues(secret)[ref.key] : undefined;
  if (value === undefined) throw new Error(`container ${container}: secretKeyRef ${ref.name}/${ref.key}, which k8s/ does not define`);
  return value;
}

/** The keys and values of a ConfigMap or Secret (`data` of a Secret is base64). */
export function keyValues(manifest: Manifest): Record<string, string> {
  if (manifest.kind === 'ConfigMap') return { ...(manifestsOfKind<IConfigMap>([manifest], 'ConfigMap')[0]!.doc.data ?? {}) };
  const secret = manifestsOfKind<ISecret>([manifest], 'Secret')[0]!.doc;
  const decoded = Object.fromEntries(Object.entries(secret.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]));
  return { ...decoded, ...(secret.stringData ?? {}) };
}

// ------------------------------------------------------------------- Compose

export const COMPOSE_FILE = 'docker-compose.yml';
export const ENV_EXAMPLE_FILE = '.env.example';

export interface ComposeService {
  build?: string | { context: string };
  image?: string;
  command?: string[];
  env_file?: string | string[];
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  ports?: string[];
  container_name?: string;
  healthcheck?: { test: string[] };
  volumes?: string[];
  stop_grace_period?: string;
  profiles?: string[];
  entrypoint?: string[];
  networks?: string[];
}

export interface ComposeFile {
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
  networks?: Record<string, unknown>;
}

/** The opt-in override that points the NoETL services at the `s3` profile's MinIO. */
export const COMPOSE_S3_FILE = 'docker-compose.s3.yml';

/** docker-compose.yml (or another compose file) with its YAML merge keys (`<<: *noetl`) applied, as compose reads it. */
export function loadCompose(file: string = COMPOSE_FILE): ComposeFile {
  return parse(readRepoFile(file), { merge: true }) as ComposeFile;
}

export interface EnvFileEntry {
  name: string;
  value: string;
  line: number;
  /** A comment stands in the block of lines this assignment belongs to. */
  documented: boolean;
}

/**
 * An env file as compose reads it: `NAME=value` lines (the value taken
 * literally), `#` comments, blank lines. Anything else is an error, so a line
 * compose would misread fails here first.
 */
export function parseEnvFile(text: string, file: string): EnvFileEntry[] {
  const entries: EnvFileEntry[] = [];
  let blockHasComment = false;
  let block: EnvFileEntry[] = [];
  const closeBlock = () => {
    for (const entry of block) entry.documented = blockHasComment;
    block = [];
    blockHasComment = false;
  };
  text.split('\n').forEach((raw, index) => {
    const line = raw.trim();
    if (line === '') return closeBlock();
    if (line.startsWith('#')) {
      blockHasComment = true;
      return;
    }
    const match = /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(line);
    if (!match) throw new Error(`${file}:${index + 1}: not NAME=value: ${raw}`);
    const entry = { name: match[1]!, value: match[2]!, line: index + 1, documented: false };
    entries.push(entry);
    block.push(entry);
  });
  closeBlock();
  return entries;
}

export function envFileValues(entries: EnvFileEntry[]): Record<string, string> {
  return Object.fromEntries(entries.map((e) => [e.name, e.value]));
}

/** The environment variables that only the postgres container reads (the official image's). */
export const POSTGRES_ENV_NAMES = ['POSTGRES_USER', 'POSTGRES_PASSWORD', 'POSTGRES_DB'] as const;

/** The compose services that run the NoETL image (the rest are the services it talks to). */
export const NOETL_COMPOSE_SERVICES = ['migrate', 'keys', 'api', 'scheduler', 'worker', 'projector'] as const;

/** Seconds of a compose duration such as `45s`, `1m30s`. */
export function durationSeconds(value: string): number {
  const units: Record<string, number> = { h: 3600, m: 60, s: 1, ms: 0.001 };
  const parts = [...value.matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g)];
  if (!parts.length || parts.map((p) => p[0]).join('') !== value) throw new Error(`not a duration: ${value}`);
  return parts.reduce((sum, p) => sum + Number(p[1]) * units[p[2]!]!, 0);
}
