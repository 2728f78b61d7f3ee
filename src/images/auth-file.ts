/**
 * REGISTRY_AUTH_FILE: a docker `config.json` with the controller-wide registry credentials. It is
 * read again when it changes (a mounted Secret is updated in place), and a bad new version keeps
 * the last good one, with one warning.
 */
import { readFileSync, statSync } from 'node:fs';
import { errorMessage } from '../common/errors.js';
import { parseDockerConfigJson, type Keyring } from '../oci/docker-config.js';
import type { WarnOnce } from './pull-secrets.js';

/** Returns the file's current keyring; re-reads it only when its size or modification time changed. */
export function authFileKeyring(path: string, warnOnce: WarnOnce): () => Keyring {
  let version = '';
  let keyring: Keyring = [];
  return () => {
    let seen: string;
    try {
      const st = statSync(path);
      seen = `${st.mtimeMs}:${st.size}:${st.ino}`;
    } catch (err) {
      warnOnce(
        `auth file ${path} stat ${errorMessage(err)}`,
        { path },
        `REGISTRY_AUTH_FILE cannot be read (${(err as NodeJS.ErrnoException).code ?? errorMessage(err)}); using its last good content`,
      );
      return keyring;
    }
    if (seen === version) return keyring;
    try {
      const parsed = parseDockerConfigJson(readFileSync(path, 'utf8'), `REGISTRY_AUTH_FILE ${path}`);
      for (const problem of parsed.problems) warnOnce(`auth file ${seen} ${problem}`, { path }, problem);
      keyring = parsed.keyring;
    } catch (err) {
      warnOnce(`auth file ${seen} ${errorMessage(err)}`, { path }, `${errorMessage(err)}; using its last good content`);
    }
    version = seen;
    return keyring;
  };
}
