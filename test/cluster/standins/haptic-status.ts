// Status blocks HAPTIC writes on its custom resources, and the refused render the refuseRender knob produces.
// Pure: the previous conditions in (to keep lastTransitionTime while a status holds), the new block out.
import { type Condition, findCondition } from './common.ts';

export function condition(previous: Condition[] | undefined, type: string, status: 'True' | 'False', reason: string, message: string, now: string): Condition {
  const old = findCondition(previous, type);
  return { type, status, reason, message, lastTransitionTime: old?.status === status && old.lastTransitionTime ? old.lastTransitionTime : now };
}

/** HAProxyCfg conditions: accepted (gate open), or refused with HAProxy's error (gate holding the last good config). */
export function haproxyCfgConditions(refusal: string | undefined, pinnedChecksum: string | undefined, previous: Condition[] | undefined, now: string): Condition[] {
  if (refusal === undefined) {
    return [
      condition(previous, 'ConfigValidated', 'True', 'HAProxyAccepted', 'HAProxy accepted the rendered configuration', now),
      condition(previous, 'ConfigPinned', 'False', 'RenderGateOpen', 'new renders reach the HAProxy pods', now),
    ];
  }
  return [
    condition(previous, 'ConfigValidated', 'False', 'HAProxyRefused', refusal, now),
    condition(previous, 'ConfigPinned', 'True', 'RenderGateHolding',
      `HAProxy refused two renders in a row; HAProxy pods keep the last accepted configuration ${pinnedChecksum ?? '(none)'}`, now),
  ];
}

/** HAProxyTemplateConfig status: Validated (its only condition type) and the validation fields. */
export function templateConfigStatus(refusal: string | undefined, previous: Condition[] | undefined, now: string) {
  if (refusal === undefined) {
    return {
      conditions: [condition(previous, 'Validated', 'True', 'ValidationSucceeded', 'configuration rendered and accepted by HAProxy', now)],
      validationStatus: 'Valid',
      validationMessage: 'configuration rendered and accepted by HAProxy',
      validationErrors: [],
    };
  }
  return {
    conditions: [condition(previous, 'Validated', 'False', 'HAProxyValidationFailed', refusal, now)],
    validationStatus: 'Invalid',
    validationMessage: refusal,
    validationErrors: [refusal],
  };
}

/** The render HAProxy refuses: the config with a misspelt keyword, and `haproxy -c`'s complaint about it. */
export function refusedRender(content: string): { content: string; error: string } {
  const lines = content.trimEnd().split('\n');
  lines.push('', 'backend standin_refused', '    sever broken 127.0.0.1:1');
  const line = lines.length;
  return {
    content: lines.join('\n') + '\n',
    error: `[ALERT]    (1) : config : parsing [/etc/haproxy/haproxy.cfg:${line}] : unknown keyword 'sever' in 'backend' section; did you mean 'server' maybe ? [ALERT]    (1) : config : Fatal errors found in configuration.`,
  };
}
