// The live overview of status --watch over several workloads, frame by frame, from the scenarios' real models: a row
// each with the one-shot overview's cells, the ones that need attention first, complete ones dimmed, a row not read
// yet and one gone; the selection kept in view on a short terminal; a row opened as the single workload's live view;
// and the keys through Ink (select, open, back, help, quit, the end once every rollout is done).
import { render } from 'ink-testing-library';
import { describe, expect, it } from 'vitest';
import { diagnoseContext } from '../../../src/diagnose/context.ts';
import { diagnose } from '../../../src/diagnose/index.ts';
import { buildReport, type RolloutUpdate } from '../../../src/model/rollout/report.ts';
import { buildRollout } from '../../../src/model/rollout/rollout.ts';
import {
  moveSelection,
  type OverviewEntry,
  overviewDone,
  overviewFrame,
  openFrame,
  type OverviewState,
} from '../../../src/ui/ink/overview-frame.ts';
import { applyEvent, type OverviewFeedEvent, OverviewApp } from '../../../src/ui/ink/overview-watch.tsx';
import type { Line } from '../../../src/ui/live-frame.ts';
import { loadScenario, snapshotOf } from '../../fixtures/load.ts';
import { GATE, NOW } from '../fixtures/rollout.ts';

const text = (lines: Line[]) =>
  lines.map((l) =>
    l
      .map((s) => s.text)
      .join('')
      .trimEnd(),
  );

/** A scenario's rollout as the update of a row named `name`. */
function update(scenario: string, name: string, o: { namespace?: string; done?: boolean } = {}): RolloutUpdate {
  const snapshot = snapshotOf(loadScenario(scenario), 'web');
  const built = buildRollout(snapshot, NOW, { gateType: GATE });
  const diagnosis = diagnose(diagnoseContext(snapshot, built, NOW));
  const model = { ...built, name, namespace: o.namespace ?? 'shop' };
  const history = { startedAt: NOW - 60_000, pods: {}, configs: [], progressed: true };
  return {
    model,
    transitions: [],
    history,
    finding: diagnosis.stalled ? diagnosis.findings[0] : undefined,
    findings: diagnosis.findings,
    done: o.done ?? false,
    report: o.done ? buildReport(model, history) : undefined,
  };
}

function entry(name: string, u?: RolloutUpdate, o: { gone?: boolean; namespace?: string } = {}): OverviewEntry {
  const namespace = o.namespace ?? u?.model.namespace ?? 'shop';
  return {
    key: `${namespace}/Deployment/${name}`,
    kind: 'Deployment',
    name,
    namespace,
    update: u,
    gone: o.gone,
    log: [],
  };
}

const state = (rows: OverviewEntry[], over: Partial<OverviewState> = {}): OverviewState => ({
  rows,
  scope: '-l app.kubernetes.io/part-of=shop in namespace shop',
  allNamespaces: false,
  mode: 'overview',
  now: NOW,
  width: 150,
  height: 30,
  ...over,
});

const shop = () => [
  entry('done', update('hs902-complete-draining', 'done', { done: true })),
  entry('rolling', update('hs901-progressing', 'rolling')),
  entry('unrouted', update('hs113-not-routed', 'unrouted')),
  entry('late', update('hs207-deadline', 'late')),
  entry('fresh'),
  entry('left', update('hs901-progressing', 'left'), { gone: true }),
];

