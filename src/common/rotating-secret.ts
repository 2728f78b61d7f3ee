import { readFile } from 'node:fs/promises';
import { text } from './setting-parsers.js';
import { INVALID, combine, setting, type Invalid, type Parse, type Setting } from './settings-schema.js';

/**
 * A secret used for as long as the bridge runs: inline (`NAME`), or a file (`NAME_FILE`) read again before
 * each use, so a rotated Kubernetes Secret is picked up without a restart.
 */
export type RotatingSecret = { kind: 'inline'; value: string } | { kind: 'file'; path: string };

/** A file path, once the file reads and is not empty (it is read again before each use). */
export const secretFile: Parse<string> = (path, check) => {
  const bytes = check.read(path);
  if (bytes === INVALID) return INVALID;
  return bytes.toString('utf8').trim() === '' ? check.invalid('is empty') : path;
};

/** The value itself, or a reader of the file's current content (trimmed) for each use. */
export function secretValue(secret: RotatingSecret): string | (() => Promise<string>) {
  return secret.kind === 'inline' ? secret.value : async () => (await readFile(secret.path, 'utf8')).trim();
}

/** `NAME` or `NAME_FILE`, never both; optional (undefined when neither is set). */
export function rotatingSecret(name: string, docs: { doc: string; shown: string }): Setting<RotatingSecret | undefined> {
  const fileName = `${name}_FILE`;
  return combine(
    {
      inline: setting(name, { parse: text, ...docs }),
      file: setting(fileName, { parse: secretFile, shown: 'or this', doc: 'a file holding it, read again before each use' }),
    },
    ({ inline, file }, source): RotatingSecret | undefined | Invalid => {
      if (inline !== undefined && file !== undefined) return source.problem(`set only one of ${name} and ${fileName}`);
      if (inline === INVALID || file === INVALID) return INVALID;
      if (inline !== undefined) return { kind: 'inline', value: inline };
      return file === undefined ? undefined : { kind: 'file', path: file };
    },
  );
}
