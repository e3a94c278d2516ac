// What the HAPTIC stand-in writes on its template config for what HAPTIC's status updater hears: an edit validated or
// refused (ConfigInvalid), a render HAProxy refused (HAProxyValidationFailed) — and how it validates an edit.
import { describe, expect, it } from 'vitest';
import {
  HAPROXY_FAILED_MESSAGE,
  templateConfigErrors,
  templateConfigStatus,
  VALID_MESSAGE,
} from '../../cluster/standins/haptic-status.ts';

const NOW = '2026-12-05T07:00:00Z';

describe('templateConfigStatus', () => {
  it('HAProxy refused the render: HAProxyValidationFailed', () => {
    const s = templateConfigStatus(
      'gate',
      { kind: 'haproxyFailed', error: '[ALERT] unknown keyword' },
      undefined,
      NOW,
      3,
    );
    expect(s).toMatchObject({ validationStatus: 'Invalid', validationMessage: HAPROXY_FAILED_MESSAGE });
    expect('conditions' in s && s.conditions[0]).toMatchObject({
      type: 'Validated',
      status: 'False',
      reason: 'HAProxyValidationFailed',
    });
  });

  it('a refused edit: ConfigInvalid, "N validation error(s)" and the errors', () => {
    const errors = [
      "watched_resources.ingresses.index_by[1]: JSONPath error in parse for expression 'x[': unterminated array",
    ];
    const s = templateConfigStatus('agent', { kind: 'configInvalid', errors }, undefined, NOW, 3);
    expect(s).toMatchObject({
      validationStatus: 'Invalid',
      validationMessage: '1 validation error(s)',
      validationErrors: errors,
      observedGeneration: 3,
    });
    expect('conditions' in s && s.conditions[0]).toMatchObject({
      reason: 'ConfigInvalid',
      message: errors[0],
      observedGeneration: 3,
    });
    // the dataplane generation writes no conditions
    expect(templateConfigStatus('dataplane', { kind: 'configInvalid', errors }, undefined, NOW, 3)).not.toHaveProperty(
      'conditions',
    );
  });

  it('valid: ValidationSucceeded, its lastTransitionTime kept while it holds', () => {
    const first = templateConfigStatus('gate', { kind: 'valid' }, undefined, NOW, 1);
    expect(first).toMatchObject({ validationStatus: 'Valid', validationMessage: VALID_MESSAGE, validationErrors: [] });
    const conditions = 'conditions' in first ? first.conditions : [];
    const again = templateConfigStatus('gate', { kind: 'valid' }, conditions, '2026-12-05T08:00:00Z', 2);
    expect('conditions' in again && again.conditions[0]).toMatchObject({
      reason: 'ValidationSucceeded',
      lastTransitionTime: NOW,
    });
  });
});

describe('templateConfigErrors (HAPTIC JSONPath validator)', () => {
  const spec = (ingresses: Record<string, unknown>) => ({
    watchedResources: {
      services: { resources: 'services', indexBy: ['metadata.namespace', 'metadata.name'] },
      ingresses: { resources: 'ingresses', indexBy: ['metadata.namespace'], ...ingresses },
    },
  });

  it('accepts the chart watchedResources', () => {
    expect(templateConfigErrors(spec({ fieldSelector: 'spec.ingressClassName=haproxy' }))).toEqual([]);
    expect(templateConfigErrors(undefined)).toEqual([]);
  });

  it('refuses an indexBy that does not parse and a fieldSelector that is not path=value, in the order of the names', () => {
    expect(
      templateConfigErrors(spec({ indexBy: ['metadata.labels[', ''], fieldSelector: 'spec.ingressClassName' })),
    ).toEqual([
      "watched_resources.ingresses.index_by[0]: JSONPath error in parse for expression 'metadata.labels[': unterminated array",
      'watched_resources.ingresses.index_by[1]: empty JSONPath expression',
      `watched_resources.ingresses.field_selector: invalid field selector format: expected 'field.path=value', got "spec.ingressClassName"`,
    ]);
  });
});
