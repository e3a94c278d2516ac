// The haproxy.cfg reader: words as HAProxy splits them, sections, and each server's settings as HAProxy applies
// them (its own keywords over default-server lines before it, over its defaults section's default-server).
import { describe, expect, it } from 'vitest';
import { parseHAProxyConfig, parseTimeMs, splitWords } from '../../../../src/model/doctor/haproxy-cfg.ts';
import {
  addressHost,
  detectionMs,
  haproxyFacts,
  toleratesUnresolved,
} from '../../../../src/model/doctor/haproxy-servers.ts';

const facts = (text: string) => haproxyFacts(parseHAProxyConfig(text));
const server = (text: string, name: string) => facts(text).servers.find((s) => s.name === name);

describe('splitWords', () => {
  it.each([
    ['  server R1 redis-0:6379 check  # the first', ['server', 'R1', 'redis-0:6379', 'check']],
    ['monitor fail if { nbsrv(bk) lt 1 }', ['monitor', 'fail', 'if', '{', 'nbsrv(bk)', 'lt', '1', '}']],
    ['http-request set-header X "a # b"', ['http-request', 'set-header', 'X', 'a # b']],
    ["log-format 'it''s'", ['log-format', 'its']],
    ['errorfile 503 /etc/\\#503.http', ['errorfile', '503', '/etc/#503.http']],
    ['user "a \\" b"', ['user', 'a " b']],
    ['# only a comment', []],
    ['\tbind :80\r', ['bind', ':80']],
  ])('%j', (line, words) => {
    expect(splitWords(line)).toEqual(words);
  });
});

describe('parseTimeMs: a number with a unit, milliseconds by default', () => {
  it.each([
    ['2s', 2000],
    ['100', 100],
    ['100ms', 100],
    ['1m', 60_000],
    ['1h', 3_600_000],
    ['1d', 86_400_000],
    ['500us', 0.5],
    ['1.5s', 1500],
    ['', undefined],
    ['fast', undefined],
    ['-1s', undefined],
    [undefined, undefined],
  ])('%j → %j', (text, ms) => {
    expect(parseTimeMs(text)).toBe(ms);
  });
});

describe('parseHAProxyConfig', () => {
  it('reads sections with their lines and line numbers; named defaults and `from`', () => {
    const cfg = parseHAProxyConfig(
      [
        '# header',
        'global',
        '  hard-stop-after 20s',
        '',
        'defaults base',
        '  mode http',
        'backend be from base',
        '  server a 10.0.0.1:80',
        'listen health',
        '  bind :8888',
      ].join('\n'),
    );
    expect(cfg.sections.map((s) => [s.keyword, s.name, s.from, s.line, s.lines.map((l) => l.line)])).toEqual([
      ['global', undefined, undefined, 2, [3]],
      ['defaults', 'base', undefined, 5, [6]],
      ['backend', 'be', 'base', 7, [8]],
      ['listen', 'health', undefined, 9, [10]],
    ]);
    expect(cfg.sections[0]?.lines[0]?.text).toBe('hard-stop-after 20s');
  });

  it('never fails: garbage and lines before any section are passed over', () => {
    expect(() => parseHAProxyConfig('"unterminated\nserver x y\n\u0000\u0001')).not.toThrow();
    expect(parseHAProxyConfig('server x y\nbackend b\n server a b:1').sections.map((s) => s.lines.length)).toEqual([1]);
  });
});

