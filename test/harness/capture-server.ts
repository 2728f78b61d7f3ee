/**
 * Another origin that only listens: it records every request that reaches it (method, URL, headers) and answers
 * 200 `{}`. A test points a forge's redirect at it to see that nothing, and no token, ever arrives there.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Captured {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
}

export interface CaptureServer {
  /** Its origin, `http://127.0.0.1:<port>`. */
  readonly origin: string;
  readonly requests: readonly Captured[];
  close(): Promise<void>;
}

export async function startCaptureServer(): Promise<CaptureServer> {
  const requests: Captured[] = [];
  const server = createServer((req, res) => {
    requests.push({ method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers });
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
