import { describe, expect, it } from 'vitest';
import {
  backendService,
  renderedFor,
  routedBackends,
  servedPod,
  type InstallationConfig,
} from '../../../../src/model/haptic/rendered.ts';

const server = (backend: string, pod: string, address: string, named = true) => ({
  backend,
  server: `SRV_${pod}`,
  pod,
  named,
  address,
  disabled: false,
});

const installation = (servers: ReturnType<typeof server>[]): InstallationConfig[] => [
  { namespace: 'haptic', templateConfig: 'haptic-config', config: { name: 'haptic-config-haproxycfg', servers } },
];

describe('backendService', () => {
  it("reads the Service from HAPTIC's backend names, per generation", () => {
    expect(backendService('ing_shop_web_web-stable_80')).toBe('web-stable');
    expect(backendService('shop_web_svc_web-stable_http')).toBe('web-stable');
    expect(backendService('gtw_shop_web-route_web_8080')).toBe('web');
  });
  it('names no Service for a TLS or TCP rule backend, or a name of another shape', () => {
    expect(backendService('gtw_tls_shop_web_0')).toBeUndefined();
    expect(backendService('gtw_tcp_shop_web_1')).toBeUndefined();
    expect(backendService('custom')).toBeUndefined();
    expect(backendService('default_backend')).toBeUndefined();
  });
});

describe('renderedFor, per Service', () => {
  it("gives each server the Service of its backend, among those that select the server's pod", () => {
    const found = renderedFor(installation([server('ing_shop_web_web-stable_80', 'web-old-1', '10.0.0.1:8080')]), [
      { name: 'web-old-1', ip: '10.0.0.1', services: ['web-stable', 'web-all'] },
      { name: 'web-new-1', ip: '10.0.0.2', services: ['web-all'] },
    ]);
    expect(found.map((f) => [f.pod, f.services])).toEqual([['web-old-1', ['web-stable']]]);
    // the new pod is selected only by web-all, which no backend renders: the old pod's server proves nothing for it
    expect(servedPod(found, 'web-new-1', ['web-all'])).toBe(false);
    expect(servedPod(found, 'web-old-1', ['web-stable', 'web-all'])).toBe(true);
    // a new pod of a Service whose backend holds old pods' servers is routed with them
    expect(servedPod(found, 'web-new-2', ['web-stable'])).toBe(true);
  });
  it('takes the Services of a backend whose name does not tell from the routes that render it', () => {
    const inst = installation([server('gtw_tls_shop_web_0', 'web-1', '10.0.0.1:8443')]);
    const pods = [{ name: 'web-1', ip: '10.0.0.1', services: ['web', 'web-tls'] }];
    const told = renderedFor(
      inst,
      pods,
      routedBackends([{ service: 'web-tls', routes: [{ backend: 'gtw_tls_shop_web_0' }] }]),
    );
    expect(told[0]?.services).toEqual(['web-tls']);
    // untold: every Service that selects the pod, so nothing is said unrouted on a guess
    expect(renderedFor(inst, pods)[0]?.services).toEqual(['web', 'web-tls']);
  });
  it('finds a pod without an IP by name only in a backend of a Service of its namespace that selects it', () => {
    const stale = server('ing_other_web_web_80', 'web-0', '10.0.9.9:8080');
    expect(renderedFor(installation([stale]), [{ name: 'web-0', services: ['web-svc'] }])).toEqual([]);
    const own = server('ing_shop_web_web-svc_80', 'web-0', '10.0.9.9:8080');
    expect(renderedFor(installation([own]), [{ name: 'web-0', services: ['web-svc'] }])).toHaveLength(1);
  });
  it('skips a server of the pod name at another address (an earlier pod of that name)', () => {
    const earlier = server('ing_shop_web_web_80', 'web-0', '10.0.0.7:8080');
    expect(renderedFor(installation([earlier]), [{ name: 'web-0', ip: '10.0.0.8', services: ['web'] }])).toEqual([]);
  });
});
