// What the HAPTIC stand-in writes on its template config after a render: valid, refused by HAProxy, or a template
// that failed as a whole (the agent generation's ResolveServicePort) — the reasons HS107 tells apart.
import { describe, expect, it } from 'vitest';
import { HAPROXY_FAILED_MESSAGE, templateConfigStatus } from '../../cluster/standins/haptic-status.ts';

const NOW = '2026-12-05T07:00:00Z';

describe('templateConfigStatus', () => {
  it('HAProxy refused the render: HAProxyValidationFailed', () => {
    const s = templateConfigStatus('gate', { error: '[ALERT] unknown keyword', template: false }, undefined, NOW, 3);
    expect(s).toMatchObject({ validationStatus: 'Invalid', validationMessage: HAPROXY_FAILED_MESSAGE });
    expect('conditions' in s && s.conditions[0]).toMatchObject({
      type: 'Validated',
      status: 'False',
      reason: 'HAProxyValidationFailed',
    });
  });

  it('the template failed as a whole: ConfigInvalid with its error, in the validation errors too', () => {
    const error = "ResolveServicePort: Service shop/web has no port named 'htp' (available: [http])";
    const s = templateConfigStatus('agent', { error, template: true }, undefined, NOW, 3);
    expect(s).toMatchObject({
      validationStatus: 'Invalid',
      validationMessage: '1 validation error(s)',
      validationErrors: [error],
      observedGeneration: 3,
    });
    expect('conditions' in s && s.conditions[0]).toMatchObject({
      reason: 'ConfigInvalid',
      message: error,
      observedGeneration: 3,
    });
    // the dataplane generation writes no conditions
    expect(templateConfigStatus('dataplane', { error, template: true }, undefined, NOW, 3)).not.toHaveProperty(
      'conditions',
    );
  });
});
