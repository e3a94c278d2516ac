// The documentation of the check catalogue, generated from src/diagnose/catalogue.ts: docs/checks.md, with a table of
// each family's checks and one section per id (the anchor every finding's `docs` field points at). `npm run docs`
// writes it (and the command pages: scripts/command-docs.ts); a unit test fails when it drifts from the catalogue.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CATALOGUE } from '../src/diagnose/catalogue.ts';
import type { CatalogueEntry, Template, WaitHold } from '../src/types/finding.ts';

const root = fileURLToPath(new URL('..', import.meta.url));

/** The families of ids, in the order the docs list them. */
const FAMILIES: { name: string; title: string; prefix: RegExp; intro: string }[] = [
  {
    name: 'preflight',
    title: 'enable-gate preflight (HG1xx)',
    prefix: /^HG1/,
    intro:
      'Checked before `enable-gate` writes. A blocker refuses the write unless `--force`; a warning is shown and does not block.',
  },
  {
    name: 'why-stalled',
    title: 'why-stalled (HS1xx, HS2xx, HS9xx)',
    prefix: /^HS/,
    intro: [
      'Checked by `why-stalled` (and shown by `status --watch`/`--wait` as soon as one appears), in this order: the first one found is the most likely cause.',
      '"Ends a wait" says which causes end `status --wait` (and `enable-gate --wait`) with exit 1 before the progress deadline: once the cause has been',
      "the first finding for that long without a break (a readiness probe's own allowance, initialDelaySeconds + periodSeconds × failureThreshold of its",
      'startup and readiness probes, counts first), and where restarts are named, once the container restarted that often. `--patience N` multiplies',
      'every hold and restart count; `--no-fail-fast` ends a wait only on the deadline or `--timeout`, as `kubectl rollout status`.',
    ].join('\n'),
  },
  {
    name: 'doctor',
    title: 'doctor (DR1xx–DR6xx)',
    prefix: /^DR/,
    intro: [
      "Checked by `kubectl haptic doctor`: DR1xx probes, DR2xx shutdown (preStop, stop signal, grace period, HAProxy's drain), DR3xx HAProxy's DNS,",
      'DR4xx PodDisruptionBudgets, DR5xx endpoints, DR6xx the gate and the rollout strategy. Mode says where a check runs: **static** on manifests',
      '(`-f`) and on a cluster, **live** only on a cluster. In static mode the live-only checks are listed once, under `not run … (needs a',
      'cluster)`, in the text report, in `-o json|yaml` (`notRun`) and in `-o sarif` (tool execution notifications), instead of being guessed.',
      'Suppress a check on one Deployment with the annotation `kubectl-haptic.dev/ignore: "DR101,DR401"`.',
    ].join('\n'),
  },
];

/** Where a doctor check runs, from what its catalogue entry needs. */
function doctorMode(entry: CatalogueEntry): string {
  return entry.needs === 'cluster'
    ? 'live'
    : entry.needs === 'helm-history'
      ? 'live, with --helm-history'
      : 'static and live';
}

function severityLine(entry: CatalogueEntry): string {
  const forms = Object.entries(entry.severityOf ?? {}).map(
    ([form, severity]) => `**${severity}** for the ${form} form`,
  );
  return `Severity: **${entry.severity}**${forms.length ? `; ${forms.join(', ')}` : ''}.`;
}

/** Whether, and after how long, a stall cause ends status --wait with exit 1 (the entry's endsWait). */
function waitLine(entry: CatalogueEntry): string {
  const hold = entry.endsWait;
  if (!hold) return entry.severity === 'error' ? ' Ends a wait: no (only the progress deadline or --timeout do).' : '';
  const one = (h: WaitHold) =>
    `after ${h.holdSeconds}s${h.restarts !== undefined ? ` and ${h.restarts} restarts` : ''}`;
  if (typeof hold.holdSeconds === 'number') return ` Ends a wait: ${one(hold as WaitHold)}.`;
  const forms = Object.entries(hold as Record<string, WaitHold>).map(([form, h]) => `${one(h)} for the ${form} form`);
  return ` Ends a wait: ${forms.join(', ')}; other forms do not.`;
}

const entries = () => Object.entries(CATALOGUE) as [string, CatalogueEntry][];

function templateLines(label: string, t: Template | undefined): string[] {
  if (t === undefined) return [];
  if (typeof t === 'string') return [`- ${label}: ${code(t)}`];
  return [`- ${label}:`, ...Object.entries(t).map(([variant, text]) => `  - ${variant}: ${code(text)}`)];
}

function code(text: string): string {
  const ticks = text.includes('`') ? '``' : '`';
  return `${ticks}${text}${ticks}`;
}

/** docs/checks.md */
export function checksPage(): string {
  const lines = [
    '# Checks',
    '',
    '<!-- generated from src/diagnose/catalogue.ts by `npm run docs`; do not edit by hand -->',
    '',
    'Every finding the plugin reports has a stable id (never reused), a severity, a title and, where there is one, a fix.',
    'Words in braces are filled from the cluster: object names, counts, durations. Where a check has several forms, the',
    'rule picks the one that fits what it found.',
  ];
  for (const family of FAMILIES) {
    lines.push('', `## ${family.title}`, '', family.intro, '', familyTable(family.name));
    for (const [id, entry] of entries().filter(([id]) => family.prefix.test(id))) {
      const mode = id.startsWith('DR') ? ` Mode: ${doctorMode(entry)}.` : id.startsWith('HS') ? waitLine(entry) : '';
      lines.push(
        '',
        `### ${id}`,
        '',
        `${entry.summary} ${severityLine(entry)}${mode}`,
        '',
        ...templateLines('title', entry.title),
        ...templateLines('fix', entry.fix),
      );
    }
  }
  return `${lines.join('\n')}\n`;
}

/** A family's table: id (linked to its section below), severity (of each form), mode for the doctor, summary. */
export function familyTable(family: string): string {
  const f = FAMILIES.find((x) => x.name === family);
  if (!f) throw new Error(`no catalogue family ${family}`);
  const doctor = family === 'doctor';
  const rows = entries()
    .filter(([id]) => f.prefix.test(id))
    .map(([id, e]) => {
      const severity = [e.severity, ...Object.values(e.severityOf ?? {})]
        .filter((v, i, all) => all.indexOf(v) === i)
        .join(' / ');
      return `| [${id}](#${id.toLowerCase()}) | ${severity} |${doctor ? ` ${doctorMode(e)} |` : ''} ${e.summary.replace(/\|/g, '\\|')} |`;
    });
  const head = doctor
    ? ['| id | severity | mode | what it finds |', '|---|---|---|---|']
    : ['| id | severity | what it finds |', '|---|---|---|'];
  return [...head, ...rows].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(`${root}docs/checks.md`, checksPage());
  console.log('wrote docs/checks.md');
}
