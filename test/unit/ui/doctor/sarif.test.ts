// -o sarif against the SARIF 2.1.0 JSON schema (sarif-2.1.0-rtm.5, a draft-04 schema, kept in
// test/fixtures/sarif/ with where it comes from; formats such as uri and date-time checked too), on every golden static
// report and on live ones with suppressions; and the SARIF-specific parts pinned.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DOCTOR_CATALOGUE } from '../../../../src/diagnose/doctor/catalogue.ts';
import { sarifLog } from '../../../../src/ui/doctor/sarif.ts';
import { app, liveReport, pdb, staticReport, web, webService } from '../../fixtures/doctor.ts';
import { sarifErrors as errors } from '../../../fixtures/sarif/validate.ts';

const DIR = 'test/fixtures/doctor';

describe('SARIF 2.1.0 schema', () => {
  it('the validator refuses what is not SARIF (so a pass means something)', () => {
    expect(errors({ version: '2.1.0', runs: [{ tool: { driver: {} } }] })).toContain(
      "/runs/0/tool/driver must have required property 'name'",
    );
    expect(errors({ version: '2.0.0', runs: [] }).length).toBeGreaterThan(0);
    const log = sarifLog(staticReport([web()]), '0.1.0');
    (log.runs[0]!.tool.driver.rules[0] as { helpUri: string }).helpUri = 'docs/checks.md#dr101';
    expect(errors(log)).toContain('/runs/0/tool/driver/rules/0/helpUri must match format "uri"');
  });

  it.each(
    readdirSync(DIR)
      .filter((d) => d !== 'real')
      .sort(),
  )('%s: the golden SARIF log is valid', (name) => {
    expect(errors(JSON.parse(readFileSync(join(DIR, name, 'doctor.golden.sarif'), 'utf8')))).toEqual([]);
  });

  it('a live report with a suppressed finding and notes is valid', () => {
    const suppressed = web((d) => {
      delete app(d).lifecycle;
      d.metadata.annotations = { 'kubectl-haptic.dev/ignore': 'DR201,DR999' };
    });
    const log = sarifLog(liveReport([suppressed, webService(), pdb()]), '0.1.0');
    expect(errors(log)).toEqual([]);
    const result = log.runs[0]!.results.find((r) => r.ruleId === 'DR201');
    expect(result).toMatchObject({
      level: 'warning',
      suppressions: [
        { kind: 'inSource', justification: 'annotation kubectl-haptic.dev/ignore on deployment.apps/web' },
      ],
    });
    expect(result?.locations).toEqual([
      {
        logicalLocations: [
          { name: 'deployment.apps/web', fullyQualifiedName: 'shop/deployment.apps/web', kind: 'resource' },
        ],
      },
    ]);
    expect(log.runs[0]!.invocations[0]!.toolExecutionNotifications).toEqual([
      { level: 'note', message: { text: 'DR404 not run: needs --helm-history' }, descriptor: { id: 'DR404' } },
      {
        level: 'warning',
        message: {
          text: 'deployment.apps/web -n shop: annotation kubectl-haptic.dev/ignore names DR999, which is not a doctor check',
        },
      },
    ]);
  });
});

describe('SARIF content', () => {
  const log = () => JSON.parse(readFileSync(join(DIR, 'redis-haproxy-before', 'doctor.golden.sarif'), 'utf8'));

  it('one result per finding, ruleIndex into the table of every doctor check, helpUri in docs/checks.md', () => {
    const run = log().runs[0];
    expect(run.tool.driver.rules.map((r: { id: string }) => r.id)).toEqual(Object.keys(DOCTOR_CATALOGUE));
    for (const r of run.results) expect(run.tool.driver.rules[r.ruleIndex].id).toBe(r.ruleId);
    expect(run.tool.driver.rules[0].helpUri).toBe(
      'https://github.com/kubectl-haptic/kubectl-haptic/blob/main/docs/checks.md#dr101',
    );
    expect(run.results.map((r: { ruleId: string; level: string }) => `${r.ruleId} ${r.level}`)).toEqual([
      'DR101 error',
      'DR201 error',
      'DR301 error',
      'DR205 warning',
      'DR206 warning',
      'DR103 warning',
      'DR103 warning',
      'DR201 warning',
      'DR401 warning',
    ]);
  });

  it('locations name the manifest file and line (a haproxy.cfg finding its server line), and the object', () => {
    const dr301 = log().runs[0].results.find((r: { ruleId: string }) => r.ruleId === 'DR301');
    expect(dr301.locations).toEqual([
      {
        physicalLocation: {
          artifactLocation: { uri: 'test/fixtures/doctor/redis-haproxy-before/manifests/configmap.yaml' },
          // `server S1 …` of the ConfigMap's haproxy.cfg block
          region: { startLine: 31 },
        },
        logicalLocations: [
          { name: 'configmap/redis-haproxy', fullyQualifiedName: 'redis/configmap/redis-haproxy', kind: 'resource' },
        ],
      },
    ]);
  });
});
