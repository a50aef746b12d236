import { createHash, randomBytes } from "node:crypto";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import path from "node:path";
import { auth, extractWWWAuthenticateParams, type OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { Logger } from "pino";
import { errorMessage, PACKAGE_VERSION, toolcallHome } from "../util/index.js";
import type { McpOAuthConfig, McpServerConfig } from "./config.js";
import { isClientCredentials, machineProvider, IdentityAssertionProvider } from "./oauthMachine.js";

/** Called with the URL a person opens to authorize a server (authorization code + PKCE). */
export type McpAuthorizationHandler = (url: URL, ctx: { server: string }) => void | Promise<void>;

/** How long `toolcall mcp login` (or an embedder) waits for the browser to come back. */
const AUTHORIZATION_TIMEOUT_MS = 5 * 60 * 1000;

/** What is kept per server: tokens (with when they were saved), the registered client, the loopback port. */
interface Stored {
  tokens?: OAuthTokens;
  savedAt?: number;
  client?: OAuthClientInformationMixed;
  port?: number;
}

/** One server's credentials in `{home}/mcp-oauth/{server}-{hash of url}.json`, mode 0600. */
export class OAuthTokenFile {
  readonly file: string;
  constructor(server: string, url: string, home = toolcallHome()) {
    const key = createHash("sha256").update(url).digest("hex").slice(0, 12);
    this.file = path.join(home, "mcp-oauth", `${server}-${key}.json`);
  }

  async read(): Promise<Stored> {
    try {
      return JSON.parse(await readFile(this.file, "utf8")) as Stored;
    } catch {
      return {}; // none yet, or unreadable: the flow starts over
    }
  }

  async write(stored: Stored): Promise<void> {
    await mkdir(path.dirname(this.file), { recursive: true, mode: 0o700 });
    const tmp = `${this.file}.${process.pid}.tmp`;
    await writeFile(tmp, JSON.stringify(stored), { mode: 0o600 });
    await rename(tmp, this.file);
  }

  async remove(): Promise<boolean> {
    try {
      await rm(this.file);
      return true;
    } catch {
      return false;
    }
  }
}

/** The loopback redirect target: one request to `/callback` with `code` and `state`. */
class LoopbackRedirect {
  private server: Server | undefined;
  /** `state` is read when the redirect arrives: the SDK makes it while the person is already on their way. */
  private waiter: { state: () => string; resolve: (code: string) => void; reject: (e: Error) => void } | undefined;

  /** Listens on 127.0.0.1 (`port`, else the port used last time if free, else any); returns the redirect URL. */
  async open(port: number | undefined): Promise<string> {
    if (!this.server) {
      const server = createServer((req, res) => {
        const url = new URL(req.url ?? "/", "http://127.0.0.1");
        const w = this.waiter;
        if (url.pathname !== "/callback" || !w) {
          res.writeHead(404).end();
          return;
        }
        const code = url.searchParams.get("code");
        const error = url.searchParams.get("error");
        if (url.searchParams.get("state") !== w.state()) {
          res.writeHead(400).end("state mismatch");
          w.reject(new Error("OAuth redirect came back with a different state"));
        } else if (!code) {
          res.writeHead(400).end(`authorization failed: ${error ?? "no code"}`);
          w.reject(new Error(`authorization failed: ${error ?? "no code"}`));
        } else {
          res.writeHead(200, { "content-type": "text/plain" }).end("Authorized. You can close this window.");
          w.resolve(code);
        }
        this.waiter = undefined;
      });
      this.server = await new Promise<Server>((resolve, reject) => {
        server.once("error", reject);
        server.listen(port ?? 0, "127.0.0.1", () => {
          resolve(server);
        });
      });
    }
    const address = this.server.address() as { port: number };
    return `http://127.0.0.1:${address.port}/callback`;
  }

  get port(): number | undefined {
    return (this.server?.address() as { port: number } | null)?.port;
  }

  wait(state: () => string, timeoutMs: number): Promise<string> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiter = undefined;
        reject(new Error(`no authorization within ${timeoutMs / 1000}s`));
      }, timeoutMs);
      const done =
        <T>(f: (v: T) => void) =>
        (v: T): void => {
          clearTimeout(timer);
          f(v);
        };
      this.waiter = { state, resolve: done(resolve), reject: done(reject) };
    });
  }

  close(): void {
    this.waiter?.reject(new Error("the authorization was abandoned"));
    this.waiter = undefined;
    this.server?.close();
    this.server = undefined;
  }
}

