/** Reading request bodies off the socket. */
import type { IncomingMessage } from 'node:http';

/** Bound on what the simulator reads (far above any deployment body); larger ones get 413. */
const MAX_BODY_BYTES = 1024 * 1024;

/** What parseJson answers for text that is not JSON. */
export const PARSE_ERROR = Symbol('parse error');

export function parseJson(raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return PARSE_ERROR;
  }
}

/** The request body as text; undefined when it exceeds MAX_BODY_BYTES. */
export async function readBody(req: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
