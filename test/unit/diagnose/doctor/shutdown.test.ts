// DR201–DR206: how serving containers and HAProxy stop, each trap on the healthy fixture and its fixed form.
import { describe, expect, it } from 'vitest';
import type { Container, Deployment, KubeObject, StatefulSet } from '../../../../src/types/kube.ts';
import {
  app,
  GOOD_CFG,
  haproxy,
  haproxyConfigMap,
  haproxyPdb,
  haproxyService,
  ids,
  one,
  pdb,
  staticReport,
  web,
  webService,
} from '../../fixtures/doctor.ts';

const hc = (d: Deployment) => d.spec.template.spec.containers[0] as Container;
const preStop = (d: Deployment, line: string | undefined) => {
  if (line === undefined) delete hc(d).lifecycle;
  else hc(d).lifecycle = { preStop: { exec: { command: ['sh', '-c', line] } } };
};
const proxyWith = (patch: (d: Deployment) => void, cfg = GOOD_CFG): KubeObject[] => [
  haproxy(patch),
  haproxyService(),
  haproxyPdb(),
  haproxyConfigMap(cfg),
];
const webWith = (patch: (d: Deployment) => void): KubeObject[] => [web(patch), webService(), pdb()];
const NO_HARD_STOP = GOOD_CFG.replace('  hard-stop-after 15s\n', '');
/** A preStop that ends in time (25s) and a drain that may not: signal at 10s + hard-stop-after 25s. */
const drainPast = (patch: (d: Deployment) => void) =>
  proxyWith(
    (d) => {
      preStop(d, 'sleep 10; kill -USR1 1; sleep 15');
      patch(d);
    },
    GOOD_CFG.replace('hard-stop-after 15s', 'hard-stop-after 25s'),
  );

type Row = [string, string, string | undefined, string, () => KubeObject[], () => KubeObject[]];
const rows: Row[] = [
  [
    'no preStop on a serving app container',
    'DR201',
    'app',
    'warning',
    () => webWith((d) => delete app(d).lifecycle),
    () => webWith(() => {}),
  ],
  [
    'no preStop on HAProxy',
    'DR201',
    'haproxy',
    'error',
    () => proxyWith((d) => preStop(d, undefined)),
    () => proxyWith(() => {}),
  ],
  [
    'a preStop as long as the grace period',
    'DR202',
    'preStop',
    'error',
    () => webWith((d) => (app(d).lifecycle = { preStop: { sleep: { seconds: 30 } } })),
    () => webWith((d) => (app(d).lifecycle = { preStop: { sleep: { seconds: 25 } } })),
  ],
  [
    'a drain that ends after the grace period (default 30s)',
    'DR202',
    'drain',
    'error',
    () => drainPast((d) => delete d.spec.template.spec.terminationGracePeriodSeconds),
    () => drainPast((d) => (d.spec.template.spec.terminationGracePeriodSeconds = 40)),
  ],
  [
    "the seed's 30s preStop in the default 30s grace period",
    'DR202',
    'preStop',
    'error',
    () => proxyWith((d) => delete d.spec.template.spec.terminationGracePeriodSeconds),
    () => proxyWith(() => {}),
  ],
  [
    'HAProxy gets SIGTERM from an image without STOPSIGNAL',
    'DR203',
    'sigterm',
    'error',
    () =>
      proxyWith((d) => {
        hc(d).image = 'example/haproxy-custom:1';
        preStop(d, 'sleep 10');
      }),
    () =>
      proxyWith((d) => {
        hc(d).image = 'example/haproxy-custom:1';
        preStop(d, 'sleep 10; kill -USR1 1; sleep 20');
      }),
  ],
  [
    'a preStop that signals and returns, SIGTERM next',
    'DR203',
    'noWait',
    'error',
    () =>
      proxyWith((d) => {
        hc(d).image = 'example/haproxy-custom:1';
        preStop(d, 'sleep 10; kill -USR1 1');
      }),
    () =>
      proxyWith((d) => {
        hc(d).image = 'example/haproxy-custom:1';
        preStop(d, 'sleep 10; kill -USR1 1');
        hc(d).lifecycle!.stopSignal = 'SIGUSR1';
      }),
  ],
  [
    'a preStop that signals before it sleeps (seed 004)',
    'DR204',
    'haproxy',
    'error',
    () => proxyWith((d) => preStop(d, 'kill -USR1 1; sleep 30')),
    () => proxyWith((d) => preStop(d, 'sleep 10; kill -USR1 1; sleep 20')),
  ],
  [
    'an app preStop that signals before it sleeps',
    'DR204',
    'app',
    'error',
    () =>
      webWith((d) => (app(d).lifecycle = { preStop: { exec: { command: ['sh', '-c', 'kill -TERM 1; sleep 10'] } } })),
    () => webWith(() => {}),
  ],
  [
    'no hard-stop-after',
    'DR205',
    undefined,
    'warning',
    () => proxyWith(() => {}, NO_HARD_STOP),
    () => proxyWith(() => {}),
  ],
];

