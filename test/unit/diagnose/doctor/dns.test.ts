// DR301–DR303: servers by DNS name, on seed 004's configs before and after the fix, and the forms in between.
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../../src/types/kube.ts';
import {
  haproxy,
  haproxyConfigMap,
  haproxyPdb,
  haproxyService,
  ids,
  one,
  staticReport,
} from '../../fixtures/doctor.ts';

const cfg = (defaults: string, server: string, sections = 'resolvers k8s\n  parse-resolv-conf\n') =>
  `global\n  hard-stop-after 15s\n${sections}\ndefaults\n  mode tcp\n${defaults ? `  default-server ${defaults}\n` : ''}\nbackend bk_redis\n  server R1 ${server}\n`;
const with_ = (text: string): KubeObject[] => [haproxy(), haproxyService(), haproxyPdb(), haproxyConfigMap(text)];
const FQDN = 'redis-ha-node-1.redis-ha-headless.redis.svc.cluster.local:6379';

type Row = [string, string, string | undefined, string, string];
const rows: Row[] = [
  [
    'by name, nothing that tolerates NXDOMAIN (seed 004 before)',
    'DR301',
    'qualified',
    cfg('', `${FQDN} check inter 3s fall 1 rise 1`),
    cfg('', `${FQDN} check inter 3s fall 1 rise 1 init-addr last,libc,none resolvers k8s`),
  ],
  [
    "init-addr without resolvers (the seed's first attempt)",
    'DR302',
    'initAddrOnly',
    cfg('', `${FQDN} check init-addr last,libc,none`),
    cfg('', `${FQDN} check init-addr last,libc,none resolvers k8s`),
  ],
  [
    'resolvers without init-addr',
    'DR302',
    'resolversOnly',
    cfg('', `${FQDN} check resolvers k8s`),
    cfg('init-addr none', `${FQDN} check resolvers k8s`),
  ],
  [
    'resolvers naming no section',
    'DR302',
    'undefinedResolvers',
    cfg('', `${FQDN} init-addr none resolvers dns`),
    cfg('', `${FQDN} init-addr none resolvers k8s`),
  ],
  [
    'a short name with resolvers',
    'DR303',
    undefined,
    cfg('init-addr none resolvers k8s', 'redis-ha-node-1.redis-ha-headless:6379 check'),
    cfg('init-addr none resolvers k8s', `${FQDN} check`),
  ],
];

describe('DNS: trap and fixed form', () => {
  it.each(rows)('%s → %s', (_, id, variant, trap, fixed) => {
    const found = one(staticReport(with_(trap)), id);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ variant, severity: 'error', object: { kind: 'ConfigMap', name: 'haproxy' } });
    expect(ids(staticReport(with_(fixed)))).toEqual([]);
  });
});

