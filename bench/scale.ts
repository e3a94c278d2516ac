// The big-cluster workloads of the benchmarks: a crowded namespace (a gated Deployment among thousands of pods of
// other Deployments) and many namespaces of small Deployments (for -A). Created through the API like any workload;
// the controller manager makes the ReplicaSets and pods, the scheduler places them on the node stand-in's nodes.
import type { Kube, KubeObject } from '../test/cluster/kube.ts';
import { ensureNamespace, gatedApp, waitFor, type BenchContext } from './lib.ts';

export interface CrowdOptions {
  namespace: string;
  /** the gated Deployment the benchmarks follow */
  target: { name: string; replicas: number };
  /** other Deployments in the same namespace: `count` of them, pods in all */
  others: { count: number; pods: number };
}

export interface AllNamespacesOptions {
  prefix: string;
  namespaces: number;
  perNamespace: number;
  replicas: number;
}

/** The label of every Deployment and pod a benchmark creates in bulk, so they can be counted apart. */
export const BULK_LABEL = 'bench.kubectl-haptic.dev/bulk';

/** A plain Deployment (no readiness gate, no Service): the pods of other teams. */
export function plainApp(name: string, namespace: string, replicas: number, bulk: string): KubeObject {
  const labels = { app: name, [BULK_LABEL]: bulk };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace, labels },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels },
        spec: {
          terminationGracePeriodSeconds: 1,
          containers: [
            {
              name: 'app',
              image: 'example/worker:1',
              env: [{ name: 'MODE', value: 'batch' }],
              resources: { requests: { cpu: '1m', memory: '1Mi' } },
            },
          ],
        },
      },
    },
  };
}

/** Runs `fn` over items with at most `width` at a time. */
export async function inParallel<T>(items: T[], width: number, fn: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, items.length) }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}

/** Waits until every Deployment with the label is rolled out as kubectl rollout status means it. */
export async function waitAllRolledOut(
  kube: Kube,
  labelSelector: string,
  expected: number,
  timeoutMs: number,
): Promise<void> {
  let last = '';
  await waitFor(
    async () => {
      const all = await kube.list<any>('apps/v1', 'Deployment', { labelSelector });
      const done = all.filter((d) => {
        const s = d.status ?? {};
        const want = d.spec.replicas;
        return (
          (s.observedGeneration ?? 0) >= d.metadata.generation &&
          s.updatedReplicas === want &&
          s.replicas === want &&
          s.availableReplicas === want
        );
      }).length;
      last = `${done}/${expected}`;
      return all.length === expected && done === expected;
    },
    `${expected} Deployments labelled ${labelSelector} to roll out (last seen ${last})`,
    timeoutMs,
    2000,
  );
}

/** The crowded namespace: the gated target (with its Service) and `others.count` plain Deployments of `others.pods` pods in all. */
export async function deployCrowd(ctx: BenchContext, o: CrowdOptions): Promise<void> {
  const { kube } = ctx;
  await ensureNamespace(kube, o.namespace);
  const per = Math.ceil(o.others.pods / Math.max(1, o.others.count));
  const others = Array.from({ length: o.others.count }, (_, i) =>
    plainApp(`other-${i}`, o.namespace, Math.min(per, o.others.pods - per * i), 'crowd'),
  );
  ctx.log(
    `scale: ${o.namespace}: ${o.target.name} (${o.target.replicas} gated replicas) among ${o.others.count} other Deployments of ${o.others.pods} pods`,
  );
  const started = Date.now();
  const target = gatedApp({
    name: o.target.name,
    namespace: o.namespace,
    replicas: o.target.replicas,
    terminationGracePeriodSeconds: 1,
  });
  (target[0]!.metadata as { labels: Record<string, string> }).labels[BULK_LABEL] = 'crowd';
  await kube.apply([...target, ...others]);
  await waitAllRolledOut(kube, `${BULK_LABEL}=crowd`, o.others.count + 1, 900_000);
  ctx.log(`scale: ${o.namespace} ready (${((Date.now() - started) / 1000).toFixed(0)} s)`);
}

/** `namespaces` namespaces of `perNamespace` plain Deployments each, named web-0… (the same app in every namespace). */
export async function deployAllNamespaces(ctx: BenchContext, o: AllNamespacesOptions): Promise<string[]> {
  const { kube } = ctx;
  const names = Array.from({ length: o.namespaces }, (_, i) => `${o.prefix}${String(i).padStart(3, '0')}`);
  ctx.log(`scale: ${o.namespaces} namespaces × ${o.perNamespace} Deployments of ${o.replicas} replica(s)`);
  const started = Date.now();
  await inParallel(names, 8, async (ns) => {
    await ensureNamespace(kube, ns);
    await kube.apply(
      Array.from({ length: o.perNamespace }, (_, i) => plainApp(`web-${i}`, ns, o.replicas, 'all-namespaces')),
    );
  });
  await waitAllRolledOut(kube, `${BULK_LABEL}=all-namespaces`, o.namespaces * o.perNamespace, 900_000);
  ctx.log(`scale: ${o.namespaces} namespaces ready (${((Date.now() - started) / 1000).toFixed(0)} s)`);
  return names;
}
