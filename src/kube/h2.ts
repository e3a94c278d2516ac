// HTTP/2 to the API server, as kubectl talks to it: one TLS connection per server and credentials, every request a
// stream on it (client-go's transport negotiates h2 by ALPN and multiplexes). A one-shot command's dozen parallel
// lists then cost one TLS handshake instead of one per list, and no fetch machinery is loaded. A server whose ALPN
// answer is not h2 (HTTP/1.1 only, as many proxies and test servers are) is told so once: the caller uses its
// HTTP/1.1 client for it from then on.
import { isIP } from 'node:net';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import type { ClientHttp2Session, ClientHttp2Stream, IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http2';
import type { TlsSettings } from './config.ts';

/** What a request got back: the status, its headers, and the body as it arrives. */
export interface Answer {
  status: number;
  header(name: string): string | null;
  /** the body's chunks; ended by the server, or cut by `cancel` */
  body: AsyncIterable<Uint8Array>;
  cancel(): void;
}

export interface Exchange {
  method: string;
  headers: [string, string][];
  body?: string | undefined;
  signal: AbortSignal;
}

/**
 * Per stream, the server may send this much before the client reads (HTTP/2's default is 64 KiB, which turns a
 * list of a few MiB into a window update every 64 KiB); client-go asks for 4 MiB as well.
 */
const STREAM_WINDOW = 4 * 1024 * 1024;
const SESSION_WINDOW = 16 * 1024 * 1024;

/** RST_STREAM's REFUSED_STREAM (RFC 9113 §7): the server did not process the stream (node:http2 loads lazily). */
const NGHTTP2_REFUSED_STREAM = 7;
/** How often a refused request is sent (a server that refuses every stream of a new connection is answered by its error). */
const REFUSED_ATTEMPTS = 3;

/** Connection-specific headers HTTP/2 forbids (RFC 9113 §8.2.2); the server knows the host from :authority. */
const FORBIDDEN = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'host']);

/** HTTP/2 sessions to one https:// origin with one set of TLS settings; reconnects when the server closes one. */
export class H2Origin {
  private session: ClientHttp2Session | undefined;
  private connecting: Promise<ClientHttp2Session | undefined> | undefined;
  /** the server answered ALPN with something other than h2: use HTTP/1.1 */
  http1 = false;
  private active = 0;

  private readonly origin: URL;
  private readonly tls: TlsSettings;

  constructor(origin: URL, tls: TlsSettings) {
    this.origin = origin;
    this.tls = tls;
  }

