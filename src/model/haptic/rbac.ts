import type { ClusterRole, PolicyRule, RoleBinding } from '../../types/kube.ts';
import { selectorMatches } from '../selectors.ts';

/**
 * Whether a rule allows a verb on a resource of a group, with RBAC's wildcards: `*` in apiGroups, resources and
 * verbs, and `*\/status` for the status of every resource. `pods/*` is no wildcard: RBAC compares it as a name
 * (plugin/pkg/auth/authorizer/rbac/rbac.go, ResourceMatches: `*`, the exact resource, or `*\/<subresource>`). Rules
 * that name resourceNames allow only those objects, so they do not grant the verb in general.
 */
export function ruleAllows(rule: PolicyRule, group: string, resource: string, verb: string): boolean {
  if (rule.resourceNames?.length) return false;
  const groups = rule.apiGroups ?? [];
  if (!groups.includes(group) && !groups.includes('*')) return false;
  if (!rule.verbs.some((v) => v === verb || v === '*')) return false;
  const sub = resource.split('/')[1];
  return (rule.resources ?? []).some((r) => r === '*' || r === resource || (sub !== undefined && r === `*/${sub}`));
}

/**
 * A ClusterRole's rules, with aggregation: a role with an aggregationRule holds the rules of every ClusterRole its
 * selectors match (what the clusterrole-aggregation controller writes into it; computed here too, so a cluster
 * whose controller lags or does not run reads the same).
 */
export function effectiveRules(role: ClusterRole, all: ClusterRole[]): PolicyRule[] {
  const selectors = role.aggregationRule?.clusterRoleSelectors ?? [];
  if (!selectors.length) return role.rules ?? [];
  const aggregated = all.filter((r) => r !== role && selectors.some((s) => selectorMatches(s, r.metadata.labels)));
  return [...(role.rules ?? []), ...aggregated.flatMap((r) => r.rules ?? [])];
}

/** Whether a binding's subjects include a service account: by name, or the groups of all service accounts. */
export function bindsServiceAccount(binding: RoleBinding, namespace: string, name: string): boolean {
  return (binding.subjects ?? []).some(
    (s) =>
      (s.kind === 'ServiceAccount' && s.name === name && s.namespace === namespace) ||
      (s.kind === 'Group' &&
        (s.name === 'system:serviceaccounts' || s.name === `system:serviceaccounts:${namespace}`)) ||
      (s.kind === 'User' && s.name === `system:serviceaccount:${namespace}:${name}`),
  );
}

/** The ClusterRoles bound cluster-wide to a service account that allow a verb on a resource. */
export function clusterRolesAllowing(
  serviceAccounts: { namespace: string; name: string }[],
  roles: ClusterRole[],
  bindings: RoleBinding[],
  group: string,
  resource: string,
  verb: string,
): { bound: string[]; allowing: string[] } {
  const bound = [
    ...new Set(
      bindings
        .filter(
          (b) =>
            b.roleRef.kind === 'ClusterRole' &&
            serviceAccounts.some((sa) => bindsServiceAccount(b, sa.namespace, sa.name)),
        )
        .map((b) => b.roleRef.name),
    ),
  ].sort();
  const allowing = bound.filter((name) => {
    const role = roles.find((r) => r.metadata.name === name);
    return !!role && effectiveRules(role, roles).some((rule) => ruleAllows(rule, group, resource, verb));
  });
  return { bound, allowing };
}
