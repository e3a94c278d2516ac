// The release as krew installs it: `npm run package` (scripts/package.js) builds every platform's archive and the
// krew manifest in one run; the manifest's checksums must be those archives', each archive must hold exactly the
// executable for its platform, kubectl_complete-haptic and LICENSE. Then the linux/amd64 executable, unpacked into a
// folder with no `node` on PATH and no node_modules, passes the smoke subset of the end-to-end scenarios: --version,
// --help, the golden scenarios (why-stalled, enable-gate --dry-run=client, one-shot status), completion, and
// kubectl's own plugin dispatch; and it loads the modules its main leaves out (undici, OIDC) from its assets.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { load } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../cluster/cluster.ts';
import { fakeCluster, hostileServer, NS } from '../hostile/server.ts';
import { goldenScenarios } from './golden-scenarios.ts';
import {
  adminApi,
  gatedDeployment,
  newNamespace,
  routedService,
  runExecutable,
  runPlugin,
  waitFor,
} from './support.ts';

interface KrewPlatform {
  selector: { matchLabels: { os: string; arch: string } };
  uri: string;
  sha256: string;
  bin: string;
  files: { from: string; to: string }[];
}

const version = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')).version as string;
const LICENSE = readFileSync(join(repoRoot, 'LICENSE'));

/** What each platform's executable must be: the file format and machine Node was built for. */
const FORMATS: Record<string, (head: Buffer) => boolean> = {
  'linux/amd64': (h) => h.readUInt32BE(0) === 0x7f454c46 && h.readUInt16LE(18) === 62, // ELF, EM_X86_64
  'linux/arm64': (h) => h.readUInt32BE(0) === 0x7f454c46 && h.readUInt16LE(18) === 183, // ELF, EM_AARCH64
  'darwin/amd64': (h) => h.readUInt32LE(0) === 0xfeedfacf && h.readUInt32LE(4) === 0x01000007, // Mach-O 64, x86_64
  'darwin/arm64': (h) => h.readUInt32LE(0) === 0xfeedfacf && h.readUInt32LE(4) === 0x0100000c, // Mach-O 64, arm64
  'windows/amd64': (h) => h.toString('latin1', 0, 2) === 'MZ' && h.readUInt16LE(h.readUInt32LE(0x3c) + 4) === 0x8664, // PE, AMD64
};

// Node flips this fuse from :0 to :1 in the executable it writes the application into (postject's sentinel).
const SEA_FUSE = Buffer.from('NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2:1');

/** The members of a zip archive, read from its central directory (names, Unix modes, contents). */
function unzip(archive: Buffer): { name: string; mode: number; data: Buffer }[] {
  const end = archive.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  const count = archive.readUInt16LE(end + 10);
  let at = archive.readUInt32LE(end + 16);
  const members = [];
  for (let i = 0; i < count; i++) {
    const nameLength = archive.readUInt16LE(at + 28);
    const extra = archive.readUInt16LE(at + 30) + archive.readUInt16LE(at + 32);
    const local = archive.readUInt32LE(at + 42);
    const compressed = archive.readUInt32LE(at + 20);
    const data = archive
      .subarray(local + 30 + archive.readUInt16LE(local + 26) + archive.readUInt16LE(local + 28))
      .subarray(0, compressed);
    members.push({
      name: archive.toString('utf8', at + 46, at + 46 + nameLength),
      mode: archive.readUInt32LE(at + 38) >>> 16,
      data: archive.readUInt16LE(at + 10) === 8 ? inflateRawSync(data) : data,
    });
    at += 46 + nameLength + extra;
  }
  return members;
}

