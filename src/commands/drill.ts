import { transitionText } from '../model/rollout/transitions.ts';
import { Args, Flags } from '@oclif/core';
import { KubeCommand } from '../cli/base-command.ts';
import { parseDuration } from '../cli/duration.ts';
import { ExitCode, UserError } from '../lib/errors.ts';
import { conditionTypeFlag, exitCodesHelp, outputFlag } from '../cli/flags.ts';
import { drillExitCode } from '../cli/outcomes.ts';
import { DEFAULT_PROBE_IMAGE, permissionText } from '../model/drill/plan.ts';
import { checkPermissions, Interrupted, planDrill, runDrill } from '../services/drill.ts';
import { targetNames, targetRef } from '../services/targets.ts';
import { drillText } from '../ui/drill-text.ts';
import { formatStructured, toYaml } from '../ui/output.ts';
import { waitLines } from '../ui/wait-text.ts';

export default class Drill extends KubeCommand {
  static override summary =
    'Count the requests a rollout drops: a probe pod sends requests while the Deployment, StatefulSet, DaemonSet or Argo Rollout rolls.';
  static override description = `\
Creates a short-lived probe pod in the workload's namespace that sends a GET to the Service of its pods (or, \
with --host, through HAPTIC's HAProxy with that Host header) every --interval, each on a new connection.

Then it restarts the rollout (as kubectl rollout restart, an Argo Rollout as kubectl argo rollouts restart; \
--no-restart waits for one instead) and follows it as status --wait --drained: a Deployment's new pods beside its \
old ones, a StatefulSet's one ordinal at a time, a DaemonSet's node by node.

Then it reads the probe's log and reports the requests sent and the failures by class — connection refused, \
connection reset, timeout, HTTP 5xx, other — each group set against the rollout change closest before it (the \
restart, a new pod Ready, an old pod draining or gone).

It says what it creates before creating it, and deletes its probe pod at the end, also on Ctrl-C or an error.

Before anything is created it checks (SelfSubjectAccessReview, as kubectl auth can-i) that you may: create, delete \
pods and get pods/log; patch the workload (deployments or statefulsets; unless --no-restart); list and watch it, \
a Deployment's replicasets, pods, services and endpointslices. --dry-run prints the probe pod and the restart patch instead.

The probe runs curl in a shell loop (default image ${DEFAULT_PROBE_IMAGE}); its exit code tells the classes apart. \
Another image must have sh and curl 7.75 or newer.

${exitCodesHelp({
  0: 'no request failed',
  1: 'a request failed, the rollout failed, or the probe pod could not start',
  2: 'timed out: --timeout, or an API request did (--request-timeout)',
  4: 'cluster, permission or credential error (unreachable, refused)',
  130: 'stopped with Ctrl-C (the probe pod is deleted)',
})}`;
  static override examples = [
    {
      description: 'Restart web and count what its Service drops meanwhile',
      command: 'kubectl haptic drill web -n shop',
    },
    {
      description: "Through HAPTIC's HAProxy, as clients of an ingress host see it",
      command: 'kubectl haptic drill web -n shop --host shop.example.com',
    },
    {
      description: 'Wait for the next rollout (started by CI) instead of restarting',
      command: 'kubectl haptic drill web --no-restart --timeout 15m',
    },
    {
      description: 'Show the probe pod and the restart patch, create nothing',
      command: 'kubectl haptic drill web --dry-run',
    },
    { description: 'Restart a StatefulSet ordinal by ordinal', command: 'kubectl haptic drill statefulset/db -n shop' },
    { description: 'The report as JSON', command: 'kubectl haptic drill web -o json' },
  ];
  static override args = {
    name: Args.string({
      description:
        'A Deployment, StatefulSet, DaemonSet or Argo Rollout: NAME, deployment/NAME, statefulset/NAME (sts/NAME), daemonset/NAME (ds/NAME) or rollout/NAME (ro/NAME).',
      required: true,
      ignoreStdin: true,
    }),
  };
  static override flags = {
    service: Flags.string({
      summary: "The Service to send requests to (default: the one that selects the workload's pods).",
      exclusive: ['host'],
    }),
    host: Flags.string({
      summary: "Send the requests through HAPTIC's HAProxy with this Host header (an ingress host) instead.",
    }),
    'haproxy-service': Flags.string({
      summary: "With --host: the Service in front of HAPTIC's HAProxy, NAMESPACE/NAME (default: the only one).",
      dependsOn: ['host'],
    }),
    port: Flags.integer({
      summary: "The Service's port (default: its only TCP port, or the one named http).",
      min: 1,
      max: 65535,
    }),
    path: Flags.string({ summary: 'The path to request.', default: '/' }),
    image: Flags.string({
      summary: 'The probe image: it needs sh and curl 7.75 or newer.',
      default: DEFAULT_PROBE_IMAGE,
    }),
    interval: Flags.string({ summary: 'The pause after each request.', default: '100ms' }),
    'probe-timeout': Flags.string({
      summary: 'How long one request may take before it counts as a timeout.',
      default: '2s',
    }),
    'no-restart': Flags.boolean({ summary: 'Do not restart the rollout: wait for one to start (and finish).' }),
    timeout: Flags.string({ summary: 'Give up after this long (e.g. 10m; 0 = no limit).', default: '10m' }),
    'dry-run': Flags.boolean({ summary: 'Print the probe pod and the restart patch; create and change nothing.' }),
    output: outputFlag,
    'condition-type': conditionTypeFlag,
  };

