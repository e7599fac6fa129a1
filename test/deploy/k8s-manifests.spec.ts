import { CONFIG_ENV_NAMES, loadConfig, ROLES } from '@noetl/config';
import type { IHorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import type { IPodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import type { INetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IProbe } from 'kubernetes-models/v1/Probe';
import type { IService } from 'kubernetes-models/v1/Service';
import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import type { IScaledObject } from '@kubernetes-models/keda/keda.sh/v1alpha1/ScaledObject';
import { parse as parseYaml } from 'yaml';
import {
  containerEnv,
  describe as describeManifest,
  findManifest,
  keyValues,
  KUSTOMIZATION_FILE,
  loadKustomization,
  loadManifests,
  loadWorkloads,
  manifestFiles,
  manifestsOfKind,
  readRepoFile,
  type Manifest,
  type Workload,
} from './support/deploy-files';
import { readDockerfile } from './support/dockerfile';
import { modelProblems, unknownFieldProblems } from './support/kubernetes-schema';

const manifests = loadManifests();
const workloads = loadWorkloads(manifests);
/** The long-running ones: every workload but the migration Job. */
const services = workloads.filter((w) => w.manifest.kind !== 'Job');
/** Init containers first, in the order the kubelet runs them. */
const containersOf = (w: Workload): IContainer[] => [...(w.pod.initContainers ?? []), ...w.pod.containers];
const selects = (selector: Record<string, string>, labels: Record<string, string>) =>
  Object.keys(selector).length > 0 && Object.entries(selector).every(([k, v]) => labels[k] === v);
const clone = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;
/** A worker of the default pool or of a named one (`worker-pool`). */
const isWorker = (w: Workload): boolean => ['worker', 'worker-pool'].includes(w.podLabels['app.kubernetes.io/component'] ?? '');
type ILabelSelector = NonNullable<INetworkPolicy['spec']>['podSelector'];
/** A NetworkPolicy's label selector on pod labels: matchLabels and `In` expressions (the only operator the manifests use). */
const selectsPod = (selector: ILabelSelector, labels: Record<string, string>): boolean =>
  Object.entries(selector.matchLabels ?? {}).every(([k, v]) => labels[k] === v) &&
  (selector.matchExpressions ?? []).every((e) => {
    if (e.operator !== 'In') throw new Error(`selector operator ${e.operator} is not modelled here`);
    return (e.values ?? []).includes(labels[e.key] ?? '');
  });

describe('k8s/ manifests', () => {
  describe('schemas', () => {
    it('every document validates against its Kubernetes (or KEDA) model schema', () => {
      expect(manifests.flatMap(modelProblems)).toEqual([]);
    });

    it('no document has a field its schema does not define', () => {
      expect(unknownFieldProblems(manifests)).toEqual([]);
    });

    it('the validators reject a wrong type, a misspelt field and an unknown kind (so a pass means something)', () => {
      const deployment = clone(findManifest(manifests, 'Deployment', 'noetl-api')!);
      const container = (deployment.doc as { spec: { template: { spec: { containers: Record<string, unknown>[] } } } }).spec.template.spec
        .containers[0]!;
      container.ports = [{ name: 'http', containerPort: 'eighty' }];
      expect(modelProblems(deployment).join('\n')).toMatch(/containerPort must be integer/);

      const scaled = clone(findManifest(manifests, 'ScaledObject', 'noetl-worker')!);
      (scaled.doc as { spec: Record<string, unknown> }).spec.minReplicaCont = 1;
      const probe = clone(findManifest(manifests, 'Deployment', 'noetl-worker')!);
      const probed = (probe.doc as { spec: { template: { spec: { containers: Record<string, unknown>[] } } } }).spec.template.spec
        .containers[0]!;
      probed.readinessProb = probed.readinessProbe;
      const problems = unknownFieldProblems([scaled, probe]).join('\n');
      expect(problems).toMatch(/minReplicaCont"?' does not exist/);
      expect(problems).toMatch(/readinessProb"?' does not exist in type 'IContainer'/);

      expect(modelProblems({ ...deployment, apiVersion: 'apps/v9' })).toEqual([expect.stringMatching(/no schema for apiVersion apps\/v9/)]);
    });
  });

  describe('kustomization', () => {
    const kustomization = loadKustomization();

    it('lists every manifest file of k8s/, and only those', () => {
      expect(kustomization.apiVersion).toBe('kustomize.config.k8s.io/v1beta1');
      expect(kustomization.kind).toBe('Kustomization');
      expect([...(kustomization.resources ?? [])].sort()).toEqual(manifestFiles());
      expect(manifestFiles()).not.toContain(KUSTOMIZATION_FILE);
    });

    it('installs into the namespace that k8s/ creates, which no manifest overrides', () => {
      const namespaces = manifestsOfKind(manifests, 'Namespace').map((m) => m.name);
      expect(namespaces).toEqual([kustomization.namespace]);
      const overridden = manifests.filter((m) => (m.doc.metadata as { namespace?: string }).namespace !== undefined);
      expect(overridden.map(describeManifest)).toEqual([]);
    });

    it("pins the one image every container runs, and the image user is the pods' user", () => {
      const images = new Set(workloads.flatMap((w) => containersOf(w).map((c) => c.image)));
      expect([...images]).toEqual([kustomization.images?.[0]?.name]);
      expect(kustomization.images).toHaveLength(1);
      expect(kustomization.images![0]!.newTag ?? kustomization.images![0]!.digest).toBeTruthy();
      const { uid, gid } = readDockerfile().runtimeUser();
      for (const w of workloads) {
        expect({ workload: w.manifest.name, ...w.pod.securityContext }).toMatchObject({
          workload: w.manifest.name,
          runAsNonRoot: true,
          runAsUser: uid,
          runAsGroup: gid,
        });
      }
    });
  });

  describe('environment', () => {
    const configNames = new Set<string>(CONFIG_ENV_NAMES);

    it('every variable a ConfigMap, a Secret or a container sets is one the runtime reads (CONFIG_ENV_NAMES)', () => {
      const set = [
        ...manifests
          .filter((m) => m.kind === 'ConfigMap' || m.kind === 'Secret')
          .flatMap((m) => Object.keys(keyValues(m)).map((name) => `${describeManifest(m)} ${name}`)),
        ...workloads.flatMap((w) => containersOf(w).flatMap((c) => (c.env ?? []).map((e) => `${describeManifest(w.manifest)} ${e.name}`))),
      ];
      expect(set.length).toBeGreaterThan(10);
      expect(set.filter((entry) => !configNames.has(entry.slice(entry.lastIndexOf(' ') + 1)))).toEqual([]);
    });

    it("each pod's environment passes the runtime's configuration validation, with the role its workload is named for", () => {
      for (const w of services) {
        // A named pool's workers are `worker-pool` (their own selector, PDB and scaler): the worker role.
        const component = w.podLabels['app.kubernetes.io/component'];
        const role = component === 'worker-pool' ? 'worker' : component;
        expect(ROLES).toContain(role);
        for (const podName of w.podNames) {
          const env = containerEnv(containersOf(w)[0]!, manifests, podName);
          expect({ pod: podName, roles: loadConfig(env).roles }).toEqual({ pod: podName, roles: [role] });
        }
      }
      const job = workloads.find((w) => w.manifest.kind === 'Job')!;
      expect(() => loadConfig(containerEnv(containersOf(job)[0]!, manifests, job.podNames[0]!))).not.toThrow();
    });

    it('each projector pod owns the shard of its ordinal, out of as many shards as replicas', () => {
      const projectors = workloads.filter((w) => w.manifest.kind === 'StatefulSet');
      expect(projectors.map((w) => w.manifest.name)).toEqual(['noetl-projector']);
      for (const w of projectors) {
        expect(w.replicas).toBeGreaterThan(0);
        const shards = w.podNames.map((pod) => loadConfig(containerEnv(containersOf(w)[0]!, manifests, pod)).projector);
        expect(shards).toEqual(w.podNames.map((_, ordinal) => ({ shardIndex: ordinal, shardCount: w.replicas })));
      }
    });

    it('the control plane runs as the runtime database role and a worker holds no DATABASE_URL nor encryption key; the api and the Job have both keys, a worker its own key only', () => {
      const envOf = (name: string) => {
        const w = workloads.find((workload) => workload.manifest.name === name)!;
        return containerEnv(containersOf(w).at(-1)!, manifests, w.podNames[0]!);
      };
      for (const w of services.filter((s) => !isWorker(s))) {
        expect({ [w.manifest.name]: new URL(envOf(w.manifest.name).DATABASE_URL!).username }).toEqual({ [w.manifest.name]: 'noetl_app' });
      }
      const workers = services.filter(isWorker);
      expect(workers.map((w) => w.manifest.name).sort()).toEqual(['noetl-worker', 'noetl-worker-batch']);
      for (const w of workers) {
        const held = Object.keys(envOf(w.manifest.name)).filter((name) => name === 'DATABASE_URL' || name === 'NOETL_ENCRYPTION_KEY');
        expect({ [w.manifest.name]: held }).toEqual({ [w.manifest.name]: [] });
      }
      const keys = keyValues(findManifest(manifests, 'Secret', 'noetl-keys')!);
      expect(Object.keys(keys).sort()).toEqual(['NOETL_BOOTSTRAP_ADMIN_KEY', 'NOETL_BOOTSTRAP_WORKER_KEY']);
      for (const name of ['noetl-api', 'noetl-migrate']) expect(envOf(name)).toMatchObject(keys);
      const worker = envOf('noetl-worker');
      expect(Object.keys(worker).filter((name) => name.startsWith('NOETL_BOOTSTRAP_'))).toEqual([]);
      expect(worker.NOETL_API_KEY).toBe(keys.NOETL_BOOTSTRAP_WORKER_KEY);
      for (const name of ['noetl-scheduler', 'noetl-projector'])
        expect(Object.keys(envOf(name)).filter((v) => v.includes('KEY') && v !== 'NOETL_ENCRYPTION_KEY')).toEqual([]);
    });

    it('a worker reports to the api Service by its name and port', () => {
      const worker = workloads.find((w) => w.manifest.name === 'noetl-worker')!;
      const api = findManifest<IService>(manifests, 'Service', 'noetl-api')!.doc;
      const env = containerEnv(containersOf(worker)[0]!, manifests, worker.podNames[0]!);
      expect(env.NOETL_SERVER_URL).toBe(`http://noetl-api:${api.spec!.ports![0]!.port}`);
    });
  });

  describe('probes, ports and Services', () => {
    /** A probe's port, resolved through the container's named ports. */
    const probePort = (container: IContainer, probe: IProbe): number | undefined => {
      const port = probe.httpGet?.port;
      return typeof port === 'number' ? port : container.ports?.find((p) => p.name === port)?.containerPort;
    };

    it('every service container probes /health/live (startup, liveness) and /health/ready (readiness) on the PORT it serves', () => {
      for (const w of services) {
        for (const container of containersOf(w)) {
          const port = Number(containerEnv(container, manifests, w.podNames[0]!).PORT);
          const probes = { startup: container.startupProbe, liveness: container.livenessProbe, readiness: container.readinessProbe };
          const seen = Object.fromEntries(
            Object.entries(probes).map(([kind, probe]) => [
              kind,
              probe && { path: probe.httpGet?.path, port: probePort(container, probe) },
            ]),
          );
          expect({ container: container.name, ...seen }).toEqual({
            container: container.name,
            startup: { path: '/health/live', port },
            liveness: { path: '/health/live', port },
            readiness: { path: '/health/ready', port },
          });
        }
      }
    });

    it('Prometheus scrapes /metrics on the container port (annotations)', () => {
      const scraped = services.filter((w) => w.annotations['prometheus.io/scrape'] === 'true');
      // Every role serves /metrics on its port (the api with its REST, the others on their probe server).
      expect(scraped.map((w) => w.manifest.name).sort()).toEqual([
        'noetl-api',
        'noetl-projector',
        'noetl-scheduler',
        'noetl-worker',
        'noetl-worker-batch',
      ]);
      for (const w of scraped) {
        const env = containerEnv(containersOf(w)[0]!, manifests, w.podNames[0]!);
        expect({ workload: w.manifest.name, port: w.annotations['prometheus.io/port'], path: w.annotations['prometheus.io/path'] }).toEqual(
          { workload: w.manifest.name, port: env.PORT, path: '/metrics' },
        );
      }
    });

    it('each Service selects exactly one workload and targets a port its containers name', () => {
      for (const service of manifestsOfKind<IService>(manifests, 'Service')) {
        const selected = services.filter((w) => selects(service.doc.spec!.selector ?? {}, w.podLabels));
        expect({ service: service.name, selects: selected.map((w) => w.manifest.name) }).toEqual({
          service: service.name,
          selects: [service.name],
        });
        const named = new Set(containersOf(selected[0]!).flatMap((c) => (c.ports ?? []).map((p) => p.name)));
        for (const port of service.doc.spec!.ports!) expect(named).toContain(port.targetPort);
      }
    });

    it('the projector StatefulSet is governed by a headless Service', () => {
      for (const set of manifestsOfKind<IStatefulSet>(manifests, 'StatefulSet')) {
        const service = findManifest<IService>(manifests, 'Service', set.doc.spec!.serviceName!);
        expect(service?.doc.spec!.clusterIP).toBe('None');
      }
    });
  });

  describe('network policies', () => {
    const policies = manifestsOfKind<INetworkPolicy>(manifests, 'NetworkPolicy');
    const workerEgress = findManifest<INetworkPolicy>(manifests, 'NetworkPolicy', 'noetl-worker-egress')!.doc.spec!;
    const postgresIngress = findManifest<INetworkPolicy>(manifests, 'NetworkPolicy', 'noetl-postgres-ingress')!.doc.spec!;
    const podsOf = (selector: ILabelSelector) =>
      workloads
        .filter((w) => selectsPod(selector, w.podLabels))
        .map((w) => w.manifest.name)
        .sort();
    const configured = (name: string) => keyValues(findManifest(manifests, 'ConfigMap', 'noetl-config')!)[name]!;

    it("are the workers' egress and PostgreSQL's ingress, and nothing else", () => {
      expect(policies.map((p) => [p.name, p.doc.spec!.policyTypes])).toEqual([
        ['noetl-worker-egress', ['Egress']],
        ['noetl-postgres-ingress', ['Ingress']],
      ]);
    });

    it('confine every worker pod, of every pool, and no other', () => {
      expect(podsOf(workerEgress.podSelector)).toEqual(
        services
          .filter(isWorker)
          .map((w) => w.manifest.name)
          .sort(),
      );
    });

    it('let a worker pod reach DNS, the api pods on their port, NATS on its port, and public addresses only', () => {
      const [dns, api, nats, world, ...more] = workerEgress.egress!;
      expect(more).toEqual([]);
      expect(dns!.ports!.map((p) => `${p.protocol}/${p.port}`).sort()).toEqual(['TCP/53', 'UDP/53']);
      expect(dns!.to).toEqual([
        {
          namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } },
          podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } },
        },
      ]);
      expect(podsOf(api!.to![0]!.podSelector!)).toEqual(['noetl-api']);
      const apiPort = workloads
        .find((w) => w.manifest.name === 'noetl-api')!
        .pod.containers[0]!.ports!.find((p) => p.name === 'http')!.containerPort;
      expect(api!.ports).toEqual([{ protocol: 'TCP', port: apiPort }]);
      // NATS_URL lists the cluster's nodes: one port for all of them.
      const natsPorts = [
        ...new Set(
          configured('NATS_URL')
            .split(',')
            .map((url) => Number(new URL(url).port)),
        ),
      ];
      expect(nats!.ports).toEqual(natsPorts.map((port) => ({ protocol: 'TCP', port })));
      expect(world!.ports).toBeUndefined();
      const [block, ...others] = world!.to!;
      expect(others).toEqual([]);
      // The private ranges (RFC 1918, shared address space) and link-local (the metadata service) are out of reach.
      expect(block!.ipBlock).toEqual({
        cidr: '0.0.0.0/0',
        except: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '100.64.0.0/10', '169.254.0.0/16'],
      });
    });

    it('admit to PostgreSQL exactly the pods that hold DATABASE_URL (the control plane and the migration Job), on its port', () => {
      const holders = workloads.filter((w) =>
        containersOf(w).some((c) => containerEnv(c, manifests, w.podNames[0]!).DATABASE_URL !== undefined),
      );
      const [rule, ...more] = postgresIngress.ingress!;
      expect(more).toEqual([]);
      expect(rule!.from!.flatMap((peer) => podsOf(peer.podSelector!))).toEqual(holders.map((w) => w.manifest.name).sort());
      expect(holders.map((w) => w.manifest.name).sort()).toEqual(['noetl-api', 'noetl-migrate', 'noetl-projector', 'noetl-scheduler']);
      const port = new URL(keyValues(findManifest(manifests, 'Secret', 'noetl-secrets')!).DATABASE_URL!).port;
      expect(rule!.ports).toEqual([{ protocol: 'TCP', port: Number(port) }]);
      // It guards the server, never a NoETL pod.
      expect(podsOf(postgresIngress.podSelector)).toEqual([]);
    });
  });

  describe('availability and scaling', () => {
    const hpas = manifestsOfKind<IHorizontalPodAutoscaler>(manifests, 'HorizontalPodAutoscaler');
    const scaledObjects = manifestsOfKind<IScaledObject>(manifests, 'ScaledObject');

    it('every service workload has a PodDisruptionBudget that selects its pods', () => {
      const budgets = manifestsOfKind<IPodDisruptionBudget>(manifests, 'PodDisruptionBudget');
      for (const w of services) {
        const covering = budgets.filter((b) => selects(b.doc.spec!.selector?.matchLabels ?? {}, w.podLabels));
        expect({ workload: w.manifest.name, budgets: covering.length }).toEqual({ workload: w.manifest.name, budgets: 1 });
      }
    });

    it('every container requests and limits CPU and memory', () => {
      for (const w of workloads) {
        for (const c of containersOf(w)) {
          expect({
            container: `${w.manifest.name}/${c.name}`,
            requests: Object.keys(c.resources?.requests ?? {}).sort(),
            limits: Object.keys(c.resources?.limits ?? {}).sort(),
          }).toEqual({ container: `${w.manifest.name}/${c.name}`, requests: ['cpu', 'memory'], limits: ['cpu', 'memory'] });
        }
      }
    });

    it('the api scales with an HPA, the workers with KEDA, and no Deployment has two autoscalers or a fixed count under one', () => {
      const targets = [
        ...hpas.map((h) => h.doc.spec!.scaleTargetRef),
        ...scaledObjects.map((s) => ({ kind: s.doc.spec.scaleTargetRef.kind ?? 'Deployment', name: s.doc.spec.scaleTargetRef.name })),
      ];
      expect(targets.map((t) => `${t.kind}/${t.name}`).sort()).toEqual([
        'Deployment/noetl-api',
        'Deployment/noetl-worker',
        'Deployment/noetl-worker-batch',
      ]);
      for (const target of targets) {
        const w = workloads.find((x) => x.manifest.kind === target.kind && x.manifest.name === target.name);
        expect({ target: target.name, exists: w !== undefined, replicas: w?.replicas }).toEqual({
          target: target.name,
          exists: true,
          replicas: undefined,
        });
      }
      expect(hpas.map((h) => h.doc.spec!.scaleTargetRef.name)).toEqual(['noetl-api']);
    });

    it('KEDA scales each worker pool on its own frame and command backlog, one worker per NOETL_WORKER_CONCURRENCY units', () => {
      const pools: (string | null)[] = [];
      for (const scaled of scaledObjects) {
        const spec = scaled.doc.spec;
        const [trigger] = spec.triggers;
        const worker = workloads.find((w) => w.manifest.name === spec.scaleTargetRef.name)!;
        const config = loadConfig(containerEnv(containersOf(worker)[0]!, manifests, worker.podNames[0]!));
        const pool = config.worker.pool ?? null;
        pools.push(pool);
        // The backlog of the workers' own pool, and no other's (pool="" is the work without a pool).
        const series = [...(trigger!.metadata.query ?? '').matchAll(/(noetl_(?:frame|command)_backlog_total)\{pool="([^"]*)"\}/g)];
        expect({ scaler: scaled.name, series: series.map((m) => `${m[1]}:${m[2]}`).sort() }).toEqual({
          scaler: scaled.name,
          series: [`noetl_command_backlog_total:${pool ?? ''}`, `noetl_frame_backlog_total:${pool ?? ''}`],
        });
        expect(trigger!.type).toBe('prometheus');
        expect(trigger!.metadata.serverAddress).toMatch(/^https?:\/\//);
        expect(Number(trigger!.metadata.threshold)).toBe(config.worker.concurrency);
        expect(spec.minReplicaCount).toBeGreaterThanOrEqual(pool === null ? 1 : 0);
        expect(spec.maxReplicaCount).toBeGreaterThan(spec.minReplicaCount!);
      }
      // One scaler per pool: the default workers and each named pool.
      expect(pools.sort()).toEqual(['batch', null]);
    });

    it('every pod is given longer to stop than its preStop pause plus NOETL_SHUTDOWN_GRACE_SECONDS', () => {
      for (const w of services) {
        for (const c of containersOf(w)) {
          const graceSeconds = loadConfig(containerEnv(c, manifests, w.podNames[0]!)).shutdown.graceMs / 1000;
          const command = c.lifecycle?.preStop?.exec?.command ?? [];
          const preStopSeconds = command[0] === 'sleep' ? Number(command[1]) : 0;
          expect(command.length === 0 || command[0] === 'sleep').toBe(true);
          // At least 5 s left to close connections after the drain.
          const room = (w.pod.terminationGracePeriodSeconds ?? 30) - preStopSeconds - graceSeconds;
          expect({ container: `${w.manifest.name}/${c.name}`, enough: room >= 5 }).toEqual({
            container: `${w.manifest.name}/${c.name}`,
            enough: true,
          });
        }
      }
    });
  });

  it('the migration Job runs `noetl migrate up` as the owner, then `noetl keys bootstrap` as the runtime, once, without retrying forever', () => {
    const jobs = workloads.filter((w) => w.manifest.kind === 'Job');
    expect(jobs.map((j) => j.manifest.name)).toEqual(['noetl-migrate']);
    const [migrate, keys] = containersOf(jobs[0]!);
    expect(jobs[0]!.pod.initContainers).toEqual([migrate]);
    expect([migrate!.args, keys!.args]).toEqual([
      ['migrate', 'up'],
      ['keys', 'bootstrap'],
    ]);
    expect([migrate!.command, keys!.command]).toEqual([undefined, undefined]);
    const envOf = (container: IContainer) => loadConfig(containerEnv(container, manifests, jobs[0]!.podNames[0]!));
    expect(new URL(envOf(migrate!).database.url!.reveal()).username).toBe('noetl_owner');
    expect(new URL(envOf(keys!).database.url!.reveal()).username).toBe('noetl_app');
    expect(jobs[0]!.pod.restartPolicy).toBe('Never');
    const spec = (jobs[0]!.manifest.doc as { spec: { backoffLimit?: number; activeDeadlineSeconds?: number } }).spec;
    expect(spec.backoffLimit).toBeGreaterThan(0);
    expect(spec.activeDeadlineSeconds).toBeGreaterThan(0);
  });

  describe('highly available NATS (issue 29)', () => {
    /** The NATS Helm chart's values for the cluster NATS_URL names (helm/, beside the manifests kustomize applies). */
    const values = parseYaml(readRepoFile('k8s/helm/nats-values.yaml')) as {
      config?: {
        cluster?: { enabled?: boolean; replicas?: number };
        jetstream?: { enabled?: boolean; fileStore?: { enabled?: boolean; pvc?: { enabled?: boolean; size?: string } } };
      };
      podTemplate?: { topologySpreadConstraints?: Record<string, { maxSkew?: number; whenUnsatisfiable?: string }> };
    };
    const shared = keyValues(findManifest(manifests, 'ConfigMap', 'noetl-config')!);

    it('the Helm values run an odd-sized cluster of at least 3 nodes, JetStream on persistent volumes, one node per Kubernetes node', () => {
      const { cluster, jetstream } = values.config ?? {};
      expect(cluster?.enabled).toBe(true);
      expect(cluster?.replicas).toBeGreaterThanOrEqual(3);
      expect(cluster!.replicas! % 2).toBe(1);
      expect(jetstream?.enabled).toBe(true);
      expect(jetstream?.fileStore).toMatchObject({ enabled: true, pvc: { enabled: true } });
      expect(jetstream?.fileStore?.pvc?.size).toMatch(/^\d+(Mi|Gi|Ti)$/);
      expect(values.podTemplate?.topologySpreadConstraints?.['kubernetes.io/hostname']).toEqual({
        maxSkew: 1,
        whenUnsatisfiable: 'DoNotSchedule',
      });
    });

    it('NATS_URL lists every node of that cluster and the streams and consumers are replicated on each', () => {
      const replicas = values.config!.cluster!.replicas!;
      const config = loadConfig(shared);
      expect(config.nats?.servers).toEqual(Array.from({ length: replicas }, (_, i) => `nats://nats-${i}.nats-headless:4222`));
      expect(config.nats?.replicas).toBe(replicas);
    });
  });

  it('names its documents uniquely per kind', () => {
    const keys = manifests.map((m: Manifest) => `${m.kind}/${m.name}`);
    expect(keys.filter((k, i) => keys.indexOf(k) !== i)).toEqual([]);
  });
});