describe('haproxyFacts', () => {
  it('reads hard-stop-after and master-worker from global', () => {
    expect(facts('global\n  hard-stop-after 20s\n  master-worker').hardStopAfter).toEqual({
      ms: 20_000,
      line: 2,
      text: 'hard-stop-after 20s',
    });
    expect(facts('global\n  master-worker').masterWorkerKeyword).toBe(true);
    expect(facts('defaults\n  hard-stop-after 20s').hardStopAfter).toBeUndefined();
  });

  it("applies HAProxy's defaults to a bare server: no check, inter 2s, fall 3, init-addr last,libc", () => {
    expect(server('backend b\n  server a redis-0.redis:6379', 'a')).toMatchObject({
      host: 'redis-0.redis',
      check: false,
      interMs: 2000,
      fall: 3,
      initAddr: { methods: ['last', 'libc'], from: 'default' },
      resolvers: undefined,
    });
  });

  it('default-server applies to later servers of its section only, and cumulatively', () => {
    const text = [
      'backend b',
      '  server before x:1',
      '  default-server init-addr none',
      '  default-server resolvers k8s',
      '  server after y:1',
      '  server own z:1 init-addr libc',
    ].join('\n');
    expect(server(text, 'before')?.initAddr.methods).toEqual(['last', 'libc']);
    expect(server(text, 'after')).toMatchObject({
      initAddr: { methods: ['none'], from: 'default-server line 3' },
      resolvers: { name: 'k8s', from: 'default-server line 4' },
    });
    expect(server(text, 'own')?.initAddr).toEqual({ methods: ['libc'], from: 'server' });
  });

  it('a defaults section carries default-server to the sections after it, until the next defaults; `from` picks a named one', () => {
    const text = [
      'defaults',
      '  default-server init-addr none inter 1s',
      'backend one',
      '  server a x:1',
      'defaults named',
      '  default-server fall 5',
      'backend two',
      '  server b y:1',
      'backend three from named',
      '  server c z:1',
    ].join('\n');
    expect(server(text, 'a')).toMatchObject({ initAddr: { methods: ['none'] }, interMs: 1000 });
    // a new defaults section replaces the previous one
    expect(server(text, 'b')).toMatchObject({ initAddr: { methods: ['last', 'libc'] }, interMs: 2000, fall: 5 });
    expect(server(text, 'c')?.fall).toBe(5);
  });

  it('reads check, no-check, inter, fastinter, fall; keyword arguments are never taken for keywords', () => {
    const text =
      'backend b\n  default-server check inter 3s\n  server a x:1 fall 1 fastinter 500ms\n  server b y:1 no-check\n  server c z:1 cookie check weight 10';
    expect(server(text, 'a')).toMatchObject({ check: true, interMs: 3000, fastinterMs: 500, fall: 1 });
    expect(server(text, 'b')?.check).toBe(false);
    expect(server(text, 'c')?.check).toBe(true);
  });

  it('reads server-template lines (the address is the third word) and lists resolvers sections', () => {
    const f = facts(
      'resolvers k8s\n  parse-resolv-conf\nbackend b\n  server-template web 3 _http._tcp.web.shop.svc.cluster.local resolvers k8s init-addr none',
    );
    expect(f.resolverSections).toEqual(['k8s']);
    expect(f.servers[0]).toMatchObject({
      name: 'web',
      template: true,
      host: '_http._tcp.web.shop.svc.cluster.local',
      resolvers: { name: 'k8s' },
    });
  });

  it('sees servers in listen sections too, not in frontends', () => {
    expect(
      facts('frontend f\n  server a x:1\nlisten l\n  server b y:1').servers.map((s) => `${s.section} ${s.name}`),
    ).toEqual(['listen l b']);
  });
});

describe('addressHost: the DNS name to resolve, if the address is one', () => {
  it.each([
    [
      'redis-ha-node-1.redis-ha-headless.redis.svc.cluster.local:6379',
      'redis-ha-node-1.redis-ha-headless.redis.svc.cluster.local',
    ],
    ['web:8080', 'web'],
    ['web', 'web'],
    ['ipv6@web.example.com:80', 'web.example.com'],
    ['10.0.0.1:80', undefined],
    ['[::1]:80', undefined],
    ['2001:db8::1', undefined],
    ['unix@/run/app.sock', undefined],
    ['/run/app.sock', undefined],
    ['abns@app', undefined],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: haproxy.cfg's environment variable syntax
    ['${BACKEND}:80', undefined],
    ['*:80', undefined],
  ])('%s → %s', (address, host) => {
    expect(addressHost(address)).toBe(host);
  });
});

describe('toleratesUnresolved: init-addr lets HAProxy start without the name', () => {
  it.each([
    [['last', 'libc'], false],
    [['libc'], false],
    [['last', 'libc', 'none'], true],
    [['none'], true],
    [['libc', '10.0.0.9'], true],
  ])('%j → %s', (methods, yes) => {
    expect(toleratesUnresolved(methods)).toBe(yes);
  });
});

describe('detectionMs: how long a dead server stays up in HAProxy', () => {
  it.each([
    ['server a x:1 check', 6000],
    ['server a x:1 check inter 3s fall 1', 3000],
    ['server a x:1 check inter 5s fall 3 fastinter 1s', 7000],
  ])('%s → %d ms', (line, ms) => {
    expect(detectionMs(facts(`backend b\n  ${line}`).servers[0]!)).toBe(ms);
  });
});
