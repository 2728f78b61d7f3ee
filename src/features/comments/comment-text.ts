/**
 * Someone else's text (workload names, versions, URLs, Flux objects' annotations) rendered into a forge's
 * Markdown as text only: HTML and Markdown escaped, no `@` mention, no `#` reference, no autolink, no image,
 * one line, bounded. Pure.
 */
import { oneLine } from '../../common/text.js';

/** Zero-width joiner: breaks `@team`, `#12`, `https://` and `www.` so the forge links and pings nothing, and still reads the same. */
const ZWJ = '\u200D';

const HTML: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };

/** Control characters and bidirectional overrides: they can make a cell read as something else. */
const INVISIBLE = /[\p{Cc}\u200B-\u200F\u202A-\u202E\u2066-\u2069\uFEFF]/gu;

/**
 * `text` as plain text in a Markdown table cell (or a heading): at most `maxChars` characters, on one line,
 * every HTML and Markdown special character escaped (pipes included), mentions, references and autolinks broken.
 */
export function markdownText(text: string, maxChars: number): string {
  return oneLine(text.replace(INVISIBLE, ' '), maxChars)
    .replace(/[&<>]/g, (c) => HTML[c] ?? c)
    .replace(/[\\`*_{}[\]()#+\-!|~=^$:]/g, '\\$&')
    .replace(/@/g, `@${ZWJ}`)
    .replace(/\\#/g, `\\#${ZWJ}`)
    .replace(/(https?|ftp|mailto)/gi, `$1${ZWJ}`)
    .replace(/www\./gi, `www${ZWJ}.`);
}

/** Longest link kept, in characters: longer URLs are shown without their link. */
export const MAX_URL_CHARS = 500;
/** Longest host shown as a link's text, in characters. */
const HOST_CHARS = 80;

/**
 * A host as a link's text: at most HOST_CHARS, cut at its start (`…` first), so the registrable name at its end
 * (the one that says whose site it is) stays visible however long the subdomain before it.
 */
export function hostText(host: string): string {
  return host.length <= HOST_CHARS ? host : `…${host.slice(host.length - (HOST_CHARS - 1))}`;
}

/**
 * A Markdown link to `url` when it is an absolute http(s) URL without credentials, its text the URL's host
 * (escaped); else undefined. The destination is percent-encoded where Markdown would end or bend it.
 */
export function markdownLink(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch {
    return undefined;
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return undefined;
  if (parsed.username !== '' || parsed.password !== '') return undefined;
  const href = parsed.href.replace(/[()<>|\\\s"'`[\]]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
  if (href.length > MAX_URL_CHARS) return undefined;
  return `[${markdownText(hostText(parsed.host), HOST_CHARS)}](${href})`;
}
