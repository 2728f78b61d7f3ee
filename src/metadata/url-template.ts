import { quoted } from '../common/text.js';

/** Values a URL template may name as `{key}`. */
export type TemplateVars = Record<string, string>;

/**
 * Expands `{key}` placeholders and checks the result is an absolute https URL.
 * Returns the URL, or an error saying why it was dropped (unknown placeholder, not https).
 */
export function expandUrl(template: string, vars: TemplateVars): { url: string } | { error: string } {
  let unknown: string | undefined;
  const out = template.replace(/\{([a-zA-Z]+)\}/g, (whole, key: string) => {
    const v = vars[key];
    if (v === undefined) {
      unknown ??= key;
      return whole;
    }
    return v;
  });
  if (unknown !== undefined) return { error: `URL template ${quoted(template)} names unknown {${unknown}}` };
  let url: URL;
  try {
    url = new URL(out);
  } catch {
    return { error: `${quoted(out)} is not an absolute URL` };
  }
  if (url.protocol !== 'https:') return { error: `${quoted(out)} is not https` };
  return { url: out };
}
