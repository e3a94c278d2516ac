// `kubectl haptic status --watch` in a real terminal: a tmux pane of a fixed size runs an interactive shell; the test
// types the command, follows the screen with capture-pane, and checks the terminal afterwards (shell usable, cursor
// visible again). Our own tmux server (-L socket, no config file), killed in afterAll.
import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../cluster/cluster.ts';
import { resetKnobs, setKnobs } from '../cluster/standins/knobs.ts';
import { adminApi, cluster, gatedDeployment, newNamespace, service, waitFor } from './support.ts';

const run = promisify(execFile);
const SOCKET = `kubectl-haptic-e2e-${process.pid}`;
const SESSION = 'watch';
const tmux = async (...args: string[]) => (await run('/usr/bin/tmux', ['-L', SOCKET, '-f', '/dev/null', ...args])).stdout;
const screen = async () => (await tmux('capture-pane', '-p', '-t', SESSION)).split('\n').map((l) => l.trimEnd());
const paneInfo = async (format: string) => (await tmux('display-message', '-p', '-t', SESSION, format)).trim();
const type = (text: string) => tmux('send-keys', '-t', SESSION, '-l', text).then(() => tmux('send-keys', '-t', SESSION, 'Enter'));

const api = () => adminApi();

async function served(namespace: string, name: string, replicas: number): Promise<string[]> {
  await api().apply([
    gatedDeployment({ name, namespace, replicas, maxSurge: 1, maxUnavailable: 0 }),
    service({ name, namespace, selector: { app: name } }),
  ]);
  await waitFor(() => api().get<any>('apps/v1', 'Deployment', name, namespace), {
    what: `deployment ${name} available`,
    timeoutMs: 60_000,
    intervalMs: 200,
    until: (d) => d.status?.observedGeneration === d.metadata.generation && d.status?.updatedReplicas === replicas && d.status?.availableReplicas === replicas && d.status?.replicas === replicas,
  });
  return (await api().list<any>('v1', 'Pod', { namespace, labelSelector: `app=${name}` })).map((p) => p.metadata.name);
}

/** Starts a rollout (new image; new pods start 1.5 s after scheduling) and returns the new pod-template-hash. */
async function rollout(namespace: string, name: string): Promise<string> {
  const template = { metadata: { annotations: { 'standin.kubectl-haptic.dev/start-delay-ms': '1500' } }, spec: { containers: [{ name: 'app', image: 'example/app:2' }] } };
  await api().patch('apps/v1', 'Deployment', name, namespace, { spec: { template } }, { type: 'strategic' });
  const pod = await waitFor(
    async () => (await api().list<any>('v1', 'Pod', { namespace, labelSelector: `app=${name}` })).find((p) => p.spec.containers[0].image === 'example/app:2'),
    { what: `a new pod of ${name}`, intervalMs: 100 },
  );
  return pod.metadata.labels['pod-template-hash'];
}

/** The cells of the table rows of pods whose name starts with `prefix` (cells are at least 3 spaces apart). */
const rows = (lines: string[], prefix: string) => lines.filter((l) => l.startsWith(prefix)).map((l) => l.split(/ {2,}/));

/** Waits for the shell prompt, clears the screen, types the command. */
async function start(command: string): Promise<void> {
  await waitFor(() => paneInfo('#{pane_current_command}'), { what: 'the shell to be idle', until: (c) => c === 'bash' });
  await type('clear');
  await waitFor(screen, { what: 'a cleared screen', intervalMs: 100, until: (s) => s.filter(Boolean).length <= 1 });
  await type(command);
}

async function shellWorks(): Promise<void> {
  await waitFor(() => paneInfo('#{pane_current_command}'), { what: 'the shell back in the foreground', until: (c) => c === 'bash' });
  expect(await paneInfo('#{cursor_flag}')).toBe('1'); // Ink showed the cursor again
  await type('echo ok-$((1+1))');
  await waitFor(screen, { what: 'the shell to answer', intervalMs: 100, until: (s) => s.includes('ok-2') });
}

