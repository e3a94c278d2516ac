// Status blocks HAPTIC writes on its custom resources, and the refused render the refuseRender knob produces.
// Pure: the previous conditions in (to keep lastTransitionTime while a status holds), the new block out.
// What each generation writes (docs/haptic-compat.md, "Conditions, reasons, events"):
// - HAProxyTemplateConfig: the dataplane generation only validationStatus, validationMessage, validationErrors
//   and lastValidated (pkg/controller/configchange/status_updater.go); the agent generation adds observedGeneration
//   and one condition, Validated (same file in gitlab.com/haproxy-haptic/haptic).
// - HAProxyCfg: neither released generation writes conditions; the seed's gate release has ConfigValidated and
//   ConfigPinned (design/haptic.md, from HAPTIC's crd-reference.md), written here for the gate shape only.
import { type Condition, findCondition } from './common.ts';
import type { StatusShape } from './knobs.ts';

export function condition(
  previous: Condition[] | undefined,
  type: string,
  status: 'True' | 'False',
  reason: string,
  message: string,
  now: string,
): Condition {
  const old = findCondition(previous, type);
  return {
    type,
    status,
    reason,
    message,
    lastTransitionTime: old?.status === status && old.lastTransitionTime ? old.lastTransitionTime : now,
  };
}

/** HAProxyCfg conditions: accepted (gate open), or refused with HAProxy's error (gate holding the last good config). */
export function haproxyCfgConditions(
  shape: StatusShape,
  refusal: string | undefined,
  pinnedChecksum: string | undefined,
  previous: Condition[] | undefined,
  now: string,
): Condition[] | undefined {
  if (shape !== 'gate') return undefined;
  if (refusal === undefined) {
    return [
      condition(
        previous,
        'ConfigValidated',
        'True',
        'HAProxyAccepted',
        'HAProxy accepted the rendered configuration',
        now,
      ),
      condition(previous, 'ConfigPinned', 'False', 'RenderGateOpen', 'new renders reach the HAProxy pods', now),
    ];
  }
  return [
    condition(previous, 'ConfigValidated', 'False', 'HAProxyRefused', refusal, now),
    condition(
      previous,
      'ConfigPinned',
      'True',
      'RenderGateHolding',
      `HAProxy refused two renders in a row; HAProxy pods keep the last accepted configuration ${pinnedChecksum ?? '(none)'}`,
      now,
    ),
  ];
}

export const VALID_MESSAGE = 'Configuration validated successfully';
export const HAPROXY_FAILED_MESSAGE = 'HAProxy configuration validation failed';

/**
 * HAProxyTemplateConfig status after a validation at `generation` of the template config: valid, or refused by
 * `haproxy -c` with its error. The agent and gate generations add observedGeneration and the Validated condition.
 */
export function templateConfigStatus(
  shape: StatusShape,
  refusal: { error: string; template: boolean } | undefined,
  previous: Condition[] | undefined,
  now: string,
  generation: number,
) {
  // a template that failed is ConfigInvalid with "N validation error(s)"; HAProxy's refusal HAProxyValidationFailed
  // (configchange status_updater.go)
  const fields =
    refusal === undefined
      ? {
          validationStatus: 'Valid',
          validationMessage: VALID_MESSAGE,
          validationErrors: [] as string[],
          lastValidated: now,
        }
      : {
          validationStatus: 'Invalid',
          validationMessage: refusal.template ? '1 validation error(s)' : HAPROXY_FAILED_MESSAGE,
          validationErrors: [refusal.error],
          lastValidated: now,
        };
  if (shape === 'dataplane') return fields;
  const validated =
    refusal === undefined
      ? condition(previous, 'Validated', 'True', 'ValidationSucceeded', VALID_MESSAGE, now)
      : condition(
          previous,
          'Validated',
          'False',
          refusal.template ? 'ConfigInvalid' : 'HAProxyValidationFailed',
          refusal.error,
          now,
        );
  return { ...fields, observedGeneration: generation, conditions: [{ ...validated, observedGeneration: generation }] };
}

/** The render HAProxy refuses: the config with a misspelt keyword, and `haproxy -c`'s complaint about it. */
export function refusedRender(content: string): { content: string; error: string } {
  const lines = content.trimEnd().split('\n');
  lines.push('', 'backend standin_refused', '    sever broken 127.0.0.1:1');
  const line = lines.length;
  return {
    content: `${lines.join('\n')}\n`,
    error: `[ALERT]    (1) : config : parsing [/etc/haproxy/haproxy.cfg:${line}] : unknown keyword 'sever' in 'backend' section; did you mean 'server' maybe ? [ALERT]    (1) : config : Fatal errors found in configuration.`,
  };
}
