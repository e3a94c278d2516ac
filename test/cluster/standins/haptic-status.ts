// Status blocks HAPTIC writes on its custom resources, the refused render the refuseRender knob produces, and the
// validation of a template-config edit.
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
 * What HAPTIC's status updater last heard (pkg/controller/configchange/status_updater.go), the only events it
 * subscribes to: an edit of the template config validated (ConfigValidatedEvent) or refused (ConfigInvalidEvent, the
 * validators' errors: pkg/controller/configchange/handler.go), and a render HAProxy refused (ValidationFailedEvent).
 * A render accepted after a refusal, and a render that fails in the template (TemplateRenderFailedEvent), it does not
 * hear: the verdict stays what it was.
 */
export type Verdict =
  | { kind: 'valid' }
  | { kind: 'configInvalid'; errors: string[] }
  | { kind: 'haproxyFailed'; error: string };

/**
 * HAProxyTemplateConfig status for a verdict, written at `now` for `generation` of the template config: the fields
 * both generations write (status_updater.go), and the agent and gate generations' observedGeneration and Validated
 * condition (ValidationSucceeded, ConfigInvalid, HAProxyValidationFailed).
 */
export function templateConfigStatus(
  shape: StatusShape,
  verdict: Verdict,
  previous: Condition[] | undefined,
  now: string,
  generation: number,
) {
  const fields =
    verdict.kind === 'valid'
      ? {
          validationStatus: 'Valid',
          validationMessage: VALID_MESSAGE,
          validationErrors: [] as string[],
          lastValidated: now,
        }
      : verdict.kind === 'configInvalid'
        ? {
            validationStatus: 'Invalid',
            validationMessage: `${verdict.errors.length} validation error(s)`,
            validationErrors: verdict.errors,
            lastValidated: now,
          }
        : {
            validationStatus: 'Invalid',
            validationMessage: HAPROXY_FAILED_MESSAGE,
            validationErrors: [verdict.error],
            lastValidated: now,
          };
  if (shape === 'dataplane') return fields;
  const validated =
    verdict.kind === 'valid'
      ? condition(previous, 'Validated', 'True', 'ValidationSucceeded', VALID_MESSAGE, now)
      : verdict.kind === 'configInvalid'
        ? condition(previous, 'Validated', 'False', 'ConfigInvalid', verdict.errors.join('; '), now)
        : condition(previous, 'Validated', 'False', 'HAProxyValidationFailed', verdict.error, now);
  return { ...fields, observedGeneration: generation, conditions: [{ ...validated, observedGeneration: generation }] };
}

/**
 * The validators' errors for a template config's spec, as HAPTIC's JSONPath validator words them
 * (pkg/controller/validator/jsonpath.go, in the order of the watched resources' names): each indexBy expression must
 * parse (pkg/k8s/indexer/jsonpath.go NewJSONPathEvaluator, client-go's jsonpath parser: an empty expression, an
 * unterminated `[`), each fieldSelector must be `path=value` (pkg/k8s/indexer/fieldselector.go
 * NewFieldSelectorMatcher). Templates are not rendered here, so the template validator finds nothing.
 */
export function templateConfigErrors(spec: { watchedResources?: Record<string, any> } | undefined): string[] {
  const errors: string[] = [];
  const resources = spec?.watchedResources ?? {};
  for (const name of Object.keys(resources).sort()) {
    const resource = resources[name] ?? {};
    (Array.isArray(resource.indexBy) ? resource.indexBy : []).forEach((expr: unknown, i: number) => {
      const error = jsonPathError(String(expr ?? ''));
      if (error) errors.push(`watched_resources.${name}.index_by[${i}]: ${error}`);
    });
    const selector = typeof resource.fieldSelector === 'string' ? resource.fieldSelector : '';
    if (selector) {
      const at = selector.indexOf('=');
      if (at < 0)
        errors.push(
          `watched_resources.${name}.field_selector: invalid field selector format: expected 'field.path=value', got ${JSON.stringify(selector)}`,
        );
      else if (!selector.slice(0, at).trim())
        errors.push(
          `watched_resources.${name}.field_selector: invalid field selector: empty field path in ${JSON.stringify(selector)}`,
        );
    }
  }
  return errors;
}

/** client-go's jsonpath parse error for `{.<expr>}`, the cases the stand-in tells: empty, an unterminated array. */
function jsonPathError(expr: string): string | undefined {
  if (!expr) return 'empty JSONPath expression';
  let depth = 0;
  for (const ch of expr) {
    if (ch === '[') depth++;
    else if (ch === ']') depth = Math.max(0, depth - 1);
  }
  return depth > 0 ? `JSONPath error in parse for expression '${expr}': unterminated array` : undefined;
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
