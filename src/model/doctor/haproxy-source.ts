// Where a plain HAProxy container's haproxy.cfg comes from: the file HAProxy reads (`-f <path>` on its command
// line, else the official image's /usr/local/etc/haproxy/haproxy.cfg), traced through the container's volume
// mounts to a ConfigMap key. Charts that copy the config in an init container (redis-ha does) break that trace;
// then a ConfigMap mounted anywhere in the pod with a `haproxy.cfg` key is taken, and the evidence says so. Pure.
import type { ConfigMap, Container, PodSpec, Volume } from '../../types/kube.ts';

export const DEFAULT_CONFIG_PATH = '/usr/local/etc/haproxy/haproxy.cfg';

export type ConfigSource =
  | { found: true; configMap: string; key: string; text: string; how: string }
  | { found: false; why: string };

type Projection = { name?: string; items?: { key: string; path: string }[] };

function projections(v: Volume): Projection[] {
  if (v.configMap) return [v.configMap];
  return (v.projected?.sources ?? []).map((s) => s.configMap).filter((c): c is Projection => !!c);
}

/** The files HAProxy is told to read: every `-f <path>` of command and args. */
export function configPaths(c: Container): string[] {
  const words = [...(c.command ?? []), ...(c.args ?? [])].filter((w): w is string => typeof w === 'string');
  const paths: string[] = [];
  words.forEach((w, i) => {
    if (w === '-f' && words[i + 1]) paths.push(words[i + 1] as string);
    else if (w.startsWith('-f') && w.length > 2 && !w.startsWith('-f-')) paths.push(w.slice(2));
  });
  return paths.length ? paths : [DEFAULT_CONFIG_PATH];
}

function keyFor(p: Projection, file: string): string | undefined {
  if (p.items?.length) return p.items.find((i) => i.path === file)?.key;
  return file.includes('/') ? undefined : file;
}

/** Follows one path through the container's mounts; a directory yields its `.cfg` keys in name order. */
function traced(path: string, c: Container, spec: PodSpec, configMaps: ConfigMap[]): ConfigSource | undefined {
  const mounts = (c.volumeMounts ?? []).filter(
    (m) => path === m.mountPath || path.startsWith(`${m.mountPath.replace(/\/$/, '')}/`),
  );
  const mount = mounts.sort((a, b) => b.mountPath.length - a.mountPath.length)[0];
  if (!mount) return undefined;
  const volume = (spec.volumes ?? []).find((v) => v.name === mount.name);
  for (const p of volume ? projections(volume) : []) {
    const cm = configMaps.find((m) => m.metadata.name === p.name);
    if (!cm)
      return { found: false, why: `configmap/${p.name} (mounted at ${mount.mountPath}) is not among the objects read` };
    const data = cm.data ?? {};
    const rest = path.slice(mount.mountPath.replace(/\/$/, '').length + 1);
    const key = mount.subPath
      ? path === mount.mountPath
        ? keyFor(p, mount.subPath)
        : undefined
      : rest
        ? keyFor(p, rest)
        : undefined;
    const how = `haproxy -f ${path}, mounted from configmap/${p.name}`;
    if (key !== undefined && typeof data[key] === 'string')
      return { found: true, configMap: p.name ?? '', key, text: data[key] as string, how };
    if (!rest && !mount.subPath) {
      const cfgKeys = Object.keys(data)
        .filter((k) => k.endsWith('.cfg'))
        .sort();
      if (cfgKeys.length)
        return {
          found: true,
          configMap: p.name ?? '',
          key: cfgKeys.join(', '),
          text: cfgKeys.map((k) => data[k]).join('\n'),
          how,
        };
    }
  }
  return undefined;
}

export function haproxyConfigSource(c: Container, spec: PodSpec, configMaps: ConfigMap[]): ConfigSource {
  for (const path of configPaths(c)) {
    const found = traced(path, c, spec, configMaps);
    if (found) return found;
  }
  // The file is not a mount of this container (copied by an init container, templated at start): any ConfigMap
  // volume of the pod with a haproxy.cfg key is the best evidence left.
  for (const v of spec.volumes ?? []) {
    for (const p of projections(v)) {
      const cm = configMaps.find((m) => m.metadata.name === p.name);
      const text = cm?.data?.['haproxy.cfg'];
      if (typeof text === 'string')
        return {
          found: true,
          configMap: p.name ?? '',
          key: 'haproxy.cfg',
          text,
          how: `configmap/${p.name} (volume ${v.name}) has a haproxy.cfg key; ${configPaths(c).join(', ')} is not mounted from it directly`,
        };
    }
  }
  return {
    found: false,
    why: `${configPaths(c).join(', ')} is not mounted from a ConfigMap, and no ConfigMap volume of the pod has a haproxy.cfg key`,
  };
}