describe('shutdown: trap and fixed form', () => {
  it.each(rows)('%s → %s', (_, id, variant, severity, trap, fixed) => {
    const found = one(staticReport(trap()), id);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ variant, severity });
    expect(ids(staticReport(fixed()))).not.toContain(id);
  });
});

describe('evidence', () => {
  it('DR202 shows the timeline: preStop, signal, hard-stop-after, stop signal, SIGKILL', () => {
    const [f] = one(staticReport(drainPast((d) => (d.spec.template.spec.terminationGracePeriodSeconds = 30))), 'DR202');
    expect(f?.title).toBe(
      'HAProxy container haproxy: the drain may run until 35s (soft stop at 10s + hard-stop-after 25s), not before terminationGracePeriodSeconds (30s): SIGKILL cuts it',
    );
    expect(f?.fix).toBe(
      'raise terminationGracePeriodSeconds above 35s, or shorten the preStop wait or hard-stop-after',
    );
    expect(f?.evidence).toEqual([
      'configmap/haproxy (haproxy.cfg) line 2: hard-stop-after 25s',
      'SIGUSR1 from the preStop kill -USR1 1',
      't=0s pod deleted: endpoints start to drop it; preStop starts (exec ["sh","-c","sleep 10; kill -USR1 1; sleep 15"])',
      't=10s kill -USR1 1: HAProxy stops listening and drains',
      't=25s preStop ends: the kubelet sends SIGUSR1 (image haproxy:3.0 sets STOPSIGNAL SIGUSR1)',
      't=30s terminationGracePeriodSeconds 30: SIGKILL',
      't=35s hard-stop-after 25s: HAProxy exits, closing the connections still open',
    ]);
  });

  it('the seed before its fix: no preStop on HAProxy with SIGTERM, and master-worker mode named', () => {
    const report = staticReport(
      proxyWith((d) => {
        hc(d).image = 'haproxy-ha/haproxy:2.4';
        hc(d).args = ['-W', '-f', '/usr/local/etc/haproxy/haproxy.cfg'];
        preStop(d, undefined);
      }),
    );
    expect(one(report, 'DR201')[0]?.title).toBe(
      'HAProxy container haproxy has no preStop: it gets SIGTERM at once and hard-stops (established connections are reset), while endpoints still route new connections to it',
    );
    expect(one(report, 'DR201')[0]?.evidence).toEqual([
      'container haproxy: no lifecycle.preStop',
      'stop signal: image haproxy-ha/haproxy:2.4 is not known to set STOPSIGNAL, so SIGTERM',
      ...one(report, 'DR201')[0]!.evidence.filter((e) => e.startsWith('service/')),
      'master-worker mode: the master forwards SIGTERM to its workers (a hard stop) and SIGUSR1 (a soft stop) unchanged',
    ]);
    // one missing hook is one error: DR201's fix is the preStop that sends SIGUSR1, so DR203 does not say it again
    expect(one(report, 'DR203')).toEqual([]);
  });

  it('a STOPSIGNAL SIGUSR1 image needs no kill in the preStop, a wait is enough', () => {
    const report = staticReport(proxyWith((d) => preStop(d, 'sleep 10')));
    expect(ids(report)).toEqual([]);
  });

  it('DR205 points at the ConfigMap and says how much time is left', () => {
    const [f] = one(staticReport(proxyWith(() => {}, NO_HARD_STOP)), 'DR205');
    expect(f?.object).toEqual({ kind: 'ConfigMap', namespace: 'shop', name: 'haproxy' });
    expect(f?.fix).toBe(
      'add "hard-stop-after" to the global section, shorter than 50s (what is left of terminationGracePeriodSeconds after HAProxy gets SIGUSR1)',
    );
  });

  it('a shell preStop with loops is not judged, and a note says so', () => {
    const report = staticReport(proxyWith((d) => preStop(d, 'kill -USR1 1; while pidof haproxy; do sleep 1; done')));
    expect(ids(report)).not.toContain('DR204');
    expect(report.notes).toContain(
      'deployment shop/haproxy: container haproxy\'s preStop has loops or conditionals (exec ["sh","-c","kill -USR1 1; while pidof haproxy; do sleep 1; done"]); DR202–DR204 not judged',
    );
  });

  it('a container that serves no Service port needs no preStop', () => {
    expect(
      ids(
        staticReport([
          web((d) => {
            delete app(d).lifecycle;
            delete d.spec.template.spec.readinessGates;
          }),
          pdb(),
        ]),
      ),
    ).not.toContain('DR201');
  });
});

