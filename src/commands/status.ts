import { Flags } from '@oclif/core';
import { KubeCommand } from '../cli/base-command.ts';
import { parseDuration } from '../cli/duration.ts';
import { ExitCode, UserError } from '../lib/errors.ts';
import { exitCodesHelp, failFastFlags, parsePatience, rolloutArgs, rolloutFlags } from '../cli/flags.ts';
import { waitExitCode } from '../cli/outcomes.ts';
import { rolloutSelection } from '../cli/selection.ts';
import { followStatus, loadStatus, waitStatus } from '../services/status.ts';
import { noneFound } from '../services/targets.ts';
import type { RolloutReport } from '../model/rollout/report.ts';
import { formatStructured } from '../ui/output.ts';
import { rolloutOutput, statusText } from '../ui/status-text.ts';

export default class Status extends KubeCommand {
  static override summary = 'Follow the readiness gate on every new pod and watch old pods drain.';
  static override description = `\
Shows, for the rollout of a Deployment, a StatefulSet, a DaemonSet or an Argo Rollout, each new pod's containers, HAPTIC gate \
condition, Ready condition, endpoint in each selecting Service and whether HAProxy routes to it on every HAProxy \
pod; each old pod's termination and drain; and HAPTIC's leader and fleet. A StatefulSet's new pods are those of its \
update revision (controller-revision-hash), shown in ordinal order; a DaemonSet's those of its template generation \
(pod-template-generation), one per node; an Argo Rollout's those of its current pod-template hash (the canary or \
preview ReplicaSet), its old ones the stable ReplicaSet's.

The rollout's words and phase are kubectl rollout status's, for each kind ("partitioned roll out complete" for a \
StatefulSet, "daemon set … successfully rolled out"; one with updateStrategy OnDelete has none: its pods are \
replaced only when deleted). An Argo Rollout's are its controller's, as kubectl argo rollouts status prints them \
("Paused - CanaryPauseStep", "Healthy"), with the canary's step (the steps done, of all, as kubectl argo rollouts \
get rollout counts them) and the step it is at.

Without a name, every Deployment, StatefulSet, DaemonSet and Argo Rollout in the namespace (or matching -l; -A for \
all namespaces; Rollouts where the cluster serves them and you may read them); a NAME two kinds have is ambiguous: \
name the kind (deployment/NAME, statefulset/NAME, daemonset/NAME, rollout/NAME).

One-shot text by default; -o json|yaml prints the model (apiVersion kubectl-haptic/v1, kind Rollout; a RolloutList \
of them for several). When several workloads match, the text is a table, one row each as kubectl get lists them: \
its state, the new pods through the gate (3/5 gated), the old pods left and draining, how long it has been rolling, \
and why-stalled's first finding when it is stalled; failed and stalled rollouts first, complete ones last.

--watch draws a live view until the rollout completes (↑/↓ pick a pod, enter opens its detail, ? lists the keys, q \
quits). When several workloads match (-l, -A, no name), it draws an overview instead, a row each with the one-shot \
table's columns, the ones that need attention first and complete ones dimmed; it follows a workload that comes to \
match after it opened too (it opens when none matches yet, as kubectl get --watch does), and keeps every row until \
you quit. ↑/↓ pick a row, enter opens that workload's live \
view, esc goes back, ? lists the keys, q quits. It stays until q, or with --exit-when-done ends once every rollout \
is complete (with --drained: and drained), then prints the report of each that rolled. Every row is followed on \
one set of informers (the lists and watches of one workload's view, shared by all the rows: they do not grow \
with the rows); HAProxy's sessions (--sessions) are read for the open row only.

--wait prints one line per transition and exits 0 when the rollout is complete (with --drained: and old pods are \
gone; an Argo Rollout: Healthy), 1 when it failed (progress deadline exceeded; a StatefulSet with OnDelete, as \
kubectl; an Argo Rollout Degraded, with Argo's message), 2 on --timeout. It \
fails fast: a stall cause that does not clear by itself (an image that cannot be pulled, a crash loop, no route \
HAPTIC renders, no leader…) ends it with exit 1 once the cause has held past its hold (docs/checks.md says which \
and how long), printing the cause as why-stalled does; --patience 2 doubles every hold, --no-fail-fast waits for \
the deadline as kubectl does. An Argo Rollout paused until a person promotes it (an indefinite pause step, a \
blue-green without auto-promotion) ends it too, after 10 s, with the promote command: kubectl argo rollouts status \
would wait for ever; a timed pause is waited out. Under GitHub Actions (GITHUB_ACTIONS=true) a failure is also an ::error annotation \
and the report or the failure goes to the step summary (docs/ci.md).

After --watch or --wait, a rollout that made progress is summed up in a report: how long each new pod waited for \
its gate, how long each old pod drained, and the HAProxy configurations that carried the change.
--sessions (on by default with --watch) reads what HAProxy itself holds: each old pod's sessions on every HAProxy \
pod, summed over the current and the leaving workers, falling to zero as it drains, and the sessions new pods take. \
The report then says when each old pod drained of connections, or that it was killed with sessions open. It \
execs socat in each HAProxy pod (pods/exec create and get in HAPTIC's namespace, a broad grant: see \
docs/sessions.md); without that permission it says so once and shows the stages only.

${exitCodesHelp({ 130: '--watch stopped with q or Ctrl-C' })}`;
  static override examples = [
    { description: 'One-shot view of a rollout', command: 'kubectl haptic status web -n shop' },
    { description: 'Live view until the rollout completes', command: 'kubectl haptic status deployment/web --watch' },
    {
      description: 'A live overview of every rollout of a release, until each is complete, then their reports',
      command: 'kubectl haptic status -l app.kubernetes.io/part-of=shop --watch --exit-when-done',
    },
    {
      description: 'In CI: wait for the rollout and for old pods to drain, at most 5 minutes',
      command: 'kubectl haptic status web --wait --drained --timeout 5m',
    },
    {
      description: "In CI: also follow each old pod's sessions in HAProxy until it drained of connections",
      command: 'kubectl haptic status web --wait --drained --sessions',
    },
    {
      description: 'A StatefulSet, ordinal by ordinal, in CI',
      command: 'kubectl haptic status statefulset/db -n shop --wait',
    },
    {
      description: 'An Argo Rollout through its canary steps, in CI',
      command: 'kubectl haptic status rollout/web --wait',
    },
    {
      description: 'A row per rollout of a Helm release, the ones that need attention first',
      command: 'kubectl haptic status -l app.kubernetes.io/instance=shop',
    },
    {
      description:
        'Every Deployment, StatefulSet, DaemonSet and Argo Rollout labelled tier=frontend in all namespaces, as JSON',
      command: 'kubectl haptic status -A -l tier=frontend -o json',
    },
  ];
  static override args = rolloutArgs;
  static override flags = {
    ...rolloutFlags,
    watch: Flags.boolean({
      char: 'w',
      summary:
        'Live view (terminal only) until the rollout completes; over several workloads, a live overview with a row each.',
      exclusive: ['wait', 'output'],
    }),
    wait: Flags.boolean({
      summary:
        'No UI: log transitions and exit when the rollout completes, fails or times out; then, if the rollout made progress while followed, print its report (with -o: transitions on stderr, the report as kind RolloutReport on stdout).',
    }),
    timeout: Flags.string({
      summary: 'With --wait: give up after this long (e.g. 90s, 5m; 0 = no limit, the default).',
    }),
    drained: Flags.boolean({ summary: 'With --wait or --watch: also wait until old pods are gone.' }),
    'exit-when-done': Flags.boolean({
      summary:
        "With --watch over several workloads: end once every rollout is complete (with --drained: and drained) and print their reports; without it the overview stays until q. One workload's view ends by itself.",
      dependsOn: ['watch'],
    }),
    ...failFastFlags,
    sessions: Flags.boolean({
      summary:
        "Read each HAProxy pod's sessions to the rollout's pods through pods/exec (socat on HAProxy's master socket; read-only show commands): every second with --watch (on by default there; in the overview of several, for the open row only) or --wait, once otherwise.",
      allowNo: true,
    }),
  };

