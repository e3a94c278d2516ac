// DR101–DR104: each trap on the healthy fixture, and its fixed form, both ways; plus the scoping that keeps the
// false positives of kube-score and kube-linter out.
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../../src/types/kube.ts';
import {
  app,
  appContainer,
  at,
  ids,
  liveReport,
  one,
  pdb,
  staticReport,
  web,
  webService,
} from '../../fixtures/doctor.ts';

type Row = [string, string, string | undefined, string, () => KubeObject[], () => KubeObject[]];

const around = () => [webService(), pdb()];
const rows: Row[] = [
  [
    'same endpoint, liveness as fast as readiness (what it checks unknown: a warning)',
    'DR101',
    'sharedFirst',
    'warning',
    () => [
      web(
        (d) =>
          (app(d).livenessProbe = { httpGet: { path: '/ready', port: 8080 }, periodSeconds: 5, failureThreshold: 2 }),
      ),
      ...around(),
    ],
    () => [web(), ...around()],
  ],
  [
    'same endpoint, liveness later than readiness',
    'DR101',
    'later',
    'warning',
    () => [
      web(
        (d) =>
          (app(d).livenessProbe = {
            httpGet: { path: '/ready', port: 'http' },
            periodSeconds: 10,
            failureThreshold: 6,
          }),
      ),
      ...around(),
    ],
    () => [
      web(
        (d) =>
          (app(d).livenessProbe = {
            httpGet: { path: '/ready', port: 'http', httpHeaders: [{ name: 'X-Probe', value: 'live' }] },
            periodSeconds: 10,
            failureThreshold: 6,
          }),
      ),
      ...around(),
    ],
  ],
  [
    'same command for liveness and readiness',
    'DR101',
    'exec',
    'warning',
    () => [
      web((d) => {
        app(d).readinessProbe = { exec: { command: ['/bin/check', '--deep'] } };
        app(d).livenessProbe = { exec: { command: ['/bin/check', '--deep'] } };
      }),
      ...around(),
    ],
    () => [
      web((d) => {
        app(d).readinessProbe = { exec: { command: ['/bin/check', '--deep'] } };
        app(d).livenessProbe = { exec: { command: ['/bin/check', '--alive'] } };
      }),
      ...around(),
    ],
  ],
  [
    'a serving container without readinessProbe, gated',
    'DR103',
    'gated',
    'error',
    () => [web((d) => delete app(d).readinessProbe), ...around()],
    () => [web(), ...around()],
  ],
  [
    'a serving container without readinessProbe, not gated',
    'DR103',
    'ungated',
    'warning',
    () => [
      web((d) => {
        delete app(d).readinessProbe;
        delete d.spec.template.spec.readinessGates;
      }),
      ...around(),
    ],
    () => [web((d) => delete d.spec.template.spec.readinessGates), ...around()],
  ],
  [
    'a probe naming a port the container does not declare',
    'DR104',
    undefined,
    'error',
    () => [web((d) => (app(d).livenessProbe = { httpGet: { path: '/alive', port: 'metrics' } })), ...around()],
    () => [web((d) => (app(d).livenessProbe = { httpGet: { path: '/alive', port: 9100 } })), ...around()],
  ],
];

describe('probes: trap and fixed form', () => {
  it.each(rows)('%s → %s', (_, id, variant, severity, trap, fixed) => {
    const found = one(staticReport(trap()), id);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ variant, severity });
    expect(ids(staticReport(fixed()))).not.toContain(id);
  });
});