/** Authorization code + PKCE with a loopback redirect; tokens and the registered client in a file. */
class InteractiveProvider implements OAuthClientProvider {
  private stored: Stored = {};
  private verifier: string | undefined;
  private pendingState: string | undefined;
  private redirect: string | undefined;
  readonly loopback = new LoopbackRedirect();
  declare readonly clientMetadataUrl?: string;

  constructor(
    private readonly server: string,
    private readonly oauth: McpOAuthConfig,
    private readonly file: OAuthTokenFile,
    private readonly onAuthorizationUrl: McpAuthorizationHandler | undefined,
  ) {
    if (oauth.clientMetadataUrl !== undefined)
      Object.defineProperty(this, "clientMetadataUrl", { value: oauth.clientMetadataUrl });
  }

  async load(): Promise<void> {
    this.stored = await this.file.read();
    if (this.oauth.clientId !== undefined) {
      // Pre-registered: no dynamic registration.
      this.stored.client = {
        client_id: this.oauth.clientId,
        ...(this.oauth.clientSecret !== undefined && { client_secret: this.oauth.clientSecret }),
      };
    }
  }

  /** Opens the loopback listener before the flow needs its URL (registration sends it). */
  async prepareRedirect(): Promise<void> {
    this.redirect = await this.loopback.open(this.oauth.callbackPort ?? this.stored.port);
  }

  get redirectUrl(): string {
    return this.redirect ?? "http://127.0.0.1/callback";
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.oauth.clientName ?? `toolcall-runtime ${PACKAGE_VERSION}`,
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: this.oauth.clientSecret !== undefined ? "client_secret_basic" : "none",
      ...(this.oauth.scopes && { scope: this.oauth.scopes.join(" ") }),
    };
  }

  state(): string {
    this.pendingState = randomBytes(16).toString("hex");
    return this.pendingState;
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.stored.client;
  }

  async saveClientInformation(client: OAuthClientInformationMixed): Promise<void> {
    this.stored.client = client;
    const port = this.loopback.port;
    if (port !== undefined) this.stored.port = port;
    await this.file.write(this.stored);
  }

  tokens(): OAuthTokens | undefined {
    return this.stored.tokens;
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    this.stored.tokens = tokens;
    this.stored.savedAt = Date.now();
    await this.file.write(this.stored);
  }

  /** Access token past its `expires_in` (with a minute to spare) while a refresh token is there. */
  expired(): boolean {
    const { tokens, savedAt } = this.stored;
    if (!tokens?.refresh_token || tokens.expires_in === undefined || savedAt === undefined) return false;
    return Date.now() > savedAt + tokens.expires_in * 1000 - 60_000;
  }

  redirectToAuthorization(url: URL): Promise<void> | void {
    if (!this.onAuthorizationUrl) {
      throw new McpAuthRequiredError(this.server);
    }
    return this.onAuthorizationUrl(url, { server: this.server });
  }

  waitForCode(): Promise<string> {
    return this.loopback.wait(() => this.pendingState ?? "", AUTHORIZATION_TIMEOUT_MS);
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    if (!this.verifier) throw new Error("no PKCE code verifier: the authorization was not started here");
    return this.verifier;
  }

  async invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): Promise<void> {
    if (scope === "all" || scope === "tokens") delete this.stored.tokens;
    if ((scope === "all" || scope === "client") && this.oauth.clientId === undefined) delete this.stored.client;
    if (scope === "all" || scope === "verifier") this.verifier = undefined;
    await this.file.write(this.stored);
  }
}

