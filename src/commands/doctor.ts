import { Args, Flags } from '@oclif/core';
import { KubeCommand } from '../cli/base-command.ts';
import { UserError } from '../lib/errors.ts';
import { exitCodesHelp } from '../cli/flags.ts';
import { doctorExitCode } from '../cli/outcomes.ts';
import { rolloutSelection } from '../cli/selection.ts';
import { CATALOGUE } from '../diagnose/catalogue.ts';
import type { CatalogueEntry } from '../types/finding.ts';
import { IGNORE_ANNOTATION, type DoctorReport } from '../diagnose/doctor/index.ts';
import { doctorLive, doctorStatic } from '../services/doctor/doctor.ts';
import { noneFound, workloadName } from '../services/targets.ts';
import { doctorOutput } from '../ui/doctor/output.ts';
import { doctorText } from '../ui/doctor/text.ts';
import { formatStructured } from '../ui/output.ts';
import { sarifLog } from '../ui/doctor/sarif.ts';

const checks = (Object.entries(CATALOGUE) as [string, CatalogueEntry][])
  .filter(([id]) => id.startsWith('DR'))
  .map(([id, c]) => `  ${id}  ${[c.severity, ...Object.values(c.severityOf ?? {})].join('/')}  ${c.summary}`)
  .join('\n');

export default class Doctor extends KubeCommand {
  static override summary =
    'Find the drain-safety traps that drop requests during rollouts and drains, with evidence and a fix.';
  static override description = `\
Checks workloads, the Services, EndpointSlices, PodDisruptionBudgets and autoscalers around them, and the \
HAProxy tier in front of them (HAPTIC's HAProxy pods and the configuration they run, or a plain HAProxy Deployment \
whose haproxy.cfg comes from a mounted ConfigMap).

Live mode reads the cluster in one parallel round of list calls (no request per pod).

With -f, static mode reads manifests only (files, folders — -R for their sub-folders —, or - for standard input; \
multi-document YAML or JSON, kind: List, helm template output) and needs no cluster: it checks every Deployment, \
StatefulSet, DaemonSet and Argo Rollout in them (NAME or KIND/NAME picks one), names the kinds it passes over, and \
lists the checks that need live state as not run ("needs a cluster") instead of guessing. Input it cannot read (not \
YAML or JSON, an unrendered template, no kind or name) is never a pass: it is named and the exit code is 3. The \
live mode checks Deployments, StatefulSets, DaemonSets and Argo Rollouts (a NAME two kinds have is ambiguous: name the kind).

Checks (id, severity — a second one for the form that is worse —, what it finds; docs/checks.md has each one's \
title and fix):
${checks}

Suppress checks on one workload with the annotation ${IGNORE_ANNOTATION}: "DR101,DR401" (on the \
HAProxyTemplateConfig for HAPTIC's tier): suppressed findings are still shown, marked, and do not count for the \
exit code.

-o json|yaml prints kind DoctorReport; -o sarif prints SARIF 2.1.0 for CI.

${exitCodesHelp({ 1: 'an error was found (with --strict, a warning too)' })}`;
  static override examples = [
    {
      description: 'Check one Deployment and the HAProxy tier in front of it',
      command: 'kubectl haptic doctor web -n shop',
    },
    {
      description: 'Check manifests in CI before they are applied, as SARIF',
      command: 'helm template shop ./chart | kubectl haptic doctor -f - -o sarif > doctor.sarif',
    },
    {
      description: 'Check a folder of manifests; warnings fail too',
      command: 'kubectl haptic doctor -f deploy/ --strict',
    },
    {
      description: 'Every Deployment of every namespace, with Helm history (reads release Secrets)',
      command: 'kubectl haptic doctor -A --helm-history -o json',
    },
  ];
  static override args = {
    name: Args.string({
      description:
        'A workload: NAME, deployment/NAME, statefulset/NAME (sts/NAME), daemonset/NAME (ds/NAME) or rollout/NAME (ro/NAME).',
      required: false,
      ignoreStdin: true,
    }),
  };
  static override flags = {
    filename: Flags.string({
      char: 'f',
      summary: 'Check manifests instead of the cluster: a file, a folder, or - for standard input (repeatable).',
      multiple: true,
      // `-f FILE NAME`: one value per -f, so NAME stays the argument (kubectl's -f takes one value too)
      multipleNonGreedy: true,
    }),
    recursive: Flags.boolean({
      char: 'R',
      summary: 'Read the folders given with -f and their sub-folders, as kubectl apply -R does.',
    }),
    selector: Flags.string({ char: 'l', summary: 'Label selector for the workloads to check.' }),
    'all-namespaces': Flags.boolean({ char: 'A', summary: 'Workloads of every namespace.' }),
    output: Flags.option({ char: 'o', summary: 'Output format.', options: ['json', 'yaml', 'sarif'] as const })(),
    strict: Flags.boolean({ summary: 'Exit 1 on warnings too.' }),
    sessions: Flags.boolean({
      summary:
        "Live: also read each HAPTIC HAProxy pod's sessions once through pods/exec (socat on HAProxy's master socket) for DR207, a hard-stop-after shorter than the sessions take.",
    }),
    'helm-history': Flags.boolean({
      summary:
        "DR404: compare PodDisruptionBudgets across the Helm release's revisions (needs read on its Secrets; prints none of their content).",
    }),
  };

  async run(): Promise<void> {
    const { flags, args } = await this.parse(Doctor);
    const output = flags.output;
    let report: DoctorReport;
    if (flags.filename?.length) {
      if (flags['all-namespaces'])
        throw new UserError('-A reads the cluster; with -f every Deployment of the manifests is checked');
      if (flags['helm-history']) throw new UserError('--helm-history reads the cluster; it does not go with -f');
      if (flags.sessions) throw new UserError('--sessions reads the cluster; it does not go with -f');
      report = this.safe(
        await doctorStatic({
          paths: flags.filename,
          namespace: flags.namespace ?? 'default',
          name: args.name ? workloadName(args.name) : undefined,
          selector: flags.selector,
          recursive: flags.recursive,
        }),
        output,
      );
    } else {
      if (flags.recursive) throw new UserError('-R reads folders given with -f');
      const client = this.client(flags);
      const selection = { ...rolloutSelection(client, undefined, flags), all: !args.name && !flags.selector };
      const names = args.name ? [workloadName(args.name)] : [];
      report = this.safe(
        await doctorLive(client, { ...selection, names, helmHistory: flags['helm-history'], sessions: flags.sessions }),
        output,
      );
      if (!report.subjects.length && !output) {
        process.stderr.write(`${this.safe(noneFound(selection))}\n`);
        return;
      }
    }
    if (output === 'sarif') process.stdout.write(`${JSON.stringify(sarifLog(report, this.config.version), null, 2)}\n`);
    else if (output) process.stdout.write(formatStructured(doctorOutput(report), output));
    else process.stdout.write(doctorText(report, this.paint(flags)));
    // the report is printed, and still no pass: what could not be read was not checked
    const n = report.unreadable.length;
    if (n)
      throw new UserError(
        `${n} ${n === 1 ? 'document' : 'documents'} of the input could not be read and ${n === 1 ? 'was' : 'were'} not checked (listed ${output ? 'under unreadable' : 'at the end'})`,
      );
    this.finish(doctorExitCode(report, flags.strict));
  }
}