describe('kubectl haptic status --watch in a terminal', () => {
  let socketPath = '';
  beforeAll(async () => {
    await tmux('new-session', '-d', '-s', SESSION, '-x', '160', '-y', '40', '-c', repoRoot, '-e', `KUBECONFIG=${cluster().adminKubeconfig}`, 'bash --norc --noprofile');
    await tmux('set-option', '-t', SESSION, 'status', 'off');
    expect(await paneInfo('#{pane_width}x#{pane_height}')).toBe('160x40');
    socketPath = await paneInfo('#{socket_path}');
  });
  afterAll(async () => {
    await tmux('kill-session', '-t', SESSION).catch(() => undefined); // the last session: our server exits
    if (socketPath.includes(SOCKET)) rmSync(socketPath, { force: true });
  });
  afterEach(async () => {
    await resetKnobs(cluster().adminKubeconfig);
  });

  it('draws the rollout live, shows the gate ✓ on each new pod, exits 0 once drained and leaves a usable terminal', async () => {
    const ns = await newNamespace('watch');
    const oldNames = await served(ns, 'web', 2);
    const hash = await rollout(ns, 'web');
    await start(`bin/kubectl-haptic status web -n ${ns} --watch --drained; echo "exit=$?"`);

    const live = await waitFor(screen, {
      what: 'both new pods with the gate ✓ on screen',
      timeoutMs: 60_000,
      intervalMs: 100,
      until: (s) => {
        const fresh = rows(s, `web-${hash}-`);
        return fresh.length === 2 && fresh.every((cells) => cells[2]?.startsWith('✓ '));
      },
    });
    const cursorWhileLive = await paneInfo('#{cursor_flag}');
    // each cell read by what it must say (not by the spaces between), then laid out as the text view lays it out:
    // every column as wide as its widest cell plus 3 spaces
    const cellPattern = new RegExp(`^(web-${hash}-\\w+) +(✓ \\d+s) +(✓ \\d+s \\(\\+\\d+s\\)) +(✓ \\d+s) +(web: [a-z, ]+?) +((?:en|dis)abled \\d+/\\d+|not in config) +(\\d+s)$`);
    const newLines = live.filter((l) => l.startsWith(`web-${hash}-`));
    expect(newLines).toHaveLength(2);
    const cells = newLines.map((l) => {
      const m = cellPattern.exec(l);
      expect(m, l).not.toBeNull();
      return m!.slice(1);
    });
    const names = ['NAME', 'CONTAINERS', 'GATE', 'READY', 'ENDPOINTS', 'HAPROXY', 'AGE'];
    const table = [names, ...cells];
    const width = (col: number) => Math.max(...table.map((r) => r[col]!.length));
    const laidOut = table.map((r) => r.map((c, col) => (col === r.length - 1 ? c : c.padEnd(width(col) + 3))).join(''));
    expect(live).toContain(laidOut[0]);
    expect(newLines).toEqual(laidOut.slice(1));
    expect(live.some((l) => l.startsWith('NEW PODS replicaset/web-' + hash + ' (revision 2)'))).toBe(true);
    expect(cursorWhileLive).toBe('0'); // hidden while Ink draws

    const final = await waitFor(screen, { what: 'the watch to exit', timeoutMs: 60_000, intervalMs: 200, until: (s) => s.some((l) => l.startsWith('exit=')) });
    expect(final.filter((l) => l.startsWith('exit='))).toEqual(['exit=0']);
    // the last frame stays on screen: complete and drained, no old pods left
    expect(final).toContain('✓ deployment "web" successfully rolled out');
    expect(final.some((l) => l.startsWith('OLD PODS'))).toBe(false);
    expect(final.some((l) => l.startsWith('Ctrl-C to stop watching'))).toBe(false);
    expect(rows(final, `web-${hash}-`)).toHaveLength(2);
    const left = await api().list<any>('v1', 'Pod', { namespace: ns, labelSelector: 'app=web' });
    expect(left.filter((p) => oldNames.includes(p.metadata.name))).toEqual([]);
    await shellWorks();
  });

  it('stops on Ctrl-C with exit code 130 while a rollout is stalled, and the terminal is usable afterwards', async () => {
    const ns = await newNamespace('watch-stop');
    await served(ns, 'stuck', 1);
    await setKnobs(cluster().adminKubeconfig, { leader: 'false' });
    const hash = await rollout(ns, 'stuck');
    await start(`bin/kubectl-haptic status stuck -n ${ns} --watch`);

    const live = await waitFor(screen, {
      what: 'the new pod waiting for the gate on screen',
      timeoutMs: 30_000,
      intervalMs: 100,
      until: (s) => rows(s, `stuck-${hash}-`).some((cells) => cells[1]?.startsWith('✓ ') && cells[2] === '… waiting'),
    });
    expect(live).toContain('Ctrl-C to stop watching (the rollout goes on)');
    expect(await paneInfo('#{cursor_flag}')).toBe('0');
    expect(await paneInfo('#{pane_current_command}')).not.toBe('bash');

    await tmux('send-keys', '-t', SESSION, 'C-c');
    await waitFor(() => paneInfo('#{pane_current_command}'), { what: 'the watch to stop', timeoutMs: 10_000, intervalMs: 100, until: (c) => c === 'bash' });
    await type('echo "exit=$?"');
    const after = await waitFor(screen, { what: 'the exit code', intervalMs: 100, until: (s) => s.some((l) => l.startsWith('exit=')) });
    expect(after.filter((l) => l.startsWith('exit='))).toEqual(['exit=130']);
    await shellWorks();
  });
});
