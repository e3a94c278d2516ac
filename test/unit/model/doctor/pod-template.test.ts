// Pod template facts: which containers serve which Service ports (named targetPorts, sidecars), HAProxy images
// and their stop signal, and where a plain HAProxy's haproxy.cfg comes from.
import { describe, expect, it } from 'vitest';
import type { ConfigMap, Container, PodSpec, Service } from '../../../../src/types/kube.ts';
import {
  containerViews,
  imageStopSignal,
  isHAProxyImage,
  longRunningContainers,
  masterWorkerFlag,
  resolveContainerPort,
  stopSignalOf,
} from '../../../../src/model/doctor/pod-template.ts';
import { configPaths, haproxyConfigSource } from '../../../../src/model/doctor/haproxy-source.ts';
import { isShortName, serviceOfHost } from '../../../../src/model/doctor/service-dns.ts';

const svc = (
  name: string,
  ports: Service['spec']['ports'],
  selector: Record<string, string> = { app: 'web' },
  namespace = 'shop',
): Service => ({ metadata: { name, namespace }, spec: { selector, ports } });
const served = (spec: PodSpec, services: Service[]) =>
  containerViews(spec, { app: 'web' }, services).map((v) => [
    v.container.name,
    v.role,
    v.serves.map((s) => `${s.service}:${s.port}→${s.containerPort}`),
  ]);

describe('containerViews', () => {
  const app: Container = { name: 'app', ports: [{ name: 'http', containerPort: 8080 }] };
  const proxy: Container = { name: 'envoy', restartPolicy: 'Always', ports: [{ name: 'proxy', containerPort: 15001 }] };
  const init: Container = { name: 'migrate' };

  it('resolves a named targetPort to the container that declares it, a sidecar included; plain init containers do not run beside', () => {
    expect(
      served({ containers: [app], initContainers: [init, proxy] }, [
        svc('web', [
          { port: 80, targetPort: 'http' },
          { port: 15001, targetPort: 'proxy' },
        ]),
      ]),
    ).toEqual([
      ['app', 'container', ['web:80→8080']],
      ['envoy', 'sidecar', ['web:15001→15001']],
    ]);
  });

  it.each([
    ['a number a container declares', { port: 80, targetPort: 8080 }, ['web:80→8080']],
    ['a number nobody declares, one container', { port: 80, targetPort: 9000 }, ['web:80→9000']],
    ['no targetPort: the port itself', { port: 8080 }, ['web:8080→8080']],
    ['a name nobody declares', { port: 80, targetPort: 'metrics' }, []],
    ['another protocol', { port: 80, targetPort: 'http', protocol: 'UDP' }, []],
  ])('targetPort: %s', (_, port, serves) => {
    expect(served({ containers: [app] }, [svc('web', [port])])[0]?.[2]).toEqual(serves);
  });

  it('a number nobody declares is attributed to no one when the pod has several containers', () => {
    expect(
      served({ containers: [app, { name: 'b' }] }, [svc('web', [{ port: 80, targetPort: 9000 }])]).map((v) => v[2]),
    ).toEqual([[], []]);
  });

  it('only Services of the namespace whose selector selects the labels count', () => {
    expect(
      served({ containers: [app] }, [svc('other', [{ port: 80, targetPort: 'http' }], { app: 'api' })])[0]?.[2],
    ).toEqual([]);
  });

  it('skips entries that are not containers instead of failing', () => {
    expect(
      longRunningContainers({ containers: [null, 'x', { name: 'ok' }] } as never).map((c) => c.container.name),
    ).toEqual(['ok']);
    expect(longRunningContainers(undefined)).toEqual([]);
  });

  it('resolves probe ports within the container only, as the kubelet does', () => {
    expect(resolveContainerPort(app, 'http')).toBe(8080);
    expect(resolveContainerPort(app, 'proxy')).toBeUndefined();
    expect(resolveContainerPort(app, 9090)).toBe(9090);
    expect(resolveContainerPort(app, '9090')).toBe(9090);
  });
});

describe('HAProxy images and their stop signal', () => {
  it.each([
    ['haproxy:3.0', true, 'SIGUSR1'],
    ['docker.io/library/haproxy:2.8-alpine', true, 'SIGUSR1'],
    ['haproxytech/haproxy-alpine:3.2', true, 'SIGUSR1'],
    ['haproxytech/haproxy-debian:3.2@sha256:abc', true, 'SIGUSR1'],
    ['registry.example.com/team/haproxy-custom:1', true, undefined],
    ['ghcr.io/haproxy-haptic/haptic-agent:0.9.0', false, undefined],
    ['nginx:1.27', false, undefined],
  ])('%s: HAProxy %s, STOPSIGNAL %s', (image, haproxy, signal) => {
    expect(isHAProxyImage(image)).toBe(haproxy);
    expect(imageStopSignal(image)).toBe(signal);
  });

  it('lifecycle.stopSignal wins over the image; an unknown image keeps SIGTERM', () => {
    expect(stopSignalOf({ name: 'h', image: 'my/haproxy:1', lifecycle: { stopSignal: 'SIGUSR1' } }).signal).toBe(
      'SIGUSR1',
    );
    expect(stopSignalOf({ name: 'h', image: 'my/haproxy:1' })).toEqual({
      signal: 'SIGTERM',
      from: 'image my/haproxy:1 is not known to set STOPSIGNAL, so SIGTERM',
    });
    expect(masterWorkerFlag({ name: 'h', command: ['haproxy', '-W', '-db', '-f', '/c'] })).toBe(true);
    expect(masterWorkerFlag({ name: 'h', args: ['-f', '/c'] })).toBe(false);
  });
});

