// HAProxyCfg content as HAPTIC stores it: plain, or zstd + base64 when spec.compressed is true (configs over the
// compression threshold); servers with their `# Pod:` comment at the end of the line or on the line before.
import { zstdCompressSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { configText, renderedServers } from '../../../../src/model/haptic/haptic-config.ts';

const config = [
  'global',
  '  daemon',
  'backend shop_web_http',
  '  server web-7f5f5b8fd6-dl48n 10.244.1.7:8080 check # Pod: web-7f5f5b8fd6-dl48n',
  '  # Pod: web-6b5b79dc5f-78v9r',
  '  server SRV_2 10.244.2.4:8080 check disabled',
  'backend shop_api_80',
  '  server api-1 10.244.1.9:9000 check',
].join('\n');

describe('HAProxyCfg content', () => {
  it('reads plain content', () => {
    expect(configText({ metadata: { name: 'c' }, spec: { content: config } })).toBe(config);
  });

  it('decodes real zstd + base64 content', () => {
    const compressed = zstdCompressSync(Buffer.from(config)).toString('base64');
    expect(compressed).not.toContain('server');
    expect(configText({ metadata: { name: 'c' }, spec: { content: compressed, compressed: true } })).toBe(config);
  });

  it('refuses a decompression bomb and a content too large, saying why, without expanding it', () => {
    // 65 MiB of one byte: a few KB of zstd
    const bomb = zstdCompressSync(Buffer.alloc(65 * 1024 * 1024, 0x61)).toString('base64');
    expect(bomb.length).toBeLessThan(100_000);
    expect(() => configText({ metadata: { name: 'c' }, spec: { content: bomb, compressed: true } })).toThrow(
      'its zstd content expands to more than 64 MiB',
    );
    expect(() => configText({ metadata: { name: 'c' }, spec: { content: 'not zstd', compressed: true } })).toThrow(
      'its zstd content cannot be decompressed',
    );
    expect(() => configText({ metadata: { name: 'c' }, spec: { content: 'a'.repeat(64 * 1024 * 1024 + 1) } })).toThrow(
      'its content is larger than 64 MiB',
    );
  });

  it('finds servers, their pod by either comment placement, and disabled ones', () => {
    expect(renderedServers(config)).toEqual([
      {
        backend: 'shop_web_http',
        server: 'web-7f5f5b8fd6-dl48n',
        pod: 'web-7f5f5b8fd6-dl48n',
        named: true,
        address: '10.244.1.7:8080',
        disabled: false,
      },
      {
        backend: 'shop_web_http',
        server: 'SRV_2',
        pod: 'web-6b5b79dc5f-78v9r',
        named: true,
        address: '10.244.2.4:8080',
        disabled: true,
      },
      {
        backend: 'shop_api_80',
        server: 'api-1',
        pod: 'api-1',
        named: false,
        address: '10.244.1.9:9000',
        disabled: false,
      },
    ]);
  });
});
