/**
 * `WWW-Authenticate` parsing (pure, RFC 9110 challenge grammar): the registry tells us how to
 * authenticate, either Basic or the Docker token flow (Bearer realm/service/scope).
 */

/** One challenge the client knows how to answer. */
export type AuthChallenge = { scheme: 'bearer'; realm: string; service?: string; scope?: string } | { scheme: 'basic'; realm?: string };

interface RawChallenge {
  scheme: string;
  params: Map<string, string>;
}

const TOKEN_CHAR = /[!#$%&'*+.^_`|~0-9A-Za-z-]/;

function readToken(text: string, start: number): [string, number] {
  let i = start;
  while (i < text.length && TOKEN_CHAR.test(text.charAt(i))) i++;
  return [text.slice(start, i), i];
}

function readQuoted(text: string, start: number): [string, number] {
  let value = '';
  let i = start + 1;
  while (i < text.length && text[i] !== '"') {
    if (text[i] === '\\' && i + 1 < text.length) i++;
    value += text.charAt(i);
    i++;
  }
  return [value, i + 1];
}

function skip(text: string, start: number, chars: string): number {
  let i = start;
  while (i < text.length && chars.includes(text.charAt(i))) i++;
  return i;
}

function parseRaw(header: string): RawChallenge[] {
  const out: RawChallenge[] = [];
  let current: RawChallenge | undefined;
  let i = 0;
  while (i < header.length) {
    i = skip(header, i, ' \t,');
    const [name, afterName] = readToken(header, i);
    if (name === '') {
      i++; // stray character: step over it
      continue;
    }
    const afterSpace = skip(header, afterName, ' \t');
    if (header[afterSpace] === '=' && current !== undefined) {
      const valueStart = skip(header, afterSpace + 1, ' \t');
      const [value, end] = header[valueStart] === '"' ? readQuoted(header, valueStart) : readToken(header, valueStart);
      current.params.set(name.toLowerCase(), value);
      i = end;
    } else if (header[afterSpace] === '=') {
      i = afterSpace + 1; // parameter without a scheme: ignore
    } else {
      current = { scheme: name.toLowerCase(), params: new Map() };
      out.push(current);
      i = afterName;
    }
  }
  return out;
}

/** Every usable challenge in a header, in order; unknown schemes and Bearer without realm are dropped. */
export function parseChallenges(header: string): AuthChallenge[] {
  const out: AuthChallenge[] = [];
  for (const raw of parseRaw(header)) {
    const realm = raw.params.get('realm');
    if (raw.scheme === 'bearer' && realm !== undefined && realm !== '') {
      const challenge: AuthChallenge = { scheme: 'bearer', realm };
      const service = raw.params.get('service');
      const scope = raw.params.get('scope');
      if (service !== undefined) challenge.service = service;
      if (scope !== undefined) challenge.scope = scope;
      out.push(challenge);
    } else if (raw.scheme === 'basic') {
      out.push(realm === undefined ? { scheme: 'basic' } : { scheme: 'basic', realm });
    }
  }
  return out;
}

/** The challenge to answer: Bearer when offered (it works anonymously), else Basic, else none. */
export function pickChallenge(header: string | null | undefined): AuthChallenge | undefined {
  if (header === null || header === undefined) return undefined;
  const all = parseChallenges(header);
  return all.find((c) => c.scheme === 'bearer') ?? all[0];
}