describe('DR206: HAProxy notices a stopped server later than the app keeps serving', () => {
  const backend = (preStopSeconds: number): KubeObject[] => [
    {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 'web-db', namespace: 'shop' },
      spec: {
        selector: { matchLabels: { app: 'db' } },
        template: {
          metadata: { labels: { app: 'db' } },
          spec: {
            containers: [
              {
                name: 'db',
                image: 'db:1',
                ports: [{ containerPort: 8080 }],
                lifecycle: { preStop: { sleep: { seconds: preStopSeconds } } },
              },
            ],
          },
        },
      },
    } as StatefulSet,
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web-headless', namespace: 'shop' },
      spec: { clusterIP: 'None', selector: { app: 'db' }, ports: [{ port: 8080 }] },
    } as KubeObject,
  ];
  const slow = GOOD_CFG.replace('inter 1s fall 2', 'inter 3s fall 3');

  it.each([
    ['checks take 9s, the app serves 5s: found', slow, 5, true],
    ['checks take 2s, the app serves 5s: fine', GOOD_CFG, 5, false],
    ['checks take 9s, the app serves 10s: fine', slow, 10, false],
  ])('%s', (_, cfg, seconds, found) => {
    expect(ids(staticReport([...proxyWith(() => {}, cfg), ...backend(seconds)])).includes('DR206')).toBe(found);
  });

  it('names the server line, the check timing, the DNS path to the workload and its preStop', () => {
    const [f] = one(staticReport([...proxyWith(() => {}, slow), ...backend(5)]), 'DR206');
    expect(f?.title).toBe(
      'HAProxy configmap/haproxy (haproxy.cfg) marks server web1 down only 9s after it stops answering, but statefulset.apps/web-db stops serving 5s after it is told to stop (its preStop wait)',
    );
    expect(f?.evidence).toEqual([
      'configmap/haproxy (haproxy.cfg) line 13: server web1 web-0.web-headless.shop.svc.cluster.local:8080',
      'health check: inter 3s, fall 3: down 9s after the server stops answering',
      'web-0.web-headless.shop.svc.cluster.local → service/web-headless → statefulset.apps/web-db',
      'statefulset.apps/web-db container db preStop: sleep action 5s (5s)',
    ]);
  });
});
