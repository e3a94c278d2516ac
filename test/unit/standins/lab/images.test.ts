import { describe, expect, it } from 'vitest';
import {
  containerPlan,
  envOf,
  hostPath,
  imageHas,
  imageKind,
  masterSocketArg,
  repositoryOf,
  stopSignalOf,
} from '../../../cluster/standins/lab/images.ts';

describe('the images the lab runs', () => {
  it.each([
    ['lab.kubectl-haptic.dev/http-server:1', [], 'http-server'],
    ['curlimages/curl:8.11.1', [], 'probe'],
    ['docker.io/curlimages/curl', [], 'probe'],
    ['haproxy:2.6', [], 'haproxy'],
    ['registry.example.com/platform/redis-haproxy:3.0.5', [], 'haproxy'],
    ['haproxytech/haproxy-debian:3.2', ['ghcr.io/haproxy-haptic/haptic-agent:0.9.0'], 'haptic-haproxy'],
    ['ghcr.io/haproxy-haptic/haptic-agent:0.9.0', ['haproxytech/haproxy-debian:3.2'], undefined],
    ['nginx:1.27', [], undefined],
  ])('%s → %s', (image, others, kind) => {
    expect(imageKind(image, [image, ...others])).toBe(kind);
  });

  it('normalises repositories as Docker does', () => {
    expect([
      repositoryOf('haproxy'),
      repositoryOf('docker.io/library/haproxy:3.0'),
      repositoryOf('localhost:5000/x/haproxy:1'),
    ]).toEqual(['haproxy', 'haproxy', 'localhost:5000/x/haproxy']);
  });
});

describe('stopSignalOf', () => {
  it.each([
    [{ name: 'c', image: 'haproxy:3.0' }, 'SIGUSR1'],
    [{ name: 'c', image: 'haproxytech/haproxy-alpine:3.2' }, 'SIGUSR1'],
    [{ name: 'c', image: 'registry.example.com/platform/redis-haproxy:3.0.5' }, 'SIGTERM'],
    [
      { name: 'c', image: 'registry.example.com/platform/redis-haproxy:3.0.5', lifecycle: { stopSignal: 'SIGUSR1' } },
      'SIGUSR1',
    ],
    [{ name: 'c', image: 'haproxy:3.0', lifecycle: { stopSignal: 'SIGTERM' } }, 'SIGTERM'],
  ])('%o → %s', (container, signal) => {
    expect(stopSignalOf(container)).toBe(signal);
  });
});