describe('the live overview, frame by frame', () => {
  it('a row per workload, the ones that need attention first, with the one-shot cells and the finding', () => {
    const frame = overviewFrame(state(shop()));
    const lines = text(frame);
    expect(lines[0]).toBe(
      '5 workloads · -l app.kubernetes.io/part-of=shop in namespace shop · 1 failed, 1 stalled, 2 rolling, 1 complete, 1 gone',
    );
    expect(lines[2]).toMatch(/^ {2}NAME {3,}STATE {3,}GATE {3,}OLD PODS {3,}ROLLING {3,}FINDING$/);
    const names = lines.slice(3, 9).map((l) => l.trim().split(/ {3,}/)[0]);
    expect(names).toEqual([
      'deployment.apps/late',
      'deployment.apps/unrouted',
      'deployment.apps/rolling',
      'deployment.apps/done',
      'deployment.apps/fresh',
      'deployment.apps/left',
    ]);
    expect(lines[3]).toMatch(/✗ failed .* HS\d{3} \S/);
    expect(lines[4]).toMatch(/… rolling {3,}0\/\d+ gated .*HS113 web-new-1: no route that HAPTIC renders reaches/);
    expect(lines[6]).toMatch(/↓ draining {3,}\d+\/\d+ gated/);
    expect(lines[7]).toMatch(/deployment\.apps\/fresh {3,}… reading$/);
    expect(lines[8]).toMatch(/deployment\.apps\/left {3,}– gone {3,}/);
    // a done row and a gone one are dimmed; the finding is coloured by its severity
    const row = (name: string) => frame.find((l) => l.some((s) => s.text.startsWith(`deployment.apps/${name} `)))!;
    expect(
      row('done')
        .slice(1)
        .every((s) => s.dim),
    ).toBe(true);
    expect(
      row('left')
        .slice(1)
        .every((s) => s.dim),
    ).toBe(true);
    expect(
      row('rolling')
        .slice(1)
        .some((s) => s.dim),
    ).toBe(false);
    expect(row('unrouted').find((s) => s.text.startsWith('HS113'))!.color).toBe('red');
    // HAPTIC's installations once, then the keys
    expect(lines.filter((l) => l.startsWith('HAPTIC '))).toHaveLength(1);
    expect(lines.at(-1)).toBe('↑↓ select · enter open · ? help · q quit  (the rollouts go on when you quit)');
  });

  it('the NAMESPACE column with -A and when the rows span namespaces', () => {
    const rows = [
      entry('web', update('hs901-progressing', 'web', { namespace: 'blog' })),
      entry('web', update('hs901-progressing', 'web', { namespace: 'shop' })),
    ];
    const lines = text(overviewFrame(state(rows)));
    expect(lines[2]).toMatch(/^ {2}NAMESPACE {3,}NAME /);
    expect(lines.slice(3, 5).map((l) => l.trim().split(/ {3,}/)[0])).toEqual(['blog', 'shop']);
    const one = [entry('web', update('hs901-progressing', 'web')), entry('api', update('hs901-progressing', 'api'))];
    expect(text(overviewFrame(state(one)))[2]).toMatch(/^ {2}NAME /);
    expect(text(overviewFrame(state(one, { allNamespaces: true })))[2]).toMatch(/^ {2}NAMESPACE {3,}NAME /);
  });

  it('marks the selected row; ↑↓ go through the rows in the order shown, around the ends', () => {
    const rows = shop();
    expect(moveSelection(rows, undefined, 1)).toBe('shop/Deployment/late');
    expect(moveSelection(rows, undefined, -1)).toBe('shop/Deployment/left');
    expect(moveSelection(rows, 'shop/Deployment/late', 1)).toBe('shop/Deployment/unrouted');
    expect(moveSelection(rows, 'shop/Deployment/late', -1)).toBe('shop/Deployment/left');
    const lines = text(overviewFrame(state(rows, { selected: 'shop/Deployment/rolling' })));
    expect(lines.filter((l) => l.startsWith('❯ '))).toEqual([expect.stringMatching(/^❯ deployment\.apps\/rolling /)]);
  });

  it('on a short terminal, a window of rows that holds the selected one, and what it leaves out', () => {
    const rows = Array.from({ length: 30 }, (_, i) =>
      entry(`web-${String(i).padStart(2, '0')}`, update('hs901-progressing', `web-${String(i).padStart(2, '0')}`)),
    );
    const frame = text(overviewFrame(state(rows, { height: 16, width: 80, selected: 'shop/Deployment/web-20' })));
    expect(frame.length).toBeLessThanOrEqual(16);
    expect(frame.every((l) => [...l].length <= 79)).toBe(true);
    expect(frame.some((l) => l.startsWith('❯ deployment.apps/web-20'))).toBe(true);
    expect(frame).toContainEqual(expect.stringMatching(/^ {2}… \d+ above, \d+ below$/));
  });

  it('every followed row done: the overview says so; a gone row does not hold it back, no row is not done', () => {
    const done = [
      entry('a', update('hs902-complete-draining', 'a', { done: true })),
      entry('b', update('hs901-progressing', 'b'), { gone: true }),
    ];
    expect(overviewDone(done)).toBe(true);
    expect(overviewDone([...done, entry('c', update('hs901-progressing', 'c'))])).toBe(false);
    expect(overviewDone([entry('x')])).toBe(false);
    expect(overviewDone([])).toBe(false);
    expect(text(overviewFrame(state(done))).at(-1)).toContain('(every rollout is complete)');
  });

  it("an open row is the single workload's live view, under the way back", () => {
    const e = entry('rolling', update('hs901-progressing', 'rolling'));
    const lines = text(openFrame(e, { now: NOW, width: 120, height: 30, mode: 'table', of: 5 }));
    expect(lines[0]).toBe('◂ esc: the overview (5 workloads)');
    expect(lines[1]).toMatch(/^deployment\.apps\/rolling -n shop · /);
    expect(lines).toContainEqual(expect.stringMatching(/^NEW PODS/));
    expect(lines.length).toBeLessThanOrEqual(30);
    expect(text(openFrame(entry('fresh'), { now: NOW, width: 120, height: 30, mode: 'table', of: 5 }))).toEqual([
      '◂ esc: the overview (5 workloads)',
      '',
      'deployment.apps/fresh -n shop: reading…',
    ]);
  });
});

