// The end of a failed --wait: the verdict line, -o's WaitResult, and GitHub's ::error line and step summary.
import { describe, expect, it } from 'vitest';
import { finding } from '../../../src/diagnose/make.ts';
import type { WaitResult } from '../../../src/model/rollout/report.ts';
import { stepSummary, workflowError } from '../../../src/ui/github.ts';
import { painter } from '../../../src/ui/style.ts';
import { failureText, waitResultOutput } from '../../../src/ui/wait-text.ts';
import { printWaitEnd } from '../../../src/cli/wait-end.ts';

const cause = finding('HS203', { pod: 'web-5cb7d9f6c4-m8rgh', image: 'example/app:2' }, [
  'container app: waiting ImagePullBackOff, 50%: a,b',
]);
const failed: WaitResult = {
  outcome: 'failed',
  reports: [],
  waitedMs: 31_400,
  failure: {
    workload: { workloadKind: 'Deployment', name: 'web', namespace: 'shop', complete: false, phase: 'progressing' },
    reason: 'cause',
    finding: cause,
    heldMs: 30_000,
    waitedMs: 31_400,
    others: [
      { workloadKind: 'StatefulSet', name: 'db', namespace: 'shop', complete: true },
      {
        workloadKind: 'Deployment',
        name: 'api',
        namespace: 'shop',
        complete: false,
        message: 'Waiting for deployment "api" rollout to finish: 1 of 2 updated replicas are available...',
      },
    ],
  },
};

describe('a failed wait', () => {
  it('prints the others, the cause as why-stalled does, then the verdict', () => {
    expect(failureText(failed.failure!, painter(false)).split('\n')).toEqual([
      'statefulset.apps/db -n shop: complete',
      'deployment.apps/api -n shop: still rolling: Waiting for deployment "api" rollout to finish: 1 of 2 updated replicas are available...',
      'deployment.apps/web -n shop: stalled',
      '  ✗ [HS203] pod web-5cb7d9f6c4-m8rgh: image example/app:2 cannot be pulled',
      '      container app: waiting ImagePullBackOff, 50%: a,b',
      '      fix: fix the image name or tag, or the registry credentials (imagePullSecrets)',
      '✗ deployment.apps/web -n shop: rollout failed after 31s of waiting: HS203, held 30s; it does not clear by itself (--no-fail-fast waits for the progress deadline)',
      '',
    ]);
  });

  it('-o gives a WaitResult with the outcome, the workload and the finding', () => {
    expect(waitResultOutput(failed)).toMatchObject({
      kind: 'WaitResult',
      outcome: 'failed',
      reason: 'cause',
      workload: { kind: 'Deployment', name: 'web', namespace: 'shop' },
      finding: { id: 'HS203', severity: 'error', docs: 'docs/checks.md#hs203' },
      heldSeconds: 30,
      waitedSeconds: 31,
    });
    expect(waitResultOutput({ outcome: 'timeout', reports: [], waitedMs: 20_000 })).toEqual({
      apiVersion: 'kubectl-haptic/v1',
      kind: 'WaitResult',
      outcome: 'timeout',
      waitedSeconds: 20,
    });
  });

  it('-o on a rollout complete before it was followed (no report): its WaitResult, so `| jq` has an answer', () => {
    const written: string[] = [];
    const write = process.stdout.write;
    process.stdout.write = ((chunk: string) => written.push(chunk) > 0) as typeof process.stdout.write;
    try {
      printWaitEnd(
        { outcome: 'complete', reports: [], waitedMs: 400 },
        { output: 'json', paint: painter(false), timeoutMs: 0, env: {} },
      );
    } finally {
      process.stdout.write = write;
    }
    expect(JSON.parse(written.join(''))).toEqual({
      apiVersion: 'kubectl-haptic/v1',
      kind: 'WaitResult',
      outcome: 'complete',
      waitedSeconds: 0,
    });
  });

  it("is one ::error workflow command, escaped as GitHub's toolkit escapes, and a Markdown summary", () => {
    const line = workflowError(failed, 0)!;
    expect(line.endsWith('\n')).toBe(true);
    expect(line.slice(0, -1)).not.toContain('\n');
    expect(line).toMatch(/^::error title=kubectl haptic%3A web HS203 rollout failed::deployment\.apps\/web -n shop/);
    expect(line).toContain('%0A  container app: waiting ImagePullBackOff, 50%25: a,b%0Afix: ');
    expect(workflowError({ outcome: 'timeout', reports: [], waitedMs: 0 }, 20_000)).toBe(
      '::error title=kubectl haptic%3A rollout timed out::timed out after 20s\n',
    );
    expect(workflowError({ outcome: 'complete', reports: [], waitedMs: 0 }, 0)).toBeUndefined();
    const md = stepSummary(failed, [], 0);
    expect(md).toContain('### ✗ deployment.apps/web -n shop: rollout failed after 31s');
    expect(md).toContain(
      '**[HS203](docs/checks.md#hs203)** pod web-5cb7d9f6c4-m8rgh: image example/app:2 cannot be pulled',
    );
  });
});
