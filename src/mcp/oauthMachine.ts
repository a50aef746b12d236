/** OAuth without a person: client credentials (a secret or a private key JWT) and SEP-990 cross-app access. */
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { ClientCredentialsProvider, PrivateKeyJwtProvider } from "@modelcontextprotocol/sdk/client/auth-extensions.js";
import type { OAuthDiscoveryState } from "@modelcontextprotocol/sdk/client/auth.js";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import { PACKAGE_VERSION } from "../util/index.js";
import type { McpOAuthConfig } from "./config.js";

export const isClientCredentials = (o: McpOAuthConfig): boolean =>
  o.grantType === "client_credentials" || o.privateKey !== undefined;

export function machineProvider(o: McpOAuthConfig): OAuthClientProvider {
  const scope = o.scopes?.join(" ");
  const common = { clientId: o.clientId as string, ...(scope !== undefined && { scope }) };
  if (o.issuer !== undefined) {
    // The secret or assertion goes only to this authorization server.
    const expectedIssuer = o.issuer;
    return o.privateKey !== undefined
      ? new PrivateKeyJwtProvider({
          ...common,
          privateKey: o.privateKey,
          algorithm: o.signingAlgorithm ?? "ES256",
          expectedIssuer,
        })
      : new ClientCredentialsProvider({ ...common, clientSecret: o.clientSecret as string, expectedIssuer });
  }
  // Without `issuer`, the authorization server is the one the MCP server's metadata names.
  return o.privateKey !== undefined
    ? // eslint-disable-next-line @typescript-eslint/no-deprecated -- no issuer configured (see above)
      new PrivateKeyJwtProvider({ ...common, privateKey: o.privateKey, algorithm: o.signingAlgorithm ?? "ES256" })
    : // eslint-disable-next-line @typescript-eslint/no-deprecated -- no issuer configured (see above)
      new ClientCredentialsProvider({ ...common, clientSecret: o.clientSecret as string });
}

const TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange";
const JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer";

/**
 * SEP-990 cross-app access: the person's ID token is exchanged at their identity provider for
 * an identity assertion grant (ID-JAG) naming this authorization server and resource, which
 * is then a JWT bearer grant here. Nobody is sent to a browser.
 */
export class IdentityAssertionProvider implements OAuthClientProvider {
  private saved: OAuthTokens | undefined;
  private discovery: OAuthDiscoveryState | undefined;
  constructor(
    private readonly oauth: McpOAuthConfig,
    private readonly serverUrl: string,
  ) {}

  get redirectUrl(): undefined {
    return undefined;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.oauth.clientName ?? `toolcall-runtime ${PACKAGE_VERSION}`,
      redirect_uris: [],
      grant_types: [JWT_BEARER],
      token_endpoint_auth_method: this.oauth.clientSecret !== undefined ? "client_secret_basic" : "none",
    };
  }

  clientInformation(): OAuthClientInformationMixed {
    const { clientId, clientSecret } = this.oauth;
    return { client_id: clientId as string, ...(clientSecret !== undefined && { client_secret: clientSecret }) };
  }

  tokens(): OAuthTokens | undefined {
    return this.saved;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.saved = tokens;
  }

  redirectToAuthorization(): never {
    throw new Error("cross-app access needs no browser");
  }

  saveCodeVerifier(): void {
    // no PKCE in a JWT bearer grant
  }

  codeVerifier(): never {
    throw new Error("cross-app access has no PKCE verifier");
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovery = state;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.discovery;
  }

  async prepareTokenRequest(scope?: string): Promise<URLSearchParams> {
    const { idpTokenEndpoint, idpClientId, idTokenEnvVar } = this.oauth;
    const idToken = process.env[idTokenEnvVar as string];
    if (!idToken) throw new Error(`environment variable ${idTokenEnvVar} (id_token_env_var) is not set`);
    const audience = this.discovery?.authorizationServerMetadata?.issuer ?? this.discovery?.authorizationServerUrl;
    const resource = this.discovery?.resourceMetadata?.resource ?? this.serverUrl;
    const exchange = new URLSearchParams({
      grant_type: TOKEN_EXCHANGE,
      requested_token_type: "urn:ietf:params:oauth:token-type:id-jag",
      audience: audience ?? "",
      resource,
      subject_token: idToken,
      subject_token_type: "urn:ietf:params:oauth:token-type:id_token",
      client_id: idpClientId as string,
      ...(scope !== undefined && { scope }),
    });
    const answer = await fetch(idpTokenEndpoint as string, { method: "POST", body: exchange });
    const body = (await answer.json().catch(() => ({}))) as { access_token?: unknown; error?: unknown };
    if (!answer.ok || typeof body.access_token !== "string") {
      const why = typeof body.error === "string" ? ` ${body.error}` : "";
      throw new Error(`token exchange at ${idpTokenEndpoint} failed (${answer.status}${why})`);
    }
    return new URLSearchParams({ grant_type: JWT_BEARER, assertion: body.access_token });
  }
}