describe('evidence', () => {
  it('DR101 names both probes with their resolved ports and windows, headers by name only', () => {
    const [f] = one(
      staticReport([
        web((d) => {
          app(d).readinessProbe = {
            httpGet: {
              path: '/healthz',
              port: 'http',
              httpHeaders: [{ name: 'Authorization', value: 'Bearer s3cret' }],
            },
            periodSeconds: 3,
            failureThreshold: 3,
          };
          app(d).livenessProbe = {
            httpGet: { path: '/healthz', port: 8080, httpHeaders: [{ name: 'Authorization', value: 'Bearer s3cret' }] },
            periodSeconds: 3,
            failureThreshold: 3,
          };
        }),
        ...around(),
      ]),
      'DR101',
    );
    expect(f?.title).toBe(
      'container app: liveness and readiness probe the same endpoint (httpGet HTTP :8080/healthz headers Authorization), and liveness restarts it after 9s, no later than readiness removes it (9s): if the endpoint checks anything the replicas share, a blip of it restarts every replica at once',
    );
    expect(f?.evidence).toEqual([
      'container app livenessProbe: httpGet HTTP :8080/healthz headers Authorization, periodSeconds 3 × failureThreshold 3 = 9s',
      'container app readinessProbe: httpGet HTTP :http (8080)/healthz headers Authorization, periodSeconds 3 × failureThreshold 3 = 9s',
    ]);
    expect(JSON.stringify(f)).not.toContain('s3cret');
  });

  it('DR103 names the Service port the container serves, and the gate', () => {
    const [f] = one(staticReport([web((d) => delete app(d).readinessProbe), ...around()]), 'DR103');
    expect(f?.evidence).toEqual([
      'service/web port 80 → targetPort http → container app port 8080',
      'container app: no readinessProbe (it has a livenessProbe)',
      `spec.template.spec.readinessGates: haproxy-haptic.org/load-balancer-ready`,
    ]);
    expect(f?.fix).toBe('add a readinessProbe on container port 8080 that succeeds once the application can serve');
  });
});

describe('scoping (the false positives of other linters)', () => {
  it('a shared tcpSocket or gRPC probe sees only the process, and is not DR101', () => {
    for (const probe of [{ tcpSocket: { port: 'http' } }, { grpc: { port: 8080 } }]) {
      const r = staticReport([
        web((d) => {
          app(d).readinessProbe = probe;
          app(d).livenessProbe = structuredClone(probe);
        }),
        ...around(),
      ]);
      expect(ids(r)).not.toContain('DR101');
    }
  });

  it('a container that serves no Service port is not asked for a readinessProbe or split probes', () => {
    const worker = web((d) => {
      app(d).livenessProbe = app(d).readinessProbe;
      delete app(d).readinessProbe;
      delete d.spec.template.spec.readinessGates;
    });
    expect(ids(staticReport([worker, pdb()]))).not.toContain('DR103');
    const shared = web((d) => {
      app(d).livenessProbe = app(d).readinessProbe;
      delete d.spec.template.spec.readinessGates;
    });
    expect(ids(staticReport([shared, pdb()]))).not.toContain('DR101');
  });

  it('a native sidecar that serves the port is checked; a plain init container is not', () => {
    const sidecar = {
      ...appContainer(),
      name: 'proxy',
      restartPolicy: 'Always',
      ports: [{ name: 'proxy', containerPort: 15001 }],
    };
    delete sidecar.readinessProbe;
    const objects = (restartPolicy?: string) => [
      web((d) => (d.spec.template.spec.initContainers = [{ ...sidecar, restartPolicy }])),
      webService((s) => s.spec.ports!.push({ name: 'proxy', port: 15001, targetPort: 'proxy' })),
      pdb(),
    ];
    expect(one(staticReport(objects('Always')), 'DR103')[0]?.title).toContain(
      'container proxy serves service web (port 15001)',
    );
    expect(ids(staticReport(objects(undefined)))).not.toContain('DR103');
  });

  it('DR104 looks only in the probing container, as the kubelet does', () => {
    const d = web((x) => {
      x.spec.template.spec.containers.push({
        name: 'metrics',
        image: 'exporter:1',
        ports: [{ name: 'metrics', containerPort: 9100 }],
      });
      app(x).livenessProbe = { httpGet: { path: '/', port: 'metrics' } };
    });
    const [f] = one(staticReport([d, ...around()]), 'DR104');
    expect(f?.evidence).toEqual([
      'container app livenessProbe: httpGet HTTP :metrics/',
      'container app ports: http:8080, admin:9090',
    ]);
  });
});

