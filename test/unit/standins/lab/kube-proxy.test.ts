import { describe, expect, it } from 'vitest';
import type { Obj } from '../../../cluster/standins/common.ts';
import { nftScript, serviceRules } from '../../../cluster/standins/lab/kube-proxy.ts';

const svc = (name: string, clusterIP: string, ports = [{ name: 'http', port: 80 }]): Obj => ({
  metadata: { name, namespace: 'shop' },
  spec: { clusterIP, ports },
});
const slice = (service: string, endpoints: [string, object][]): Obj => ({
  metadata: { name: `${service}-x`, namespace: 'shop', labels: { 'kubernetes.io/service-name': service } },
  ports: [{ name: 'http', port: 8080 }],
  endpoints: endpoints.map(([ip, conditions]) => ({ addresses: [ip], conditions })),
});
const READY = { ready: true, serving: true, terminating: false };
const DRAINING = { ready: false, serving: true, terminating: true };
const STOPPED = { ready: false, serving: false, terminating: true };

describe('serviceRules', () => {
  it('sends to ready endpoints only while there are some', () => {
    const rules = serviceRules(
      [svc('web', '10.96.0.10')],
      [
        slice('web', [
          ['10.244.1.3', READY],
          ['10.244.1.2', DRAINING],
          ['10.244.2.2', READY],
        ]),
      ],
    );
    expect(rules).toEqual([
      {
        ip: '10.96.0.10',
        port: 80,
        endpoints: [
          { ip: '10.244.1.3', port: 8080 },
          { ip: '10.244.2.2', port: 8080 },
        ],
      },
    ]);
  });

  it('falls back to serving terminating endpoints, and to none (rejected) when nothing serves', () => {
    expect(
      serviceRules(
        [svc('web', '10.96.0.10')],
        [
          slice('web', [
            ['10.244.1.2', DRAINING],
            ['10.244.1.3', STOPPED],
          ]),
        ],
      )[0]!.endpoints,
    ).toEqual([{ ip: '10.244.1.2', port: 8080 }]);
    expect(serviceRules([svc('web', '10.96.0.10')], [slice('web', [['10.244.1.3', STOPPED]])])[0]!.endpoints).toEqual(
      [],
    );
  });

  it('skips headless Services and other protocols', () => {
    expect(
      serviceRules(
        [svc('db', 'None'), svc('dns', '10.96.0.53', [{ name: 'dns', port: 53, protocol: 'UDP' } as never])],
        [],
      ),
    ).toEqual([]);
  });
});

describe('nftScript', () => {
  it('replaces the table in one transaction: a random DNAT per port, a reject for ports without endpoints', () => {
    const script = nftScript([
      {
        ip: '10.96.0.10',
        port: 80,
        endpoints: [
          { ip: '10.244.1.2', port: 8080 },
          { ip: '10.244.2.2', port: 8080 },
        ],
      },
      { ip: '10.96.0.11', port: 80, endpoints: [] },
    ]);
    expect(script).toContain('delete table ip kubectl-haptic-lab\n');
    expect(script).toContain(
      '    ip daddr 10.96.0.10 tcp dport 80 dnat ip to numgen random mod 2 map { 0 : 10.244.1.2 . 8080, 1 : 10.244.2.2 . 8080 }\n',
    );
    expect(script).toContain('    elements = { 10.96.0.11 . 80 }\n');
    expect(script).toContain('    type nat hook prerouting priority -100\n');
  });
});
