/** The oldest Node.js major the bridge runs on: package.json's `engines` (`^24`), the image's and the tests' release. */
export const OLDEST_NODE_MAJOR = 24;

/**
 * Why this Node.js cannot run the bridge (one line, what to do instead), or undefined when it can. better-sqlite3 13
 * crashes older ones with a segmentation fault, so the check has to come before any native module is loaded.
 */
export function nodeRefusal(version: string): string | undefined {
  const major = Number(/^v?(\d+)\./.exec(version)?.[1]);
  if (Number.isInteger(major) && major >= OLDEST_NODE_MAJOR) return undefined;
  return (
    `github-deployment-bridge: Node.js ${version} is not supported, it needs Node.js ${OLDEST_NODE_MAJOR} or newer; ` +
    'in a checkout run it on the Node.js that npm ci installs: node_modules/.bin/node dist/src/main.js …'
  );
}
