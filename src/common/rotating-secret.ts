import { readFile } from 'node:fs/promises';
import { INVALID, combine, setting, type Invalid, type Parse, type Setting } from './settings-schema.js';

/**
 * A secret used for as long as the bridge runs: inline (`NAME`), or a file (`NAME_FILE`) read again before
 * each use, so a rotated Kubernetes Secret is picked up without a restart.
 */
export type RotatingSecret = { kind: 'inline'; value: string } | { kind: 'file'; path: string };

/** Why a secret's value is not accepted (a phrase after its name, never quoting it), or undefined: e.g. weakSecret. */
type Refusal = (value: string) => string | undefined;

/** A file path, once the file reads, is not empty and `refuse` (when given) has nothing against it (read again before each use). */
export function secretFileParse(refuse?: Refusal): Parse<string> {
  return (path, check) => {
    const bytes = check.read(path);
    if (bytes === INVALID) return INVALID;
    const value = bytes.toString('utf8').trim();
    if (value === '') return check.invalid('is empty');
    const why = refuse?.(value);
    return why === undefined ? path : check.invalid(why);
  };
}

/** A file path, once the file reads and is not empty (it is read again before each use). */
export const secretFile: Parse<string> = secretFileParse();

/** The value itself, or a reader of the file's current content (trimmed) for each use. */
export function secretValue(secret: RotatingSecret): string | (() => Promise<string>) {
  return secret.kind === 'inline' ? secret.value : async () => (await readFile(secret.path, 'utf8')).trim();
}

/** `NAME` or `NAME_FILE`, never both; optional (undefined when neither is set). `refuse`: values not accepted (the file's at start). */
export function rotatingSecret(name: string, docs: { doc: string; shown: string }, refuse?: Refusal): Setting<RotatingSecret | undefined> {
  const fileName = `${name}_FILE`;
  const inlineParse: Parse<string> = (value, check) => {
    const why = refuse?.(value);
    return why === undefined ? value : check.problem(`${name} ${why}`);
  };
  return combine(
    {
      inline: setting(name, { parse: inlineParse, ...docs }),
      file: setting(fileName, { parse: secretFileParse(refuse), shown: 'or this', doc: 'a file holding it, read again before each use' }),
    },
    ({ inline, file }, source): RotatingSecret | undefined | Invalid => {
      if (inline !== undefined && file !== undefined) return source.problem(`set only one of ${name} and ${fileName}`);
      if (inline === INVALID || file === INVALID) return INVALID;
      if (inline !== undefined) return { kind: 'inline', value: inline };
      return file === undefined ? undefined : { kind: 'file', path: file };
    },
  );
}