/** The members of a .tar.gz (names and modes), as GNU tar lists them, and one member's contents. */
const tarList = (archive: string) =>
  execFileSync('tar', ['-tvzf', archive], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((l) => ({ mode: l.split(/\s+/)[0]!, name: l.split(/\s+/).at(-1)! }));
const tarRead = (archive: string, member: string) =>
  execFileSync('tar', ['-xzOf', archive, member], { maxBuffer: 1 << 30 });

describe('the release: npm run package', () => {
  let out: string;
  let platforms: KrewPlatform[];
  const scratch: string[] = [];

  beforeAll(() => {
    out = mkdtempSync(join(tmpdir(), 'kh-release-'));
    scratch.push(out);
    // scripts/package.js as `npm run package` runs it, with this process's Node (the pinned one)
    execFileSync(process.execPath, ['scripts/package.js', '--out', out, '--manifest', join(out, 'haptic.yaml')], {
      cwd: repoRoot,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    platforms = (load(readFileSync(join(out, 'haptic.yaml'), 'utf8')) as { spec: { platforms: KrewPlatform[] } }).spec
      .platforms;
  }, 900_000);
  afterAll(() => {
    for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
  });

  const label = (p: KrewPlatform) => `${p.selector.matchLabels.os}/${p.selector.matchLabels.arch}`;

  it('lists linux/amd64 and linux/arm64, and exactly the archives this run built', () => {
    const labels = platforms.map(label);
    expect(labels).toEqual(expect.arrayContaining(['linux/amd64', 'linux/arm64']));
    expect(new Set(labels).size).toBe(labels.length);
    for (const l of labels) expect(Object.keys(FORMATS)).toContain(l);
    const archives = readdirSync(out)
      .filter((f) => f !== 'haptic.yaml')
      .sort();
    expect(platforms.map((p) => basename(p.uri)).sort()).toEqual(archives);
  });

  it("gives every archive's real sha256, its name and release URL", () => {
    for (const p of platforms) {
      const { os, arch } = p.selector.matchLabels;
      const name = `kubectl-haptic-v${version}-${os}-${arch}.${os === 'windows' ? 'zip' : 'tar.gz'}`;
      expect(p.uri).toBe(`https://github.com/kubectl-haptic/kubectl-haptic/releases/download/v${version}/${name}`);
      expect(p.sha256).toBe(
        createHash('sha256')
          .update(readFileSync(join(out, name)))
          .digest('hex'),
      );
    }
  });

  it("holds each platform's executable, kubectl_complete-haptic and LICENSE, as the manifest installs them", () => {
    for (const p of platforms) {
      const archive = join(out, basename(p.uri));
      const windows = p.selector.matchLabels.os === 'windows';
      const executable = windows ? 'kubectl-haptic.exe' : 'kubectl-haptic';
      const completion = windows ? 'kubectl_complete-haptic.cmd' : 'kubectl_complete-haptic';
      expect(p.bin).toBe(executable);
      expect(p.files).toEqual([executable, completion, 'LICENSE'].map((from) => ({ from, to: '.' })));
      let read: (member: string) => Buffer;
      if (windows) {
        const members = unzip(readFileSync(archive));
        expect(members.map((m) => m.name).sort()).toEqual(['LICENSE', completion, executable].sort());
        read = (member) => members.find((m) => m.name === member)!.data;
        expect(read(completion).toString()).toBe('@"%~dp0kubectl-haptic.exe" __complete %*\r\n');
      } else {
        const members = tarList(archive);
        expect(members.map((m) => `${m.mode} ${m.name}`).sort()).toEqual(
          [`-rw-r--r-- LICENSE`, `-rwxr-xr-x ${completion}`, `-rwxr-xr-x ${executable}`].sort(),
        );
        read = (member) => tarRead(archive, member);
        expect(read(completion)).toEqual(readFileSync(join(repoRoot, 'bin', completion)));
      }
      expect(read('LICENSE')).toEqual(LICENSE);
      const exe = read(executable);
      expect(FORMATS[label(p)]!(exe.subarray(0, 4096)), `${label(p)}: ${executable} is not for that platform`).toBe(
        true,
      );
      expect(exe.includes(SEA_FUSE), `${label(p)}: ${executable} holds no application`).toBe(true);
    }
  });

  it('LICENSE is the Apache-2.0 text the package declares', () => {
    expect(JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')).license).toBe('Apache-2.0');
    expect(LICENSE.toString()).toMatch(/^ +Apache License\n +Version 2\.0, January 2004\n/);
    expect(LICENSE.toString()).toContain('END OF TERMS AND CONDITIONS');
  });

  describe('the linux/amd64 executable, from a folder with no node on PATH and no node_modules', () => {
    let dir: string;
    let PATH: string;
    const exe = () => join(dir, 'kubectl-haptic');
    const run = (args: string[], bin = exe()) => runExecutable(bin, args, { cwd: dir, env: { PATH } });

    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'kh-exe-'));
      scratch.push(dir);
      execFileSync('tar', ['-xzf', join(out, `kubectl-haptic-v${version}-linux-amd64.tar.gz`), '-C', dir]);
      // kubectl for its plugin dispatch, and readlink for kubectl_complete-haptic (a sh script); nothing else
      const tools = join(dir, 'tools');
      mkdirSync(tools);
      for (const tool of ['kubectl', 'readlink']) {
        const found = spawnSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).stdout.trim();
        symlinkSync(found, join(tools, tool));
      }
      PATH = `${dir}:${tools}`;
    });

    it('has no node to fall back on', () => {
      expect(spawnSync('sh', ['-c', 'command -v node'], { env: { PATH } }).status).not.toBe(0);
      for (let d = dir; d !== dirname(d); d = dirname(d))
        expect(existsSync(join(d, 'node_modules')), `${d}/node_modules`).toBe(false);
      expect(readdirSync(dir).sort()).toEqual(['LICENSE', 'kubectl-haptic', 'kubectl_complete-haptic', 'tools']);
    });

    it('prints the same --version and --help as the npm install', async () => {
      for (const args of [['--version'], ['--help'], ['status', '--help'], ['nope']]) {
        const [ours, npm] = await Promise.all([run(args), runPlugin(args)]);
        expect(ours, args.join(' ')).toEqual(npm);
      }
      expect((await run(['--version'])).stdout).toMatch(
        new RegExp(`^kubectl-haptic/${version.replaceAll('.', '\\.')} linux-x64 node-v\\d+\\.\\d+\\.\\d+\\n$`),
      );
    });

    describe('golden scenarios', () => goldenScenarios((args) => run(args)));

    it('loads what its main leaves out from its assets: undici for an http:// server, the OIDC auth-provider', async () => {
      const server = await hostileServer(fakeCluster(), { tls: false });
      try {
        // an id-token client-node's OpenIDConnectAuth takes as it is: a JWT whose exp is an hour away
        const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
        const idToken = `${b64({ alg: 'none' })}.${b64({ iss: 'https://issuer.example', exp: Math.floor(Date.now() / 1000) + 3600 })}.c2ln`;
        const users = {
          token: { token: 'release-token' },
          oidc: {
            'auth-provider': {
              name: 'oidc',
              config: { 'id-token': idToken, 'idp-issuer-url': 'https://issuer.example', 'client-id': 'kh' },
            },
          },
        };
        for (const [name, user] of Object.entries(users)) {
          const kubeconfig = join(dir, `${name}.kubeconfig`);
          const config = {
            apiVersion: 'v1',
            kind: 'Config',
            'current-context': 'c',
            clusters: [{ name: 'k', cluster: { server: server.url } }],
            users: [{ name: 'u', user }],
            contexts: [{ name: 'c', context: { cluster: 'k', user: 'u', namespace: NS } }],
          };
          writeFileSync(kubeconfig, JSON.stringify(config));
          const first = server.received.length;
          const result = await runExecutable(exe(), ['status', 'web', '-o', 'json'], {
            cwd: dir,
            env: { PATH },
            kubeconfig,
          });
          expect(result.stderr, name).toBe('');
          expect(JSON.parse(result.stdout), name).toMatchObject({ kind: 'Rollout', name: 'web', namespace: NS });
          const sent = server.received.slice(first);
          expect(sent.length, name).toBeGreaterThan(0);
          expect(new Set(sent.map((r) => `${r.httpVersion} ${r.headers.authorization}`)), name).toEqual(
            new Set([`1.1 Bearer ${name === 'oidc' ? idToken : 'release-token'}`]),
          );
        }
      } finally {
        await server.close();
      }
    });

    it("completes through kubectl_complete-haptic and runs through kubectl's plugin dispatch", async () => {
      const ns = await newNamespace('exe');
      await adminApi().apply([
        gatedDeployment({ name: 'web', namespace: ns, replicas: 1 }),
        ...routedService({ name: 'web', namespace: ns, selector: { app: 'web' } }),
      ]);
      const complete = join(dir, 'kubectl_complete-haptic');
      expect((await run(['status', '-n', ns, ''], complete)).stdout).toBe('web\n:4\n');
      expect((await run(['why-'], complete)).stdout).toBe(
        'why-stalled\tExplain why a gated rollout is stalled, with evidence and a fix.\n:4\n',
      );
      const kubectl = join(dir, 'tools', 'kubectl');
      expect(await run(['haptic', '--version'], kubectl)).toEqual(await run(['--version']));
      const status = await waitFor(() => run(['haptic', 'status', 'web', '-n', ns, '-o', 'json'], kubectl), {
        what: 'status through kubectl',
        until: (r) => r.code === 0,
      });
      expect(JSON.parse(status.stdout)).toMatchObject({ kind: 'Rollout', name: 'web', namespace: ns });
      expect(status.stderr).toBe('');
    });
  });
});