describe('haproxyConfigSource', () => {
  const cm = (name: string, data: Record<string, string>): ConfigMap => ({
    metadata: { name, namespace: 'redis' },
    data,
  });
  const haproxy = (extra: Partial<Container>): Container => ({ name: 'haproxy', image: 'haproxy:3.0', ...extra });

  it.each([
    [
      'the default path, a directory mount',
      haproxy({ volumeMounts: [{ name: 'cfg', mountPath: '/usr/local/etc/haproxy' }] }),
      { volumes: [{ name: 'cfg', configMap: { name: 'ha' } }] },
      'haproxy.cfg',
    ],
    [
      '-f with a subPath mount',
      haproxy({
        args: ['-f', '/etc/haproxy.cfg'],
        volumeMounts: [{ name: 'cfg', mountPath: '/etc/haproxy.cfg', subPath: 'haproxy.cfg' }],
      }),
      { volumes: [{ name: 'cfg', configMap: { name: 'ha' } }] },
      'haproxy.cfg',
    ],
    [
      'items that rename the key',
      haproxy({ command: ['haproxy', '-f', '/cfg/main.cfg'], volumeMounts: [{ name: 'cfg', mountPath: '/cfg' }] }),
      { volumes: [{ name: 'cfg', configMap: { name: 'ha', items: [{ key: 'haproxy.cfg', path: 'main.cfg' }] } }] },
      'haproxy.cfg',
    ],
    [
      'a projected volume',
      haproxy({ volumeMounts: [{ name: 'p', mountPath: '/usr/local/etc/haproxy' }] }),
      { volumes: [{ name: 'p', projected: { sources: [{ configMap: { name: 'ha' } }] } }] },
      'haproxy.cfg',
    ],
  ])('%s', (_, container, volumes, key) => {
    const found = haproxyConfigSource(container, { containers: [container], ...volumes }, [
      cm('ha', { 'haproxy.cfg': 'global\n' }),
    ]);
    expect(found).toMatchObject({ found: true, configMap: 'ha', key, text: 'global\n' });
  });

  it('a config copied by an init container (redis-ha): a ConfigMap of the pod with a haproxy.cfg key, said so', () => {
    const container = haproxy({
      args: ['-f', '/data/haproxy.cfg'],
      volumeMounts: [{ name: 'data', mountPath: '/data' }],
    });
    const found = haproxyConfigSource(
      container,
      {
        containers: [container],
        volumes: [{ name: 'data' }, { name: 'config', configMap: { name: 'redis-ha-configmap' } }],
      },
      [cm('redis-ha-configmap', { 'haproxy.cfg': 'global\n', 'redis.conf': 'x' })],
    );
    expect(found).toMatchObject({
      found: true,
      configMap: 'redis-ha-configmap',
      key: 'haproxy.cfg',
      how: 'configmap/redis-ha-configmap (volume config) has a haproxy.cfg key; /data/haproxy.cfg is not mounted from it directly',
    });
  });

  it('says why when there is none, or when the ConfigMap was not read', () => {
    expect(haproxyConfigSource(haproxy({}), { containers: [] }, [])).toEqual({
      found: false,
      why: '/usr/local/etc/haproxy/haproxy.cfg is not mounted from a ConfigMap, and no ConfigMap volume of the pod has a haproxy.cfg key',
    });
    const mounted = haproxy({ volumeMounts: [{ name: 'cfg', mountPath: '/usr/local/etc/haproxy' }] });
    expect(
      haproxyConfigSource(
        mounted,
        { containers: [mounted], volumes: [{ name: 'cfg', configMap: { name: 'gone' } }] },
        [],
      ),
    ).toEqual({
      found: false,
      why: 'configmap/gone (mounted at /usr/local/etc/haproxy) is not among the objects read',
    });
  });

  it('reads every -f', () => {
    expect(configPaths(haproxy({ command: ['haproxy', '-f', '/a.cfg', '-f/b.cfg'] }))).toEqual(['/a.cfg', '/b.cfg']);
  });
});

describe('service DNS names', () => {
  const services = [svc('redis-ha-headless', [], { app: 'redis' }, 'redis'), svc('web', [], { app: 'web' }, 'shop')];
  it.each([
    ['redis-ha-node-1.redis-ha-headless.redis.svc.cluster.local', 'redis', 'redis-ha-headless', 'redis-ha-node-1'],
    ['web.shop.svc.cluster.local', 'redis', 'web', undefined],
    ['web.shop.svc', 'redis', 'web', undefined],
    ['web.shop', 'redis', 'web', undefined],
    ['web', 'shop', 'web', undefined],
    ['redis-ha-node-1.redis-ha-headless', 'redis', 'redis-ha-headless', 'redis-ha-node-1'],
    ['redis-ha-node-1.redis-ha-headless.redis', 'shop', 'redis-ha-headless', 'redis-ha-node-1'],
    ['web', 'redis', undefined, undefined],
    ['api.example.com', 'shop', undefined, undefined],
  ])('%s from %s → service %s, hostname %s', (host, ns, service, hostname) => {
    const named = serviceOfHost(host, ns, services);
    expect(named?.service.metadata.name).toBe(service);
    expect(named?.hostname).toBe(hostname);
  });

  it.each([
    ['web', true],
    ['web.shop', true],
    ['web.shop.svc', true],
    ['redis-0.redis-headless', true],
    ['api.example.xn--p1ai', false],
    ['web.shop.svc.cluster.local', false],
    ['api.example.com', false],
    ['redis-0.redis-headless.redis.svc.cluster.local.', false],
  ])('%s is short: %s', (host, short) => {
    expect(isShortName(host, new Set(['shop', 'redis']))).toBe(short);
  });
});
