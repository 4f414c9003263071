import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { FastifyBaseLogger, FastifyServerOptions } from 'fastify';
import type { DatabaseOutage } from '../db/outage.js';
import { addressOf, forwardedIp, type Trust } from '../http/client-address.js';
import { answerTo } from '../http/error-handler.js';
import { HttpError } from '../http/errors.js';
import { requestIdOf } from '../http/log.js';
import { crossOriginHeaders } from '../http/security-headers.js';
import { MAX_BODY_BYTES } from './body.js';
import type { Collect } from './collect.js';

type Timeouts = Pick<
  FastifyServerOptions,
  'keepAliveTimeout' | 'requestTimeout' | 'connectionTimeout' | 'maxRequestsPerSocket'
>;

// Names and values in turn, as writeHead takes them without building a header object.
const ANSWER_HEADERS = Object.entries({
  ...crossOriginHeaders,
  'access-control-allow-origin': '*',
  'access-control-expose-headers': 'retry-after',
  'content-type': 'application/json; charset=utf-8',
}).flat();

/** What the door answers with, once the collector is set up. */
interface Serving {
  collect: Collect;
  outage: DatabaseOutage;
  log: FastifyBaseLogger;
  /** Counts an answer by its status. */
  onAnswer: (status: number) => void;
}

/**
 * POST /t/collect served by Node's HTTP server before Fastify sees the request. Every page
 * view of every tracked site posts here, and Fastify's work per request (its request and
 * reply objects, a logger per request, hooks, routing, content-type parsing, the reply's
 * serialiser) was a third of the collector's CPU per acknowledged request; answered here,
 * that CPU fell by a sixth to a quarter (docs/performance.md). The answer is the one the
 * route in routes.ts gives, which stays for the API reference and `inject`: the same
 * `collect`, the contract's error body, helmet's and the CORS headers, X-Request-Id, and a
 * log line only when a request fails (http/log.ts).
 */
export class Beacon {
  private serving: Serving | null = null;
  private closing = false;

  constructor(private readonly trust: Trust) {}

  /** Starts serving (the collector role; without it Fastify serves every request). */
  serve(serving: Serving): void {
    this.serving = serving;
  }

  /** A Node HTTP server that hands the requests it takes here and the rest to Fastify. */
  server(fastify: (request: IncomingMessage, response: ServerResponse) => void, options: Timeouts) {
    const server = createServer((request, response) => {
      const serving = this.takes(request);
      if (serving) this.handle(serving, request, response);
      else fastify(request, response);
    });
    // As Fastify sets up the servers it makes itself.
    server.keepAliveTimeout = options.keepAliveTimeout ?? 72_000;
    server.requestTimeout = options.requestTimeout ?? 0;
    server.setTimeout(options.connectionTimeout ?? 0);
    if (options.maxRequestsPerSocket) server.maxRequestsPerSocket = options.maxRequestsPerSocket;
    return server;
  }

  /** From now on collect answers 503, as Fastify does while it closes. */
  close(): void {
    this.closing = true;
  }

  /** What serves this request when it is one for us (POST /t/collect, with or without a query). */
  private takes(request: IncomingMessage): Serving | null {
    const url = request.url ?? '';
    const ours =
      request.method === 'POST' && (url === '/t/collect' || url.startsWith('/t/collect?'));
    return ours ? this.serving : null;
  }

  private handle(serving: Serving, request: IncomingMessage, response: ServerResponse): void {
    const { collect, outage, log } = serving;
    const started = performance.now();
    const requestId = requestIdOf(request.headers['x-request-id']);
    const answer = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      const text = JSON.stringify(body);
      const lines = [
        ...ANSWER_HEADERS,
        'x-request-id',
        requestId,
        'content-length',
        String(Buffer.byteLength(text)),
      ];
      for (const [name, value] of Object.entries(headers)) lines.push(name, value);
      response.writeHead(status, lines);
      response.end(text);
      serving.onAnswer(status);
      // The collector is logged only when it fails, and not for its 429s (http/log.ts).
      if (status >= 400 && status !== 429) {
        log.info(
          {
            reqId: requestId,
            req: { id: requestId, method: request.method, url: request.url },
            res: { statusCode: status },
            responseTime: performance.now() - started,
          },
          'request completed',
        );
      }
    };
    const fail = (error: unknown) => {
      const { status, body, headers, unexpected } = answerTo(error, outage);
      if (unexpected) log.error({ reqId: requestId, err: error }, 'request failed');
      answer(status, body, headers);
    };
    if (this.closing) {
      fail(
        new HttpError(503, 'The server is shutting down; send it again.', undefined, {
          'retry-after': '5',
          connection: 'close',
        }),
      );
      request.resume();
      return;
    }
    const type = mediaType(request.headers['content-type']);
    if (type !== 'text/plain' && type !== 'application/json') {
      fail(new HttpError(415, 'Send the request body as application/json.'));
      request.resume();
      return;
    }
    const tooLarge = () =>
      new HttpError(413, 'The request body is too large.', undefined, { connection: 'close' });
    if (Number(request.headers['content-length'] ?? 0) > MAX_BODY_BYTES) {
      fail(tooLarge());
      request.resume();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    request.on('data', (chunk: Buffer) => {
      if (refused) return;
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        refused = true;
        fail(tooLarge());
        return;
      }
      chunks.push(chunk);
    });
    // A client that went away sent nothing: its events are not taken.
    request.on('error', () => {
      refused = true;
    });
    request.on('end', () => {
      if (refused) return;
      let body: unknown;
      try {
        const text = chunks.length === 1 ? String(chunks[0]) : Buffer.concat(chunks).toString();
        body = type === 'application/json' && text.trim() === '' ? undefined : JSON.parse(text);
      } catch {
        fail(new HttpError(400, 'The body is not valid JSON.'));
        return;
      }
      collect({
        body,
        ip: addressOf(forwardedIp(request, this.trust), request.socket.remoteAddress),
        userAgent: request.headers['user-agent'],
        gpc: request.headers['sec-gpc'] === '1',
        requestId,
      })
        .then((result) => answer(202, result), fail)
        .catch((error) => log.error({ reqId: requestId, err: error }, 'answer failed'));
    });
  }
}

/** `text/plain;charset=UTF-8` → `text/plain`. */
function mediaType(header: string | undefined): string {
  if (!header) return '';
  const end = header.indexOf(';');
  return (end === -1 ? header : header.slice(0, end)).trim().toLowerCase();
}
