import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { type AddressInfo, createServer as createNetServer, type Socket } from 'node:net';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * A real HTTP receiver on loopback that records what it gets and answers `statuses` in turn,
 * keeping connections open (keep-alive) as ordinary servers do.
 */
export async function startReceiver(
  statuses: number[] = [200],
  at: { host?: string; port?: number } = {},
) {
  const received: Received[] = [];
  let answer = 0;
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      received.push({ headers: request.headers, body });
      response.statusCode = statuses[Math.min(answer++, statuses.length - 1)] as number;
      response.end();
    });
  });
  const host = at.host ?? '127.0.0.1';
  await new Promise<void>((resolve) => server.listen(at.port ?? 0, host, resolve));
  return {
    url: `http://${host}:${(server.address() as AddressInfo).port}/hooks`,
    received,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(resolve);
      }),
  };
}

export interface SlowRequest {
  delivery: string;
  event: string;
}

/**
 * A receiver that holds the sender, on a raw TCP server so nothing answers for it:
 * `status` trickles the status line (one byte every `everyMs`, never ending the head),
 * `body` sends a 200 head at once and then trickles the body, `silent` never answers.
 * It counts the connections open at once, the most of them, and what each carried.
 */
export async function startSlowReceiver(kind: 'status' | 'body' | 'silent', everyMs = 300) {
  const requests: SlowRequest[] = [];
  const sockets = new Set<Socket>();
  let most = 0;
  const server = createNetServer((socket) => {
    sockets.add(socket);
    most = Math.max(most, sockets.size);
    let text = '';
    let started = false;
    let timer: NodeJS.Timeout | undefined;
    socket.on('error', () => {});
    socket.on('close', () => {
      clearInterval(timer);
      sockets.delete(socket);
    });
    socket.on('data', (chunk) => {
      text += chunk;
      if (started || !text.includes('\r\n\r\n')) return;
      started = true;
      requests.push({
        delivery: /x-footfall-delivery: *(\S+)/i.exec(text)?.[1] ?? '',
        event: /x-footfall-event: *(\S+)/i.exec(text)?.[1] ?? '',
      });
      if (kind === 'silent') return;
      // The status line byte by byte, then a header that never ends; or a 200 head at
      // once, then body bytes.
      const trickle = kind === 'status' ? 'HTTP/1.1 200 OK\r\nX-Slow: ' : '';
      if (kind === 'body') socket.write('HTTP/1.1 200 OK\r\ncontent-length: 100000\r\n\r\n');
      let sent = 0;
      timer = setInterval(() => socket.write(trickle[sent++] ?? 'x'), everyMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    requests,
    /** Connections open now, and the most open at once so far. */
    open: () => sockets.size,
    most: () => most,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
