// -o sarif: SARIF 2.1.0 (OASIS), the format CI systems (GitHub code scanning and others) show inline. One result
// per finding; the rule table in tool.driver.rules (every doctor check, helpUri its section of docs/checks.md);
// locations name the manifest file and line (static mode) and the object, as a logical location; suppressed
// findings carry an inSource suppression; checks not run, notes and unreadable input are tool execution
// notifications (unreadable input an error, and the run not successful).
import { CATALOGUE, describeFinding, docsUrl, PROJECT_HOMEPAGE } from '../../diagnose/catalogue.ts';
import type { CatalogueEntry } from '../../types/finding.ts';
import { DOCTOR_CATALOGUE } from '../../diagnose/doctor/catalogue.ts';
import type { DoctorFinding, DoctorReport } from '../../diagnose/doctor/index.ts';
import { refName } from '../../diagnose/doctor/located.ts';
import type { Severity } from '../../types/finding.ts';

export const SARIF_SCHEMA = 'https://json.schemastore.org/sarif-2.1.0.json';

const LEVEL: Record<Severity, 'error' | 'warning' | 'note'> = {
  blocker: 'error',
  error: 'error',
  warning: 'warning',
  info: 'note',
  ok: 'note',
};

const templateText = (t: CatalogueEntry['fix']) =>
  t === undefined
    ? undefined
    : typeof t === 'string'
      ? t
      : Object.entries(t)
          .map(([form, text]) => `${form}: ${text}`)
          .join('\n');

function rules() {
  return Object.keys(DOCTOR_CATALOGUE).map((id) => {
    const entry = (CATALOGUE as Record<string, CatalogueEntry>)[id] as CatalogueEntry;
    const fix = templateText(entry.fix);
    return {
      id,
      shortDescription: { text: entry.summary },
      helpUri: docsUrl(id),
      ...(fix ? { help: { text: `fix: ${fix}` } } : {}),
      defaultConfiguration: { level: LEVEL[entry.severity] },
      ...(entry.severityOf
        ? {
            properties: {
              levelByForm: Object.fromEntries(Object.entries(entry.severityOf).map(([form, s]) => [form, LEVEL[s]])),
            },
          }
        : {}),
    };
  });
}

/** A relative path as a URI reference: each segment percent-encoded. */
const uriOf = (file: string) => file.split('/').map(encodeURIComponent).join('/');

function result(f: DoctorFinding, ruleIndex: number) {
  const text = describeFinding(f);
  const logical = {
    name: refName(f.object),
    fullyQualifiedName: `${f.object.namespace}/${refName(f.object)}`,
    kind: 'resource',
  };
  const physical =
    f.source && f.source.file !== '-'
      ? { physicalLocation: { artifactLocation: { uri: uriOf(f.source.file) }, region: { startLine: f.source.line } } }
      : {};
  return {
    ruleId: f.id,
    ruleIndex,
    level: LEVEL[f.severity],
    message: { text: text.title },
    locations: [{ ...physical, logicalLocations: [logical] }],
    ...(f.suppressed ? { suppressions: [{ kind: 'inSource', justification: f.suppressed }] } : {}),
    properties: { evidence: text.evidence, ...(text.fix ? { fix: text.fix } : {}) },
  };
}

export function sarifLog(report: DoctorReport, version: string) {
  const table = rules();
  const index = new Map(table.map((r, i) => [r.id, i]));
  const notifications = [
    ...report.notRun.map((n) => ({
      level: 'note',
      message: { text: `${n.id} not run: ${n.reason}` },
      descriptor: { id: n.id },
    })),
    ...report.notes.map((text) => ({ level: 'warning', message: { text } })),
    // input that could not be read: the run did not check everything it was given
    ...report.unreadable.map((text) => ({ level: 'error', message: { text } })),
  ];
  return {
    $schema: SARIF_SCHEMA,
    version: '2.1.0',
    runs: [
      {
        tool: { driver: { name: 'kubectl-haptic doctor', version, informationUri: PROJECT_HOMEPAGE, rules: table } },
        invocations: [
          {
            executionSuccessful: report.unreadable.length === 0,
            ...(notifications.length ? { toolExecutionNotifications: notifications } : {}),
          },
        ],
        results: report.subjects.flatMap((s) => s.findings.map((f) => result(f, index.get(f.id) ?? -1))),
      },
    ],
  };
}
