import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The bridge's own version, from the package.json above this module (src/ or dist/src/). */
export function controllerVersion(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 4; i++) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'github-deployment-bridge' && pkg.version) return pkg.version;
    } catch {
      // not here: look one level up
    }
    dir = dirname(dir);
  }
  return '0.0.0-unknown';
}
