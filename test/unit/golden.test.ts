// Whole outputs, pinned: for every scenario folder of test/fixtures/scenarios (the objects a cluster holds at one
// moment: the base with the scenario's overlay, loaded strictly), what why-stalled and one-shot status print, byte
// for byte, beside the scenario (`*.golden.*`). Times are pinned (NOW), so ages are stable. Regenerate after an
// intended change with `npx vitest run test/unit/golden.test.ts -u` and read the diff.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CATALOGUE } from '../../src/diagnose/catalogue.ts';
import { diagnoseContext } from '../../src/diagnose/context.ts';
import { diagnose } from '../../src/diagnose/index.ts';
import { preflight } from '../../src/diagnose/preflight.ts';
import { buildHaptic } from '../../src/model/haptic/haptic.ts';
import { buildRollout } from '../../src/model/rollout/rollout.ts';
import { planRecord } from '../../src/services/gate.ts';
import { gateOutput, gateText } from '../../src/ui/gate-text.ts';
import { formatStructured } from '../../src/ui/output.ts';
import { rolloutOutput, statusText } from '../../src/ui/status-text.ts';
import { painter } from '../../src/ui/style.ts';
import { diagnosisOutput, whyText } from '../../src/ui/why-text.ts';
import type { Deployment } from '../../src/types/kube.ts';
import { loadScenario, scenarios, SCENARIOS_DIR, snapshotOf } from '../fixtures/load.ts';
import { GATE, NOW } from './fixtures/rollout.ts';

const plain = painter(false);

function scenario(name: string) {
  const objects = loadScenario(name);
  const snapshot = snapshotOf(objects, 'web');
  const model = buildRollout(snapshot, NOW, { gateType: GATE });
  const diagnosis = diagnose(diagnoseContext(snapshot, model, NOW));
  return { objects, snapshot, model, results: [{ model, diagnosis }] };
}

const golden = (name: string, file: string) => join(SCENARIOS_DIR, name, file);

/** Why-stalled ids of the catalogue that have no scenario, each with the reason (none today: every id has one). */
const WITHOUT_SCENARIO: Record<string, string> = {};

describe('golden outputs of every scenario', () => {
  it('has a scenario per why-stalled id of the catalogue, and none for an id the catalogue lacks', () => {
    const folders = scenarios();
    const ids = folders.map((s) => s.slice(0, 5).toUpperCase());
    const catalogue = Object.keys(CATALOGUE).filter((id) => id.startsWith('HS'));
    const missing = catalogue.filter((id) => !ids.includes(id));
    expect({
      'folders not named hsNNN-what': folders.filter((s) => !/^hs\d{3}-[a-z0-9-]+$/.test(s)),
      'ids with two scenarios': ids.filter((id, i) => ids.indexOf(id) !== i),
      'scenarios of an id the catalogue lacks': ids.filter((id) => !catalogue.includes(id)),
      'why-stalled ids without a scenario': missing.filter((id) => !(id in WITHOUT_SCENARIO)),
      'WITHOUT_SCENARIO ids with a scenario, or not in the catalogue': Object.keys(WITHOUT_SCENARIO).filter(
        (id) => !missing.includes(id),
      ),
    }).toEqual({
      'folders not named hsNNN-what': [],
      'ids with two scenarios': [],
      'scenarios of an id the catalogue lacks': [],
      'why-stalled ids without a scenario': [],
      'WITHOUT_SCENARIO ids with a scenario, or not in the catalogue': [],
    });
  });

  it.each(scenarios())('%s: why-stalled and status, as text', async (name) => {
    const { model, results } = scenario(name);
    // the scenario shows its id (HS207 comes after its cause, the others first)
    const ids = results[0]!.diagnosis.findings.map((f) => f.id);
    const id = name.slice(0, 5).toUpperCase();
    expect(id === 'HS207' ? ids.at(-1) : ids[0]).toBe(id);
    await expect(whyText(results, plain)).toMatchFileSnapshot(golden(name, 'why-stalled.golden.txt'));
    await expect(statusText(model, NOW, plain)).toMatchFileSnapshot(golden(name, 'status.golden.txt'));
  });

  it.each(['hs106-failed-deploy', 'hs902-complete-draining'])('%s: -o json and -o yaml', async (name) => {
    const { model, results } = scenario(name);
    await expect(formatStructured(diagnosisOutput(results), 'json')).toMatchFileSnapshot(
      golden(name, 'why-stalled.golden.json'),
    );
    await expect(formatStructured(rolloutOutput([model], true), 'json')).toMatchFileSnapshot(
      golden(name, 'status.golden.json'),
    );
    await expect(formatStructured(rolloutOutput([model], true), 'yaml')).toMatchFileSnapshot(
      golden(name, 'status.golden.yaml'),
    );
  });
});

describe('golden output of enable-gate --dry-run=client', () => {
  it('an ungated Deployment: preflight results, the guarded patch, the pod template before and after', async () => {
    const { objects, snapshot } = scenario('hs901-progressing');
    const d = structuredClone(snapshot.workload) as Deployment & { kind: 'Deployment' };
    delete d.spec.template.spec.readinessGates;
    d.spec.template.spec.containers[0] = {
      ...d.spec.template.spec.containers[0]!,
      ports: [{ name: 'http', containerPort: 8080 }],
    };
    const findings = preflight({
      workload: d,
      services: snapshot.services,
      haptic: buildHaptic(snapshot.haptic, NOW),
      routes: snapshot.haptic,
      conditionType: GATE,
    });
    const record = planRecord(d, findings, {
      namespace: 'shop',
      action: 'enable',
      conditionType: GATE,
      dryRun: 'client',
      force: false,
    });
    expect(objects.length).toBeGreaterThan(5);
    await expect(gateText([record], plain)).toMatchFileSnapshot(
      golden('hs901-progressing', 'enable-gate-dry-run.golden.txt'),
    );
    await expect(formatStructured(gateOutput([record]), 'yaml')).toMatchFileSnapshot(
      golden('hs901-progressing', 'enable-gate-dry-run.golden.yaml'),
    );
  });
});