describe('DR102 (live): liveness restarts of several replicas in one window', () => {
  const podOf = (name: string, restarts: number) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'shop', labels: { app: 'web', tier: 'front' } },
    spec: { containers: [appContainer()] },
    status: {
      phase: 'Running',
      containerStatuses: [
        {
          name: 'app',
          ready: true,
          restartCount: restarts,
          lastState: { terminated: { exitCode: 137, reason: 'Error' } },
        },
      ],
    },
  });
  const event = (pod: string, reason: string, message: string, count: number, first: number, last: number) => ({
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: `${pod}.${reason}`, namespace: 'shop' },
    involvedObject: { kind: 'Pod', name: pod, namespace: 'shop', fieldPath: 'spec.containers{app}' },
    reason,
    message,
    type: reason === 'Killing' ? 'Normal' : 'Warning',
    count,
    firstTimestamp: at(first),
    lastTimestamp: at(last),
  });
  const killed = (pod: string, last: number) => [
    event(pod, 'Unhealthy', 'Liveness probe failed: HTTP probe failed with statuscode: 503', 6, 200, last + 1),
    event(pod, 'Killing', 'Container app failed liveness probe, will be restarted', 2, 200, last),
  ];
  const objects = (kills: number[]) => [
    web(),
    webService(),
    pdb(),
    ...kills.map((_, i) => podOf(`web-${i}`, 2)),
    ...kills.flatMap((last, i) => killed(`web-${i}`, last)),
  ];

  it.each([
    ['two pods killed 2s apart (window 30s)', [10, 12], true],
    ['three pods within the window', [10, 20, 35], true],
    ['one pod only', [10], false],
  ])('%s: %s', (_, kills, found) => {
    expect(ids(liveReport(objects(kills))).includes('DR102')).toBe(found);
  });

  it('kills further apart than the probe window are not correlated', () => {
    const far = [
      web(),
      webService(),
      pdb(),
      podOf('web-0', 1),
      podOf('web-1', 1),
      event('web-0', 'Killing', 'Container app failed liveness probe, will be restarted', 1, 100, 100),
      event('web-1', 'Killing', 'Container app failed liveness probe, will be restarted', 1, 20, 20),
    ];
    expect(ids(liveReport(far))).not.toContain('DR102');
  });

  it('names the pods, their restarts and the events; crash restarts without liveness kills do not count', () => {
    const [f] = one(liveReport(objects([10, 12])), 'DR102');
    expect(f?.title).toBe(
      '2 pods of deployment web were restarted by their liveness probe within 30s of each other: the probe fails on something they share, and each failure restarts the fleet',
    );
    expect(f?.evidence).toEqual([
      'liveness probe window: container app periodSeconds 10 × failureThreshold 3 = 30s',
      'pod web-0: app restartCount 2 (last exit 137 Error)',
      '  event Unhealthy (x6, last 11s ago): Liveness probe failed: HTTP probe failed with statuscode: 503',
      '  event Killing (x2, last 10s ago): Container app failed liveness probe, will be restarted',
      'pod web-1: app restartCount 2 (last exit 137 Error)',
      '  event Unhealthy (x6, last 13s ago): Liveness probe failed: HTTP probe failed with statuscode: 503',
      '  event Killing (x2, last 12s ago): Container app failed liveness probe, will be restarted',
      'kills of 2 pods within 2s of each other',
    ]);
    const crashes = [
      web(),
      webService(),
      pdb(),
      podOf('web-0', 3),
      podOf('web-1', 3),
      event('web-0', 'BackOff', 'Back-off restarting failed container app', 3, 60, 10),
      event('web-1', 'BackOff', 'Back-off restarting failed container app', 3, 60, 11),
    ];
    expect(ids(liveReport(crashes))).not.toContain('DR102');
  });

  it('is not run in static mode, and says so', () => {
    const r = staticReport([web(), webService(), pdb()]);
    expect(r.notRun).toContainEqual({ id: 'DR102', reason: 'needs a cluster' });
  });
});
