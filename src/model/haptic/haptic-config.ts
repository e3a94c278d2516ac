import type { HAProxyCfg } from '../../types/haptic.ts';

export interface RenderedServer {
  backend: string;
  server: string;
  /** the pod this server stands for: the `# Pod:` comment, else the server name */
  pod: string;
  /** whether a `# Pod:` comment names the pod (else `pod` is only the server's name) */
  named: boolean;
  address: string;
  disabled: boolean;
}

/**
 * The most haproxy.cfg text read from one HAProxyCfg, decompressed: a real configuration is a few MiB for thousands
 * of servers; 33 KB of zstd can expand to a GiB, which would exhaust the heap.
 */
export const MAX_CONFIG_BYTES = 64 * 1024 * 1024;

/** haproxy.cfg text of a HAProxyCfg (zstd + base64 when spec.compressed); throws, saying why, when it cannot be read. */
export function configText(cfg: HAProxyCfg): string {
  const content = cfg.spec?.content ?? '';
  const limit = `${MAX_CONFIG_BYTES / 1024 / 1024} MiB`;
  if (!cfg.spec?.compressed) {
    if (content.length > MAX_CONFIG_BYTES) throw new Error(`its content is larger than ${limit}`);
    return content;
  }
  try {
    // zlib loads when a config is compressed, not on every start (most HAPTIC installations store plain text)
    return process
      .getBuiltinModule('node:zlib')
      .zstdDecompressSync(Buffer.from(content, 'base64'), { maxOutputLength: MAX_CONFIG_BYTES })
      .toString('utf8');
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE')
      throw new Error(`its zstd content expands to more than ${limit}`);
    throw new Error('its zstd content cannot be decompressed');
  }
}

/** Backend servers of a rendered haproxy.cfg. HAPTIC keeps not-ready and terminating endpoints as `disabled`. */
export function renderedServers(text: string): RenderedServer[] {
  const servers: RenderedServer[] = [];
  let backend = '';
  let pendingPod: string | undefined;
  for (const raw of text.split('\n')) {
    const [code = '', comment = ''] = splitComment(raw);
    const podInComment = /Pod:\s*(\S+)/.exec(comment)?.[1];
    const words = code.trim().split(/\s+/).filter(Boolean);
    if (words[0] === 'backend' && words[1]) backend = words[1];
    if (words[0] === 'server' && words[1] && words[2]) {
      servers.push({
        backend,
        server: words[1],
        pod: podInComment ?? pendingPod ?? words[1],
        named: (podInComment ?? pendingPod) !== undefined,
        address: words[2],
        disabled: words.includes('disabled'),
      });
      pendingPod = undefined;
    } else if (words.length === 0 && podInComment) {
      pendingPod = podInComment;
    }
  }
  return servers;
}

function splitComment(line: string): [string, string] {
  const hash = line.indexOf('#');
  return hash < 0 ? [line, ''] : [line.slice(0, hash), line.slice(hash + 1)];
}
