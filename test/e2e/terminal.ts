// A real terminal for tests of the live view: a tmux pane of a fixed size running an interactive shell, on a tmux
// server of our own (-L socket, no config file). The test types commands and follows the screen with capture-pane.
import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import { promisify } from 'node:util';
import { repoRoot } from '../cluster/cluster.ts';
import { waitFor } from './support.ts';

const run = promisify(execFile);

export interface Terminal {
  tmux(...args: string[]): Promise<string>;
  /** the pane's lines, trailing spaces cut */
  screen(): Promise<string[]>;
  paneInfo(format: string): Promise<string>;
  /** types a line and Enter */
  type(text: string): Promise<unknown>;
  /** waits for the shell prompt, clears the screen, types the command */
  start(command: string): Promise<void>;
  open(options: { width: number; height: number; kubeconfig: string }): Promise<void>;
  close(): Promise<void>;
}

export function terminal(name: string, session = 'watch'): Terminal {
  const socket = `kubectl-haptic-${name}-${process.pid}`;
  let socketPath = '';
  const tmux = async (...args: string[]) =>
    (await run('/usr/bin/tmux', ['-L', socket, '-f', '/dev/null', ...args])).stdout;
  const screen = async () => (await tmux('capture-pane', '-p', '-t', session)).split('\n').map((l) => l.trimEnd());
  const paneInfo = async (format: string) => (await tmux('display-message', '-p', '-t', session, format)).trim();
  const type = (text: string) =>
    tmux('send-keys', '-t', session, '-l', text).then(() => tmux('send-keys', '-t', session, 'Enter'));
  return {
    tmux,
    screen,
    paneInfo,
    type,
    async start(command) {
      await waitFor(() => paneInfo('#{pane_current_command}'), {
        what: 'the shell to be idle',
        until: (c) => c === 'bash',
      });
      await type('clear');
      await waitFor(screen, { what: 'a cleared screen', intervalMs: 100, until: (s) => s.filter(Boolean).length <= 1 });
      await type(command);
    },
    async open({ width, height, kubeconfig }) {
      await tmux(
        'new-session',
        '-d',
        '-s',
        session,
        '-x',
        String(width),
        '-y',
        String(height),
        '-c',
        repoRoot,
        '-e',
        `KUBECONFIG=${kubeconfig}`,
        'bash --norc --noprofile',
      );
      await tmux('set-option', '-t', session, 'status', 'off');
      socketPath = await paneInfo('#{socket_path}');
    },
    async close() {
      await tmux('kill-session', '-t', session).catch(() => undefined); // the last session: our server exits
      if (socketPath.includes(socket)) rmSync(socketPath, { force: true });
    },
  };
}
