import { Flags } from '@oclif/core';
import { KubeCommand } from '../cli/base-command.ts';
import { ExitCode } from '../lib/errors.ts';
import { exitCodesHelp, rolloutArgs, rolloutFlags } from '../cli/flags.ts';
import { rolloutSelection } from '../cli/selection.ts';
import { CATALOGUE } from '../diagnose/catalogue.ts';
import { whyStalled } from '../services/why-stalled.ts';
import { formatStructured } from '../ui/output.ts';
import { diagnosisOutput, whyText } from '../ui/why-text.ts';

const catalogue = Object.entries(CATALOGUE)
  .filter(([id]) => id.startsWith('HS'))
  .map(([id, c]) => `  ${id}  ${c.summary}`)
  .join('\n');

export default class WhyStalled extends KubeCommand {
  static override summary = 'Explain why a gated rollout is stalled, with evidence and a fix.';
  static override description = `\
Reads the same snapshot as status (one parallel round of list calls, no request per pod) and runs an ordered \
catalogue of checks: the most likely cause is printed first, each with a stable id, the objects and field values \
that prove it, and a fix.

A rollout that is progressing normally is not a stall: it says what the rollout waits for and exits 0.

A StatefulSet gets the same checks, and its own first: the pod an OrderedReady controller waits on that cannot \
become Ready (Kubernetes does not roll a StatefulSet back: the fix names the pod to delete), a claim that is not \
bound; pods a partition or OnDelete keeps on an older revision are warnings. An Argo Rollout gets what its \
controller adds: the Service it points at the new pods alone (a blue-green's preview, a canary's canary Service) \
that no route HAPTIC renders reaches, a pause that waits for kubectl argo rollouts promote, and its Degraded verdict \
(an abort, a failed analysis run) after the cause.

Checks:
${catalogue}

${exitCodesHelp({ 1: 'a stall cause was found' })}`;
  static override examples = [
    { description: 'Why is this rollout stuck?', command: 'kubectl haptic why-stalled web -n shop' },
    { description: 'A StatefulSet', command: 'kubectl haptic why-stalled sts/db -n shop' },
    { description: 'An Argo Rollout', command: 'kubectl haptic why-stalled rollout/web -n shop' },
    {
      description: "With what HAProxy still holds to each old pod (needs pods/exec in HAPTIC's namespace)",
      command: 'kubectl haptic why-stalled web -n shop --sessions',
    },
    {
      description: 'Every Deployment, StatefulSet, DaemonSet and Argo Rollout in every namespace, as JSON',
      command: 'kubectl haptic why-stalled -A -o json',
    },
  ];
  static override args = rolloutArgs;
  static override flags = {
    ...rolloutFlags,
    sessions: Flags.boolean({
      summary:
        "Also read each HAProxy pod's sessions once through pods/exec (socat on HAProxy's master socket): an old pod past its grace period that still holds sessions was never stopped by its node.",
    }),
  };

  async run(): Promise<void> {
    const { flags, args } = await this.parse(WhyStalled);
    const client = this.client(flags);
    // no workload to explain is an input error (exit 3), as the README says: exit 0 would read as "not stalled"
    const selection = rolloutSelection(client, args.name, flags, (note) => this.note(note));
    const results = this.safe(
      await whyStalled(client, { ...selection, conditionType: flags['condition-type'], sessions: flags.sessions }),
      flags.output,
    );
    if (flags.output) process.stdout.write(formatStructured(diagnosisOutput(results), flags.output));
    else process.stdout.write(whyText(results, this.paint(flags)));
    this.finish(results.some((r) => r.diagnosis.stalled) ? ExitCode.failed : ExitCode.ok);
  }
}