  async run(): Promise<void> {
    const { flags, args } = await this.parse(Drill);
    const [target] = targetNames([args.name]);
    const intervalMs = parseDuration(flags.interval, '--interval');
    const probeTimeoutMs = parseDuration(flags['probe-timeout'], '--probe-timeout');
    if (intervalMs < 10) throw new UserError('--interval must be at least 10ms');
    if (probeTimeoutMs < 100) throw new UserError('--probe-timeout must be at least 100ms');
    const client = this.client(flags);
    const request = {
      namespace: client.connection.namespace,
      target: target!,
      image: flags.image,
      service: flags.service,
      host: flags.host,
      haproxyService: flags['haproxy-service'],
      port: flags.port,
      path: flags.path,
      intervalMs,
      probeTimeoutMs,
      restart: !flags['no-restart'],
      timeoutMs: parseDuration(flags.timeout, '--timeout'),
      conditionType: flags['condition-type'],
    };
    const plan = await planDrill(client, request);
    await checkPermissions(client, plan);
    if (flags['dry-run']) {
      const shown = {
        pod: plan.pod,
        restartPatch: plan.restart?.body ?? null,
        permissions: plan.permissions.map(permissionText),
      };
      process.stdout.write(
        this.safeLines(
          flags.output
            ? formatStructured(shown, flags.output)
            : `# the probe pod drill would create\n${toYaml(plan.pod)}# then ${plan.restart ? `patch ${targetRef(plan.workload)} (${plan.restart.patchType}):\n${toYaml(plan.restart.body)}` : `wait for a rollout of ${targetRef(plan.workload)} (--no-restart)\n`}`,
        ),
      );
      return;
    }
    const interrupt = new AbortController();
    const stop = () => interrupt.abort();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    try {
      const report = this.safe(
        await runDrill(client, plan, request, {
          signal: interrupt.signal,
          onStep: (line) => process.stderr.write(`${this.safe(line)}\n`),
          onUpdate: (update) => {
            const at = Date.now();
            for (const t of update.transitions)
              process.stderr.write(
                `${waitLines(this.safe({ at: t.at ?? at, kind: 'transition', text: transitionText(t) }))[0]}\n`,
              );
          },
        }),
        flags.output,
      );
      process.stdout.write(
        flags.output ? formatStructured(report, flags.output) : drillText(report, this.paint(flags)),
      );
      this.finish(drillExitCode(report));
    } catch (error) {
      if (error instanceof Interrupted) {
        process.stderr.write('interrupted: the probe pod was deleted; nothing is reported\n');
        this.finish(ExitCode.interrupted);
        return;
      }
      throw error;
    } finally {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
    }
  }
}