/** A server needs a person to authorize it first. */
export class McpAuthRequiredError extends Error {
  constructor(readonly server: string) {
    super(`MCP server '${server}' needs authorization: run \`toolcall mcp login ${server}\``);
    this.name = "McpAuthRequiredError";
  }
}

export interface OAuthFetchOptions {
  server: string;
  config: McpServerConfig;
  onAuthorizationUrl?: McpAuthorizationHandler | undefined;
  logger: Logger;
  /** Where tokens are kept; default `$TOOLCALL_HOME`. */
  home?: string | undefined;
}

/** The fetch a `url` server's transport uses, with OAuth on 401 / insufficient scope; closes the loopback. */
export interface OAuthFetch {
  fetch: FetchLike;
  close(): void;
}

/**
 * OAuth for one `url` server (DESIGN section 14), as a fetch wrapper the transport uses: the
 * stored access token goes on every request; a 401 (or a 403 asking for more scope) runs the
 * SDK's `auth()` — discovery, registration, authorization code + PKCE through the loopback
 * redirect, or client credentials — and retries once. Tokens are refreshed when they expire.
 * A server configured with its own `Authorization` header is left alone.
 */
export function oauthFetch(opts: OAuthFetchOptions): OAuthFetch {
  const { server, config } = opts;
  const oauth = config.oauth ?? {};
  const url = config.url as string;
  const crossApp = oauth.idpTokenEndpoint !== undefined;
  const machine = crossApp || isClientCredentials(oauth);
  const interactive = machine
    ? undefined
    : new InteractiveProvider(server, oauth, new OAuthTokenFile(server, url, opts.home), opts.onAuthorizationUrl);
  const provider: OAuthClientProvider =
    interactive ?? (crossApp ? new IdentityAssertionProvider(oauth, url) : machineProvider(oauth));
  let loaded: Promise<void> | undefined;

  const authorize = async (next: FetchLike, response: Response | undefined): Promise<void> => {
    const { resourceMetadataUrl, scope } = response ? extractWWWAuthenticateParams(response) : {};
    const options = {
      serverUrl: url,
      ...(resourceMetadataUrl && { resourceMetadataUrl }),
      ...(scope !== undefined && { scope }),
      fetchFn: next,
    };
    await interactive?.prepareRedirect();
    // Listening before the person is sent off: their browser may be back before `auth` returns.
    const code = interactive?.waitForCode();
    code?.catch(() => undefined);
    try {
      const result = await auth(provider, options);
      if (result === "REDIRECT" && code) {
        const authorizationCode = await code;
        await auth(provider, { ...options, authorizationCode });
      }
    } finally {
      interactive?.loopback.close();
    }
  };

  const fetch: FetchLike = async (input, init) => {
    const next: FetchLike = globalThis.fetch;
    const headers = new Headers(init?.headers);
    if (headers.has("authorization")) return next(input, init);
    loaded ??= interactive?.load() ?? Promise.resolve();
    await loaded;
    if (interactive?.expired())
      await authorize(next, undefined).catch((err: unknown) => {
        opts.logger.debug({ err, server }, "OAuth refresh failed; the server's answer decides");
      });
    const send = async (): Promise<Response> => {
      const tokens = await provider.tokens();
      if (tokens) headers.set("authorization", `Bearer ${tokens.access_token}`);
      return next(input, { ...init, headers });
    };
    let response = await send();
    if (response.status === 401 || (response.status === 403 && insufficientScope(response))) {
      try {
        await authorize(next, response);
      } catch (err) {
        if (err instanceof McpAuthRequiredError) throw err;
        throw new Error(`MCP server '${server}' authorization failed: ${errorMessage(err)}`);
      }
      response = await send();
    }
    return response;
  };
  return { fetch, close: () => interactive?.loopback.close() };
}

function insufficientScope(response: Response): boolean {
  return /error="?insufficient_scope/.test(response.headers.get("www-authenticate") ?? "");
}
