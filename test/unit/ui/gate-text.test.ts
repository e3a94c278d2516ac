import { describe, expect, it } from 'vitest';
import { gateExitCode } from '../../../src/cli/outcomes.ts';
import { ApiError } from '../../../src/kube/errors.ts';
import type { GateRecord } from '../../../src/model/gate-plan.ts';
import { envByName, gateText } from '../../../src/ui/gate-text.ts';
import { painter } from '../../../src/ui/style.ts';

const record = (extra: Partial<GateRecord>): GateRecord => ({
  workloadKind: 'Deployment',
  name: 'web',
  namespace: 'shop',
  action: 'enable',
  result: 'added',
  dryRun: 'none',
  conditionType: 'g',
  gatesBefore: [],
  gatesAfter: ['g'],
  patch: [],
  findings: [],
  ...extra,
});
const target = { verb: 'patch', resource: 'deployments.apps', namespace: 'shop', name: 'web' };

describe('enable-gate results', () => {
  it('shows env vars by name only, valueFrom references kept, in every kind of container', () => {
    const template = {
      metadata: { labels: { app: 'web' } },
      spec: {
        containers: [
          {
            name: 'app',
            image: 'i',
            env: [
              { name: 'PASSWORD', value: 'p4ss' },
              { name: 'FROM', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } },
            ],
          },
        ],
        initContainers: [{ name: 'init', image: 'i', env: [{ name: 'TOKEN', value: 't0ken' }] }],
      },
    };
    expect(envByName(template as never)).toEqual({
      metadata: { labels: { app: 'web' } },
      spec: {
        containers: [
          {
            name: 'app',
            image: 'i',
            env: [{ name: 'PASSWORD' }, { name: 'FROM', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }],
          },
        ],
        initContainers: [{ name: 'init', image: 'i', env: [{ name: 'TOKEN' }] }],
      },
    });
    expect(template.spec.containers[0]!.env[0]!.value).toBe('p4ss');
  });

  it('a write whose read-back failed is added with a warning and exit 0; a timeout exits 2; a refusal by the cluster 4', () => {
    const added = record({
      warnings: ['the gate was written, but reading the Deployment back for its new revision failed: boom'],
    });
    expect(gateText([added], painter(false))).toBe(
      'deployment.apps/web gate added\n  ! warning: the gate was written, but reading the Deployment back for its new revision failed: boom\n  the pod template changed, so a rollout started; follow it with: kubectl haptic status web -n shop --watch\n',
    );
    expect(gateExitCode([added])).toBe(0);
    const timedOut = record({ result: 'failed', cause: new ApiError('Timeout', 't', target) });
    const forbidden = record({ result: 'failed', cause: new ApiError('Forbidden', 'f', target, 403) });
    expect(gateExitCode([added, timedOut])).toBe(2);
    expect(gateExitCode([timedOut, forbidden])).toBe(4);
    expect(gateExitCode([record({ result: 'refused' })])).toBe(1);
  });
});
