/** An installation access token and when GitHub said it expires (epoch milliseconds). */
export interface MintedToken {
  token: string;
  expiresAt: number;
}

/** Tokens are replaced this long before they expire (they live an hour), so no request carries a dying token. */
export const TOKEN_REFRESH_MARGIN_MS = 5 * 60_000;

/**
 * Installation access tokens, kept in memory per installation and minted again before expiry.
 * Concurrent requests for one installation share a single mint.
 */
export class InstallationTokens {
  private readonly tokens = new Map<number, MintedToken>();
  private readonly minting = new Map<number, Promise<MintedToken>>();

  constructor(
    private readonly mint: (installationId: number) => Promise<MintedToken>,
    private readonly now: () => number,
  ) {}

  async get(installationId: number): Promise<string> {
    const held = this.tokens.get(installationId);
    if (held !== undefined && held.expiresAt - TOKEN_REFRESH_MARGIN_MS > this.now()) return held.token;
    let pending = this.minting.get(installationId);
    if (pending === undefined) {
      pending = this.mint(installationId).finally(() => this.minting.delete(installationId));
      this.minting.set(installationId, pending);
    }
    const minted = await pending;
    this.tokens.set(installationId, minted);
    return minted.token;
  }

  /** Forgets one installation's token (GitHub answered 401 with it). */
  invalidate(installationId: number): void {
    this.tokens.delete(installationId);
  }

  /** Forgets every token (the App's credentials were rejected). */
  invalidateAll(): void {
    this.tokens.clear();
  }
}
