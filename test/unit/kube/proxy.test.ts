import { afterEach, describe, expect, it } from 'vitest';
import { proxyFor } from '../../../src/kube/proxy.ts';

const saved = { ...process.env };
afterEach(() => {
  for (const k of ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy', 'NO_PROXY', 'no_proxy']) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
});

function env(vars: Record<string, string>) {
  for (const k of ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy', 'NO_PROXY', 'no_proxy'])
    delete process.env[k];
  Object.assign(process.env, vars);
}

describe('proxy from the environment, as Go decides it', () => {
  it('takes HTTPS_PROXY for https and HTTP_PROXY for http, upper case first, http:// assumed', () => {
    env({ HTTPS_PROXY: 'proxy:3128', https_proxy: 'http://lower:1', HTTP_PROXY: 'http://plain:8080' });
    expect(proxyFor(new URL('https://api.example:6443'))).toBe('http://proxy:3128');
    expect(proxyFor(new URL('http://api.example:8001'))).toBe('http://plain:8080');
    env({ https_proxy: 'http://lower:1' });
    expect(proxyFor(new URL('https://api.example'))).toBe('http://lower:1');
  });

  it('never proxies localhost or loopback', () => {
    env({ HTTPS_PROXY: 'http://p:1' });
    for (const u of ['https://localhost:6443', 'https://127.0.0.1:6443', 'https://127.1.2.3', 'https://[::1]:6443'])
      expect(proxyFor(new URL(u)), u).toBeUndefined();
  });

  it.each([
    ['*', 'api.example', true],
    ['example', 'api.example', true],
    ['api.example', 'api.example', true],
    ['.example', 'api.example', true],
    ['.example', 'example', false],
    ['*.example', 'a.b.example', true],
    ['other.example', 'api.example', false],
    ['10.0.0.0/8', '10.1.2.3', true],
    ['10.0.0.0/8', '11.1.2.3', false],
    ['10.1.2.3', '10.1.2.3', true],
    ['api.example:6443', 'api.example', true],
    ['api.example:443', 'api.example', false],
    [' foo , api.example ', 'api.example', true],
  ])('NO_PROXY %j for %s: bypass %s', (noProxy, host, bypass) => {
    env({ HTTPS_PROXY: 'http://p:1', NO_PROXY: noProxy });
    expect(proxyFor(new URL(`https://${host}:6443`))).toBe(bypass ? undefined : 'http://p:1');
  });
});