/** A feed the test drives: it holds the view's subscriber and records the rows opened. */
function fakeFeed() {
  let listener: ((e: OverviewFeedEvent) => void) | undefined;
  const opened: (string | undefined)[] = [];
  return {
    opened,
    source: {
      subscribe(onEvent: (e: OverviewFeedEvent) => void) {
        listener = onEvent;
        return () => (listener = undefined);
      },
      open: (key: string | undefined) => void opened.push(key),
    },
    send(e: OverviewFeedEvent) {
      listener?.(e);
    },
    row(name: string) {
      listener?.({
        type: 'row',
        row: { key: `shop/Deployment/${name}`, kind: 'Deployment', name, namespace: 'shop' },
        gone: false,
      });
    },
  };
}

/** The frame once it passes `until` (the view redraws a burst of updates at once, a few ms later). */
async function frameUntil(
  lastFrame: () => string | undefined,
  until: (frame: string) => boolean,
  timeoutMs = 3000,
): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const frame = (lastFrame() ?? '').replace(/\u001b\[[0-9;]*m/g, '');
    if (until(frame)) return frame;
    if (Date.now() > deadline) throw new Error(`the frame never passed; last:\n${frame}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * Ink listens to keys from an effect after its first frame: `?` until the help shows, and again until it goes, so
 * that every key the test sends afterwards is heard.
 */
async function listening(lastFrame: () => string | undefined, write: (keys: string) => void): Promise<void> {
  for (const help of [true, false]) {
    for (let tries = 0; ; tries++) {
      write('?');
      try {
        await frameUntil(lastFrame, (f) => f.includes('enter  open it') === help, 200);
        break;
      } catch (error) {
        if (tries > 20) throw error;
      }
    }
  }
}

describe('the live overview through Ink', () => {
  it('↓ selects, enter opens the row (its sessions read), esc goes back, ? shows the keys, q ends it not done', async () => {
    const feed = fakeFeed();
    const ended: unknown[] = [];
    const { lastFrame, stdin, unmount } = render(
      <OverviewApp
        source={feed.source}
        options={{ scope: 'namespace shop', allNamespaces: false, exitWhenDone: false }}
        onEnd={(r) => ended.push(r)}
      />,
    );
    feed.row('web');
    feed.row('api');
    feed.send({ type: 'update', key: 'shop/Deployment/web', update: update('hs901-progressing', 'web') });
    feed.send({ type: 'update', key: 'shop/Deployment/api', update: update('hs113-not-routed', 'api') });
    await frameUntil(lastFrame, (f) => f.includes('deployment.apps/web') && f.includes('HS113'));
    await listening(lastFrame, (k) => stdin.write(k));
    stdin.write('\u001B[B');
    await frameUntil(lastFrame, (f) => /❯ deployment\.apps\/api /.test(f));
    stdin.write('\r');
    const open = await frameUntil(lastFrame, (f) => f.includes('◂ esc: the overview'));
    expect(open).toMatch(/deployment\.apps\/api -n shop · /);
    expect(feed.opened).toEqual(['shop/Deployment/api']);
    stdin.write('\u001B');
    await frameUntil(lastFrame, (f) => f.includes('NAME') && !f.includes('◂ esc'));
    expect(feed.opened).toEqual(['shop/Deployment/api', undefined]);
    stdin.write('?');
    await frameUntil(lastFrame, (f) => f.includes('keys') && f.includes('enter  open it'));
    stdin.write('q');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(ended).toEqual([]);
    unmount();
  });

  it('with exitWhenDone, ends once every row is done, with the report of each, the overview as its last frame', async () => {
    const feed = fakeFeed();
    const ended: { result: string; reports: { name: string }[] }[] = [];
    const { lastFrame, stdin, unmount } = render(
      <OverviewApp
        source={feed.source}
        options={{ scope: 'namespace shop', allNamespaces: false, exitWhenDone: true }}
        onEnd={(r) => ended.push(r)}
      />,
    );
    feed.row('web');
    feed.row('api');
    feed.send({ type: 'update', key: 'shop/Deployment/web', update: update('hs901-progressing', 'web') });
    feed.send({
      type: 'update',
      key: 'shop/Deployment/api',
      update: update('hs902-complete-draining', 'api', { done: true }),
    });
    await frameUntil(lastFrame, (f) => f.includes('ends once every rollout is complete'));
    // a row opened when the last rollout completes: the last frame is the overview all the same
    await listening(lastFrame, (k) => stdin.write(k));
    stdin.write('\u001B[B');
    await frameUntil(lastFrame, (f) => f.includes('❯ '));
    stdin.write('\r');
    await frameUntil(lastFrame, (f) => f.includes('◂ esc'));
    expect(ended).toEqual([]);
    feed.send({
      type: 'update',
      key: 'shop/Deployment/web',
      update: update('hs902-complete-draining', 'web', { done: true }),
    });
    const last = await frameUntil(lastFrame, (f) => ended.length > 0 && !f.includes('◂ esc') && !f.includes('q quit'));
    expect(last).toMatch(/deployment\.apps\/api/);
    expect(ended).toHaveLength(1);
    expect(ended[0]!.result).toBe('done');
    expect(ended[0]!.reports.map((r) => r.name)).toEqual(['api', 'web']);
    unmount();
  });
});

describe('the rows the view holds', () => {
  it('keeps the last transitions of each row for when it is opened, and a row gone', () => {
    const rows = new Map<string, OverviewEntry>();
    const ref = { key: 'shop/Deployment/web', kind: 'Deployment' as const, name: 'web', namespace: 'shop' };
    applyEvent(rows, { type: 'update', key: ref.key, update: update('hs901-progressing', 'web') });
    expect(rows.size).toBe(0);
    applyEvent(rows, { type: 'row', row: ref, gone: false });
    const u = update('hs901-progressing', 'web');
    applyEvent(
      rows,
      {
        type: 'update',
        key: ref.key,
        update: { ...u, transitions: [{ at: NOW, text: 'pod/web-new-1 containers ready' }] },
      },
      NOW,
    );
    expect(rows.get(ref.key)!.log).toEqual([{ at: NOW, text: 'pod/web-new-1 containers ready' }]);
    applyEvent(rows, { type: 'update', key: ref.key, update: u });
    expect(rows.get(ref.key)!.log).toHaveLength(1);
    applyEvent(rows, { type: 'row', row: ref, gone: true });
    expect(rows.get(ref.key)).toMatchObject({ gone: true, update: u });
  });
});
