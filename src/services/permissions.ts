import type { KubeClient } from '../kube/client.ts';
import type { Permission } from '../model/drill/plan.ts';

/** The permissions the user lacks in the namespace (SelfSubjectAccessReview, as kubectl auth can-i). */
export async function missingPermissions(
  client: KubeClient,
  namespace: string,
  permissions: Permission[],
): Promise<Permission[]> {
  const path = '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews';
  const answers = await Promise.all(
    permissions.map((p) =>
      client.request<{ status?: { allowed?: boolean } }>(
        'POST',
        path,
        { verb: 'create', resource: 'selfsubjectaccessreviews.authorization.k8s.io' },
        {
          body: {
            apiVersion: 'authorization.k8s.io/v1',
            kind: 'SelfSubjectAccessReview',
            spec: {
              resourceAttributes: {
                namespace,
                verb: p.verb,
                group: p.group,
                resource: p.resource,
                ...(p.subresource ? { subresource: p.subresource } : {}),
              },
            },
          },
        },
      ),
    ),
  );
  return permissions.filter((_, i) => answers[i]?.status?.allowed !== true);
}