describe('what counts', () => {
  it('default-server in defaults counts for the servers after it (the fix can live there)', () => {
    expect(ids(staticReport(with_(cfg('init-addr last,libc,none resolvers k8s', `${FQDN} check`))))).toEqual([]);
  });

  it('IP addresses, sockets and variables are not DNS names', () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: haproxy.cfg's environment variable syntax
    for (const address of ['10.0.0.7:6379', 'unix@/run/redis.sock', '${REDIS}:6379'])
      expect(ids(staticReport(with_(cfg('', address))))).toEqual([]);
  });

  it('HAProxy ≥ 2.6 declares `resolvers default` itself; an IP fallback in init-addr tolerates NXDOMAIN', () => {
    expect(ids(staticReport(with_(cfg('', `${FQDN} init-addr libc,none resolvers default`, ''))))).toEqual([]);
    expect(one(staticReport(with_(cfg('', `${FQDN} init-addr libc,10.0.0.9`))), 'DR302')[0]?.variant).toBe(
      'initAddrOnly',
    );
  });

  it('servers of every section are reported together, once, each line named', () => {
    const text = `global\n  hard-stop-after 15s\nbackend bk_redis\n  server R0 redis-0.redis-headless:6379 check\n  server R1 redis-1.redis-headless:6379 check\n  server R2 10.0.0.3:6379 check\n`;
    const [f] = one(staticReport(with_(text)), 'DR301');
    expect(f?.title).toBe(
      'HAProxy configmap/haproxy (haproxy.cfg): servers R0, R1 in backend bk_redis are by DNS name with the default init-addr (last,libc) and no resolvers: HAProxy aborts start-up when a name does not resolve',
    );
    expect(f?.evidence).toEqual([
      'configmap/haproxy (haproxy.cfg) line 4: server R0 redis-0.redis-headless:6379 check — init-addr last,libc (default), no resolvers',
      'configmap/haproxy (haproxy.cfg) line 5: server R1 redis-1.redis-headless:6379 check — init-addr last,libc (default), no resolvers',
    ]);
    // short names: the fix gives the fully qualified name, so that following it does not make DR303
    expect(f?.fix).toBe(
      'name the servers by their fully qualified name (e.g. redis-0.redis-headless.shop.svc.cluster.local: HAProxy\'s resolvers do not use search domains), add "init-addr last,libc,none resolvers k8s" to them (or to a default-server line), and a "resolvers k8s" section with parse-resolv-conf',
    );
    const twice = `${text}backend bk_check\n  server R0 redis-0.redis-headless:6379 check\n`;
    const [both, ...more] = one(staticReport(with_(twice)), 'DR301');
    expect(more).toEqual([]);
    expect(both?.title).toContain('servers R0, R1 in backend bk_redis, backend bk_check are by DNS name');
    expect(both?.evidence).toHaveLength(3);
  });

  it('the name of a ClusterIP Service of the input always resolves; a headless one does not', () => {
    const service = (clusterIP?: string) =>
      ({
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'pgbouncer', namespace: 'shop' },
        spec: { ...(clusterIP ? { clusterIP } : {}), selector: { app: 'pgbouncer' }, ports: [{ port: 5432 }] },
      }) as KubeObject;
    const text = cfg('', 'pgbouncer.shop.svc.cluster.local:5432 check');
    expect(ids(staticReport([...with_(text), service()]))).toEqual([]);
    expect(ids(staticReport([...with_(text), service('None')]))).toEqual(['DR301']);
    // not in the input: the doctor cannot tell, and says what the name risks
    expect(ids(staticReport(with_(text)))).toEqual(['DR301']);
  });

  it('DR303 gives the fully qualified name of a Service it knows', () => {
    const headless = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'redis-ha-headless', namespace: 'shop' },
      spec: { clusterIP: 'None', selector: { app: 'redis' }, ports: [{ port: 6379 }] },
    } as KubeObject;
    const [f] = one(
      staticReport([
        ...with_(cfg('init-addr none resolvers k8s', 'redis-ha-node-1.redis-ha-headless:6379 check')),
        headless,
      ]),
      'DR303',
    );
    expect(f?.fix).toBe(
      'use the fully qualified name, e.g. redis-ha-node-1.redis-ha-headless.shop.svc.cluster.local (cluster.local is the default cluster domain)',
    );
    expect(f?.evidence[0]).toBe(
      'configmap/haproxy (haproxy.cfg) line 11: server R1 redis-ha-node-1.redis-ha-headless:6379 check — init-addr none (default-server line 8), resolvers k8s (default-server line 8)',
    );
  });

  it('no ConfigMap: the config checks are not run, and a note says why', () => {
    const report = staticReport([haproxy(), haproxyService(), haproxyPdb()]);
    expect(report.notes).toEqual([
      'deployment shop/haproxy: HAProxy container haproxy: configmap/haproxy (mounted at /usr/local/etc/haproxy) is not among the objects read; DR205, DR206 and DR301–DR303 not run',
    ]);
  });
});
