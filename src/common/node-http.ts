/**
 * node:http and node:https, loaded with require. On Node 24 an ES import of node:http builds its whole module
 * namespace, and its WebSocket, CloseEvent and MessageEvent getters load undici: about 13 MiB of memory for
 * nothing the bridge uses (BENCHMARKS.md §5). Every module of the bridge's own code takes them from here;
 * `import type` from 'node:http' is fine (erased).
 */
import type * as HttpModule from 'node:http';
import type * as HttpsModule from 'node:https';
import { createRequire } from 'node:module';

const load = createRequire(import.meta.url);
export const http = load('node:http') as typeof HttpModule;
export const https = load('node:https') as typeof HttpsModule;
