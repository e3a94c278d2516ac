// DR301–DR303: servers by DNS name. HAProxy resolves them while parsing its configuration, with init-addr's
// methods in order (default `last,libc`: a name that does not resolve aborts start-up); `none` or an IP lets it
// start without an address, and only a `resolvers` section looks the name up again at run time — with the name as
// written, since HAProxy's resolver does not apply resolv.conf's search domains. HAProxy 2.6 and later declare a
// `resolvers default` section (parse-resolv-conf) themselves.
import { toleratesUnresolved, type ServerView } from '../../model/doctor/haproxy-servers.ts';
import { isShortName, serviceOfHost } from '../../model/doctor/service-dns.ts';
import type { FindingId } from '../catalogue.ts';
import { finding } from '../make.ts';
import type { DoctorEnv, HAProxyConfigView, TemplateFacts } from './context.ts';
import { locate, type Located } from './located.ts';

const IMPLICIT_RESOLVERS = 'default';

type Verdict = { id: FindingId; variant?: string | undefined };

/**
 * A name whose address never changes: a ClusterIP Service of the inputs, by its own name (not a pod's record under
 * it). It resolves as long as the Service exists, so start-up cannot fail on it for a pod being rescheduled — the
 * trap is names that resolve to pod IPs: headless Services and their pods' records.
 */
function stableServiceName(host: string, namespace: string, env: DoctorEnv): boolean {
  const named = serviceOfHost(host, namespace, env.inputs.services);
  if (!named || named.hostname) return false;
  const spec = named.service.spec;
  return spec?.clusterIP !== 'None' && (spec?.type ?? 'ClusterIP') !== 'ExternalName';
}

function dnsVerdicts(s: ServerView, config: HAProxyConfigView, namespace: string, env: DoctorEnv): Verdict[] {
  const tolerant = toleratesUnresolved(s.initAddr.methods);
  const resolvers = s.resolvers?.name;
  const verdicts: Verdict[] = [];
  const short = isShortName(s.host as string, env.namespaces);
  if (resolvers && resolvers !== IMPLICIT_RESOLVERS && !config.facts.resolverSections.includes(resolvers))
    verdicts.push({ id: 'DR302', variant: 'undefinedResolvers' });
  else if (!tolerant && !resolvers) {
    if (!stableServiceName(s.host as string, namespace, env))
      verdicts.push({ id: 'DR301', variant: short ? 'shortName' : 'qualified' });
  } else if (tolerant && !resolvers) verdicts.push({ id: 'DR302', variant: 'initAddrOnly' });
  else if (!tolerant && resolvers) verdicts.push({ id: 'DR302', variant: 'resolversOnly' });
  if (resolvers && short) verdicts.push({ id: 'DR303' });
  return verdicts;
}

function serverLine(config: HAProxyConfigView, s: ServerView): string {
  const resolvers = s.resolvers ? `resolvers ${s.resolvers.name} (${s.resolvers.from})` : 'no resolvers';
  return `${config.label} line ${s.line}: ${s.text} — init-addr ${s.initAddr.methods.join(',')} (${s.initAddr.from}), ${resolvers}`;
}

/** The fully qualified name of a short one, for the fix (cluster.local is Kubernetes' default cluster domain). */
function qualified(host: string, namespace: string, env: DoctorEnv): string {
  const named = serviceOfHost(host, namespace, env.inputs.services);
  if (!named) return `${host}.${namespace}.svc.cluster.local`;
  return `${named.hostname ? `${named.hostname}.` : ''}${named.service.metadata.name}.${named.service.metadata.namespace ?? namespace}.svc.cluster.local`;
}

export function dnsRules(t: TemplateFacts, env: DoctorEnv): Located[] {
  const config = t.config;
  if (!config) return [];
  // one finding per verdict, however many backends repeat the same servers (each server line is in the evidence)
  const groups = new Map<string, { verdict: Verdict; servers: ServerView[] }>();
  for (const s of config.facts.servers.filter((x) => x.host)) {
    for (const verdict of dnsVerdicts(s, config, t.namespace, env)) {
      const key = `${verdict.id}/${verdict.variant ?? ''}`;
      const group = groups.get(key) ?? { verdict, servers: [] };
      group.servers.push(s);
      groups.set(key, group);
    }
  }
  return [...groups.values()].flatMap(({ verdict, servers }) => {
    const first = servers[0] as ServerView;
    const names = [...new Set(servers.map((s) => s.name))];
    const sections = [...new Set(servers.map((s) => s.section))];
    const args = {
      config: config.label,
      servers: `${names.length === 1 ? 'server' : 'servers'} ${names.join(', ')}`,
      verb: servers.length === 1 ? 'is' : 'are',
      section: sections.join(', '),
      resolvers: first.resolvers?.name ?? config.facts.resolverSections[0] ?? 'k8s',
      initAddr: first.initAddr.methods.join(','),
      host: first.host as string,
      example: qualified(first.host as string, t.namespace, env),
    };
    const at = config.key ? { at: { key: config.key, line: first.line } } : {};
    return locate(config.ref, [
      finding(
        verdict.id,
        args,
        servers.map((s) => serverLine(config, s)),
        { variant: verdict.variant },
      ),
    ]).map((f) => ({ ...f, ...at }));
  });
}