  /**
   * Sends one request; undefined when the server does not speak HTTP/2 (nothing was sent). A stream the server
   * refused was not processed (RFC 9113 §8.7): it is sent again on a new connection, as Go's HTTP/2 transport does.
   * kube-apiserver refuses streams when it closes the connection of a client it could not authenticate: the
   * streams it answered get their 401, the others REFUSED_STREAM and the GOAWAY.
   */
  async request(url: URL, exchange: Exchange): Promise<Answer | undefined> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.send(url, exchange);
      } catch (error) {
        if (
          !(error as { refusedStream?: boolean }).refusedStream ||
          attempt >= REFUSED_ATTEMPTS ||
          exchange.signal.aborted
        )
          throw error;
      }
    }
  }

  private async send(url: URL, exchange: Exchange): Promise<Answer | undefined> {
    const session = await abortable(this.connect(), exchange.signal);
    if (!session) return undefined;
    const headers: OutgoingHttpHeaders = { ':method': exchange.method, ':path': `${url.pathname}${url.search}` };
    for (const [name, value] of exchange.headers) {
      const key = name.toLowerCase();
      if (FORBIDDEN.has(key)) continue;
      const had = headers[key];
      headers[key] = had === undefined ? value : ([] as string[]).concat(had as string | string[], value);
    }
    let stream: ClientHttp2Stream;
    try {
      stream = session.request(headers, { endStream: exchange.body === undefined });
    } catch (error) {
      // the session went away (GOAWAY) between connect() and now: nothing was sent
      if (session.closed || session.destroyed) throw Object.assign(error as Error, { refusedStream: true });
      throw error;
    }
    this.hold(stream);
    if (exchange.body !== undefined) stream.end(exchange.body);
    return new Promise<Answer>((resolve, reject) => {
      const onAbort = () =>
        stream.destroy(exchange.signal.reason instanceof Error ? exchange.signal.reason : new Error('aborted'));
      if (exchange.signal.aborted) onAbort();
      else exchange.signal.addEventListener('abort', onAbort, { once: true });
      stream.once('close', () => exchange.signal.removeEventListener('abort', onAbort));
      const refused = () => (stream.rstCode === NGHTTP2_REFUSED_STREAM ? { refusedStream: true } : {});
      // before the headers an error fails the request; after them, it surfaces where the body is read
      stream.on('error', (error) => reject(Object.assign(error, refused())));
      // a stream closed before its headers (the session went away, the server reset it) never answered
      stream.once('close', () =>
        reject(
          Object.assign(
            new Error(`the server closed the stream without an answer (HTTP/2 code ${stream.rstCode ?? 0})`),
            { code: 'ECONNRESET' },
            refused(),
          ),
        ),
      );
      stream.once('response', (received: IncomingHttpHeaders) => {
        resolve({
          status: Number(received[':status']),
          header: (name) => {
            const value = received[name.toLowerCase()];
            return value === undefined ? null : Array.isArray(value) ? value.join(', ') : String(value);
          },
          body: stream,
          // destroy, not close: a stream the server has ended is closed already, yet holds its unread body
          cancel: () => stream.destroy(),
        });
      });
    });
  }

  /** Ends the session and every stream on it. */
  close(): void {
    this.session?.destroy();
    this.session = undefined;
  }

  /** The live session, or a new one; undefined when the server's ALPN answer was not h2. */
  private connect(): Promise<ClientHttp2Session | undefined> {
    if (this.session && !this.session.closed && !this.session.destroyed) return Promise.resolve(this.session);
    if (this.http1) return Promise.resolve(undefined);
    this.connecting ??= this.open().finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  private async open(): Promise<ClientHttp2Session | undefined> {
    const host = this.origin.hostname.replace(/^\[|\]$/g, '');
    const port = Number(this.origin.port) || 443;
    // SNI carries a host name, never an address (RFC 6066 §3); tls-server-name overrides both
    const servername = this.tls.servername ?? (isIP(host) ? undefined : host);
    let http2: Promise<typeof import('node:http2')> | undefined;
    const socket = await new Promise<TLSSocket>((resolve, reject) => {
      const s = tlsConnect({
        host,
        port,
        ...(servername ? { servername } : {}),
        ...(this.tls.ca ? { ca: this.tls.ca } : {}),
        ...(this.tls.cert ? { cert: this.tls.cert, key: this.tls.key } : {}),
        rejectUnauthorized: this.tls.rejectUnauthorized,
        ALPNProtocols: ['h2', 'http/1.1'],
      });
      // node:http2 loads (several ms) while the server answers the ClientHello, sent as the connection opened
      s.once('connect', () => (http2 ??= import('node:http2')));
      s.once('secureConnect', () => {
        s.off('error', reject);
        resolve(s);
      });
      s.once('error', reject);
    });
    if (socket.alpnProtocol !== 'h2') {
      socket.destroy();
      this.http1 = true;
      return undefined;
    }
    const { connect } = await (http2 ?? import('node:http2'));
    const session = connect(this.origin, {
      createConnection: () => socket,
      settings: { initialWindowSize: STREAM_WINDOW },
      maxSessionMemory: 64,
    });
    session.setLocalWindowSize(SESSION_WINDOW);
    // an idle session must not keep a finished command alive; a stream in flight does (hold)
    session.unref();
    const gone = () => {
      if (this.session === session) this.session = undefined;
    };
    session.once('close', gone);
    session.once('goaway', gone);
    session.on('error', gone);
    this.session = session;
    return session;
  }

  /** Keeps the process alive while a stream is open. */
  private hold(stream: ClientHttp2Stream): void {
    if (this.active++ === 0) this.session?.ref();
    stream.once('close', () => {
      if (--this.active === 0) this.session?.unref();
    });
  }
}

/** The promise, or the signal's reason once it aborts first (the promise runs on for others who share it). */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