describe('container plans', () => {
  const ctx = {
    repoRoot: '/repo',
    node: '/node',
    podDir: '/lab/p/abc',
    pod: { name: 'web-1', namespace: 'shop', podIP: '10.244.1.5' },
  };

  it('runs the lab server with the container port and env', () => {
    const plan = containerPlan(
      {
        name: 'app',
        image: 'lab.kubectl-haptic.dev/http-server:1',
        ports: [{ containerPort: 9000 }],
        env: [{ name: 'ON_SIGTERM', value: 'exit' }],
      },
      [],
      ctx,
    );
    expect(plan).toMatchObject({
      kind: 'http-server',
      argv: ['/node', '/repo/test/cluster/lab/http-server.ts'],
      env: { PORT: '9000', POD_NAME: 'web-1', ON_SIGTERM: 'exit' },
      stopSignal: 'SIGTERM',
    });
  });

  it("runs HAProxy with the pod's command, its config file taken from the mounted volume", () => {
    const container = {
      name: 'haproxy',
      image: 'registry.example.com/edge-haproxy:2.6',
      command: ['haproxy', '-f', '/usr/local/etc/haproxy/haproxy.cfg'],
      volumeMounts: [{ name: 'config', mountPath: '/usr/local/etc/haproxy' }],
    };
    expect(containerPlan(container, [], ctx)?.argv).toEqual(['haproxy', '-f', '/lab/p/abc/volumes/config/haproxy.cfg']);
    expect(containerPlan({ name: 'haproxy', image: 'haproxy:2.6' }, [], ctx)?.argv).toEqual([
      'haproxy',
      '-W',
      '-db',
      '-f',
      '/usr/local/etc/haproxy/haproxy.cfg',
    ]);
  });

  it("gives HAPTIC's HAProxy the agent's files: master-worker with a master socket", () => {
    const plan = containerPlan(
      { name: 'haproxy', image: 'haproxytech/haproxy-debian:3.2' },
      ['haproxytech/haproxy-debian:3.2', 'ghcr.io/haproxy-haptic/haptic-agent:0.9.0'],
      ctx,
    );
    expect(plan?.agent).toEqual({ config: '/lab/p/abc/haproxy.cfg', masterSocket: '/lab/p/abc/m.sock' });
    expect(plan?.argv).toEqual([
      'haproxy',
      '-W',
      '-db',
      '-S',
      '/lab/p/abc/m.sock,level,admin',
      '-f',
      '/lab/p/abc/haproxy.cfg',
    ]);
    expect(plan?.mounts).toBeUndefined();
  });

  it("runs HAPTIC's HAProxy as the chart does: the socket its -S names, in the runtime folder shared with the agent", () => {
    const container = {
      name: 'haproxy',
      image: 'haproxytech/haproxy-debian:3.2',
      command: ['/bin/sh', '-c'],
      args: [
        'mkdir -p /etc/haproxy/maps\nexec haproxy -dr -W -db -S "/etc/haproxy/haproxy-master.sock,level,admin" -- /etc/haproxy/haproxy.cfg',
      ],
      volumeMounts: [{ name: 'haproxy-runtime', mountPath: '/etc/haproxy' }],
    };
    expect(masterSocketArg(container)).toBe('/etc/haproxy/haproxy-master.sock');
    const plan = containerPlan(
      container,
      ['haproxytech/haproxy-debian:3.2', 'ghcr.io/haproxy-haptic/haptic-agent:0.9.0'],
      ctx,
    );
    expect(plan?.agent).toEqual({
      config: '/lab/p/abc/volumes/haproxy-runtime/haproxy.cfg',
      masterSocket: '/lab/p/abc/volumes/haproxy-runtime/haproxy-master.sock',
      socketInside: '/etc/haproxy/haproxy-master.sock',
    });
    expect(plan?.mounts).toEqual([{ source: '/lab/p/abc/volumes/haproxy-runtime', target: '/etc/haproxy' }]);
    expect(plan?.argv).toEqual([
      'haproxy',
      '-W',
      '-db',
      '-S',
      '/etc/haproxy/haproxy-master.sock,level,admin',
      '-f',
      '/etc/haproxy/haproxy.cfg',
    ]);
  });

  it('ships socat only in the images that have it (HAProxy Technologies’), every other program everywhere', () => {
    expect(imageHas('haproxytech/haproxy-debian:3.2', 'socat')).toBe(true);
    expect(imageHas('docker.io/haproxytech/haproxy-alpine:3.0', '/usr/bin/socat')).toBe(true);
    expect(imageHas('haproxy:3.2', 'socat')).toBe(false);
    expect(imageHas('lab.kubectl-haptic.dev/http-server:1', 'socat')).toBe(false);
    expect(imageHas('haproxy:3.2', 'sh')).toBe(true);
  });

  it('maps paths under a mount (longest mount first) and leaves others', () => {
    const c = {
      name: 'c',
      image: 'x',
      volumeMounts: [
        { name: 'a', mountPath: '/etc' },
        { name: 'b', mountPath: '/etc/haproxy/' },
      ],
    };
    expect([
      hostPath('/etc/haproxy/haproxy.cfg', c, '/p'),
      hostPath('/etc/hosts', c, '/p'),
      hostPath('/usr/bin/x', c, '/p'),
    ]).toEqual(['/p/volumes/b/haproxy.cfg', '/p/volumes/a/hosts', '/usr/bin/x']);
  });

  it('resolves env values and the downward API fields it knows', () => {
    const env = envOf(
      {
        name: 'c',
        image: 'x',
        env: [
          { name: 'A', value: '1' },
          { name: 'ME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
          { name: 'IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
          { name: 'S', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } },
        ],
      },
      ctx.pod,
    );
    expect(env).toEqual({ A: '1', ME: 'web-1', IP: '10.244.1.5' });
  });
});