  async run(): Promise<void> {
    const { flags, args } = await this.parse(Status);
    // a bound on a wait that is not asked for would be ignored in silence: say so instead
    if (flags.timeout !== undefined && !flags.wait)
      throw new UserError('--timeout bounds a --wait; without --wait, status answers at once');
    const timeoutMs = parseDuration(flags.timeout ?? '0', '--timeout');
    const patience = parsePatience(flags.patience);
    if (flags.watch && !process.stdout.isTTY)
      throw new UserError(
        '--watch needs a terminal; use --wait (one line per transition) or -o json when output is piped',
      );
    const client = this.client(flags);
    const selection = rolloutSelection(client, args.name, flags, (note) => this.note(note));
    const conditionType = flags['condition-type'];
    if (flags.watch) {
      const [feed, { watchRollout }, { watchOverview }, { reportText }, { wrapText, terminalWidth }] =
        await Promise.all([
          followStatus(client, selection, {
            conditionType,
            drained: flags.drained,
            sessions: flags.sessions ?? true,
            map: (update) => this.safe(update),
          }),
          import('../ui/ink/watch.tsx'),
          import('../ui/ink/overview-watch.tsx'),
          import('../ui/report-text.ts'),
          import('../ui/wrap.ts'),
        ]);
      let done: boolean;
      let reports: RolloutReport[];
      if (feed.kind === 'many') {
        const watched = await watchOverview(
          {
            subscribe: (onEvent) =>
              feed.subscribe((event) =>
                onEvent(event.type === 'row' ? { ...event, row: this.safe(event.row) } : event),
              ),
            open: (key) => feed.open(key),
          },
          {
            scope: this.safe(feed.scope),
            allNamespaces: selection.namespace === undefined,
            exitWhenDone: flags['exit-when-done'],
          },
          feed.ended,
        );
        done = watched.result === 'done';
        reports = watched.reports;
      } else {
        const watched = await watchRollout(feed.subscribe, feed.ended);
        done = watched.result === 'done';
        reports = watched.report ? [watched.report] : [];
      }
      if (feed.failure() !== undefined) throw feed.failure();
      // the last frame stays on screen; the report of each rollout that made progress follows it
      for (const report of reports)
        process.stdout.write(`\n${wrapText(reportText(report, this.paint(flags)), terminalWidth())}`);
      this.finish(done ? ExitCode.ok : ExitCode.interrupted);
      return;
    }
    if (flags.wait) {
      const [{ waitLines }, { printWaitEnd }] = await Promise.all([
        import('../ui/wait-text.ts'),
        import('../cli/wait-end.ts'),
      ]);
      // with -o the log goes to stderr, so stdout holds only the report, parseable
      const log = flags.output ? process.stderr : process.stdout;
      const result = await waitStatus(client, selection, {
        conditionType,
        drained: flags.drained,
        sessions: flags.sessions ?? false,
        timeoutMs,
        failFast: flags['fail-fast'],
        patience,
        onEntry: (entry) => log.write(`${waitLines(this.safe(entry)).join('\n')}\n`),
      });
      const { outcome } = result;
      printWaitEnd(this.safe(result, flags.output), { output: flags.output, paint: this.paint(flags), timeoutMs });
      this.finish(waitExitCode(outcome));
      return;
    }
    const now = Date.now();
    const answer = this.safe(
      await loadStatus(
        client,
        { ...selection, allowNone: true, conditionType, sessions: flags.sessions, overview: !flags.output },
        now,
      ),
      flags.output,
    );
    const { models } = answer;
    if (!models.length && !flags.output) {
      process.stderr.write(`${this.safe(noneFound(selection))}\n`);
      return;
    }
    if (flags.output) {
      process.stdout.write(formatStructured(rolloutOutput(models, selection.names.length > 0), flags.output));
      return;
    }
    const paint = this.paint(flags);
    if (answer.tops) {
      // several workloads: a row each, as kubectl get lists them; one keeps its full report
      const [{ overviewText }, { describeFinding }] = await Promise.all([
        import('../ui/overview-text.ts'),
        import('../diagnose/catalogue.ts'),
      ]);
      const rows = models.map((model, i) => {
        const top = answer.tops![i];
        return { model, top: top && describeFinding(top) };
      });
      process.stdout.write(overviewText(rows, now, paint, selection.namespace === undefined));
      return;
    }
    process.stdout.write(models.map((m) => statusText(m, now, paint)).join('\n'));
  }
}
