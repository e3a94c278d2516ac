// The one-shot overview of many rollouts (status -l/-A): one row per workload, built from the scenarios' real
// models, the ones that need attention first.
import { describe, expect, it } from 'vitest';
import { describeFinding } from '../../../src/diagnose/catalogue.ts';
import { diagnoseContext } from '../../../src/diagnose/context.ts';
import { topFinding } from '../../../src/diagnose/index.ts';
import { buildRollout, type RolloutModel } from '../../../src/model/rollout/rollout.ts';
import { byAttention, overviewText, shortTitle, type OverviewRow } from '../../../src/ui/overview-text.ts';
import { painter } from '../../../src/ui/style.ts';
import { loadScenario, snapshotOf } from '../../fixtures/load.ts';
import { GATE, NOW } from '../fixtures/rollout.ts';

const plain = painter(false);

/** A scenario's rollout as a row, renamed so that rows of several scenarios are told apart. */
function row(scenario: string, name: string, namespace = 'shop'): OverviewRow {
  const snapshot = snapshotOf(loadScenario(scenario), 'web');
  const built = buildRollout(snapshot, NOW, { gateType: GATE });
  const top = topFinding(diagnoseContext(snapshot, built, NOW));
  const model: RolloutModel = { ...built, name, namespace };
  return { model, top: top && describeFinding(top) };
}

describe('status overview', () => {
  it('lists the rollouts that need a person first: failed, stalled, rolling, then complete', () => {
    const rows = [
      row('hs902-complete-draining', 'done'),
      row('hs901-progressing', 'rolling'),
      row('hs113-not-routed', 'unrouted'),
      row('hs207-deadline', 'late'),
    ];
    expect(byAttention(rows).map((r) => r.model.name)).toEqual(['late', 'unrouted', 'rolling', 'done']);
    const lines = overviewText(rows, NOW, plain).split('\n');
    expect(lines[0]).toMatch(/^NAME {3,}STATE {3,}GATE {3,}OLD PODS {3,}ROLLING {3,}FINDING$/);
    expect(lines[1]).toMatch(/^deployment\.apps\/late {3,}✗ failed /);
    // its cause, as why-stalled names it first
    expect(lines[1]).toMatch(/ {3}HS\d{3} \S/);
    expect(lines[2]).toMatch(/^deployment\.apps\/unrouted {3,}… rolling {3,}0\/\d+ gated /);
    expect(lines[2]).toContain('HS113 web-new-1: no route that HAPTIC renders reaches service/web');
    expect(lines[3]).toMatch(/^deployment\.apps\/rolling {3,}… rolling /);
    expect(lines[3]).not.toMatch(/H[SG]\d{3}/);
    expect(lines[4]).toMatch(/^deployment\.apps\/done {3,}↓ draining {3,}\d+\/\d+ gated {3,}\S/);
    // HAPTIC's installations once, after the rows: the rows share them
    expect(lines.filter((l) => l.startsWith('HAPTIC '))).toHaveLength(1);
    expect(lines.at(-1)).toBe('');
  });

  it('shows the NAMESPACE column with -A, and when the rows span namespaces', () => {
    const rows = [row('hs901-progressing', 'web', 'shop'), row('hs901-progressing', 'web', 'blog')];
    const spanning = overviewText(rows, NOW, plain).split('\n');
    expect(spanning[0]).toMatch(/^NAMESPACE {3,}NAME /);
    expect(spanning.slice(1, 3).map((l) => l.split(/ {3,}/)[0])).toEqual(['blog', 'shop']);
    const one = [row('hs901-progressing', 'web', 'shop'), row('hs902-complete-draining', 'api', 'shop')];
    expect(overviewText(one, NOW, plain).split('\n')[0]).toMatch(/^NAME /);
    expect(overviewText(one, NOW, plain, true).split('\n')[0]).toMatch(/^NAMESPACE {3,}NAME /);
  });

  it('cuts a long finding title at a word, never inside a name', () => {
    const title = 'web-new-1: no route that HAPTIC renders reaches service/web, so HAPTIC never routes this gated pod';
    const cut = shortTitle(title, 60);
    expect(cut.length).toBeLessThanOrEqual(60);
    expect(cut).toBe('web-new-1: no route that HAPTIC renders reaches service/web…');
    expect(shortTitle(title, 58)).toBe('web-new-1: no route that HAPTIC renders reaches…');
    expect(shortTitle('short', 60)).toBe('short');
  });
});
