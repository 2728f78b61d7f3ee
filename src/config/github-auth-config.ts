import { parseAppPrivateKey } from '../github/app-jwt.js';
import type { GitHubAuth } from '../github/github-client.js';

const POSITIVE_INT = /^[1-9]\d{0,15}$/;

/** Exactly one of `GITHUB_TOKEN` or a GitHub App (`GITHUB_APP_ID` + `GITHUB_APP_PRIVATE_KEY` or `_PATH`). */
export function githubAuthFrom(
  str: (name: string) => string | undefined,
  readFile: (path: string) => Buffer,
  problems: string[],
): GitHubAuth {
  const token = str('GITHUB_TOKEN');
  const appId = str('GITHUB_APP_ID');
  const keyText = str('GITHUB_APP_PRIVATE_KEY');
  const keyPath = str('GITHUB_APP_PRIVATE_KEY_PATH');
  const installation = str('GITHUB_APP_INSTALLATION_ID');
  const appish = appId !== undefined || keyText !== undefined || keyPath !== undefined || installation !== undefined;
  if (token !== undefined && appish) {
    problems.push(
      'set either GITHUB_TOKEN or a GitHub App (GITHUB_APP_ID with GITHUB_APP_PRIVATE_KEY or GITHUB_APP_PRIVATE_KEY_PATH), not both',
    );
    return { kind: 'token', token };
  }
  if (token !== undefined) return { kind: 'token', token };
  if (!appish) {
    problems.push(
      'GitHub credentials are required: GITHUB_TOKEN (Deployments read & write on the reported repositories), or GITHUB_APP_ID with GITHUB_APP_PRIVATE_KEY or GITHUB_APP_PRIVATE_KEY_PATH',
    );
    return { kind: 'token', token: '' };
  }
  if (appId === undefined) problems.push('GITHUB_APP_ID is required with a GitHub App private key');
  else if (!POSITIVE_INT.test(appId)) problems.push(`GITHUB_APP_ID="${appId}" must be the App's numeric id`);
  if (installation !== undefined && !POSITIVE_INT.test(installation))
    problems.push(`GITHUB_APP_INSTALLATION_ID="${installation}" must be a numeric installation id`);
  let privateKey = '';
  if (keyText !== undefined && keyPath !== undefined)
    problems.push('set only one of GITHUB_APP_PRIVATE_KEY and GITHUB_APP_PRIVATE_KEY_PATH');
  else if (keyText === undefined && keyPath === undefined)
    problems.push('GITHUB_APP_PRIVATE_KEY or GITHUB_APP_PRIVATE_KEY_PATH is required with GITHUB_APP_ID');
  else {
    const name = keyText !== undefined ? 'GITHUB_APP_PRIVATE_KEY' : `GITHUB_APP_PRIVATE_KEY_PATH="${keyPath}"`;
    try {
      privateKey = keyText ?? readFile(keyPath!).toString('utf8');
      parseAppPrivateKey(privateKey);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      problems.push(
        code && !code.startsWith('ERR_')
          ? `${name} cannot be read (${code})`
          : `${name} is not a PEM private key of the App (${(err as Error).message})`,
      );
    }
  }
  return {
    kind: 'app',
    appId: Number(appId ?? 0),
    privateKey,
    ...(installation !== undefined && POSITIVE_INT.test(installation) ? { installationId: Number(installation) } : {}),
  };
}
