import { createHash } from "node:crypto";
import { readFile, stat, writeFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from "node:http";
import path from "node:path";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { McpConnectionManager, OAuthTokenFile } from "../../src/mcp/index.js";
import { collect, spawnCli, withTempDir } from "../cli/helpers.js";

/**
 * An MCP server behind OAuth on 127.0.0.1, with its own authorization server: dynamic
 * registration, authorization code + PKCE (S256 checked), refresh tokens. `whoami` answers
 * with the access token the call carried.
 */
class ProtectedServer {
  readonly valid = new Set<string>();
  readonly hits: string[] = [];
  private issued = 0;
  private challenge = "";
  private http: HttpServer | undefined;
  base = "";

  async start(): Promise<void> {
    this.http = createServer((req, res) => {
      void this.handle(req, res);
    });
    await new Promise<void>((r) => this.http?.listen(0, "127.0.0.1", r));
    this.base = `http://127.0.0.1:${(this.http.address() as { port: number }).port}`;
  }

  close(): Promise<void> {
    return new Promise((r) =>
      this.http?.close(() => {
        r();
      }),
    );
  }

  private token(): Record<string, unknown> {
    const access = `at${++this.issued}`;
    this.valid.add(access);
    return { access_token: access, token_type: "Bearer", expires_in: 3600, refresh_token: `rt${this.issued}` };
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<unknown> {
    const url = new URL(req.url ?? "/", this.base);
    this.hits.push(`${req.method} ${url.pathname}`);
    const body = await new Promise<string>((r) => {
      let b = "";
      req.on("data", (c: Buffer) => (b += c.toString()));
      req.on("end", () => {
        r(b);
      });
    });
    const json = (status: number, value: unknown): ServerResponse =>
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(value));
    switch (url.pathname) {
      case "/.well-known/oauth-protected-resource/mcp":
        return json(200, { resource: `${this.base}/mcp`, authorization_servers: [this.base] });
      case "/.well-known/oauth-authorization-server":
        return json(200, {
          issuer: this.base,
          authorization_endpoint: `${this.base}/authorize`,
          token_endpoint: `${this.base}/token`,
          registration_endpoint: `${this.base}/register`,
          response_types_supported: ["code"],
          grant_types_supported: ["authorization_code", "refresh_token"],
          code_challenge_methods_supported: ["S256"],
          token_endpoint_auth_methods_supported: ["none"],
        });
      case "/register":
        return json(201, { ...(JSON.parse(body) as object), client_id: "client-1" });
      case "/authorize": {
        this.challenge = url.searchParams.get("code_challenge") ?? "";
        const back = new URL(url.searchParams.get("redirect_uri") ?? "");
        back.searchParams.set("code", "code-1");
        back.searchParams.set("state", url.searchParams.get("state") ?? "");
        res.writeHead(302, { location: back.href }).end();
        return;
      }
      case "/token": {
        const form = new URLSearchParams(body);
        if (form.get("grant_type") === "refresh_token") return json(200, this.token());
        const verifier = form.get("code_verifier") ?? "";
        const s256 = createHash("sha256").update(verifier).digest("base64url");
        if (form.get("code") !== "code-1" || s256 !== this.challenge) return json(400, { error: "invalid_grant" });
        return json(200, this.token());
      }
      case "/mcp": {
        if (req.method !== "POST") {
          res.writeHead(405).end(); // stateless: no standalone SSE stream, no sessions to delete
          return;
        }
        const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
        if (!token || !this.valid.has(token)) {
          res
            .writeHead(401, {
              "www-authenticate": `Bearer resource_metadata="${this.base}/.well-known/oauth-protected-resource/mcp"`,
            })
            .end();
          return;
        }
        const server = new Server({ name: "protected", version: "1" }, { capabilities: { tools: {} } });
        server.setRequestHandler(ListToolsRequestSchema, () => ({
          tools: [{ name: "whoami", inputSchema: { type: "object" } }],
        }));
        server.setRequestHandler(CallToolRequestSchema, () => ({ content: [{ type: "text", text: token }] }));
        const transport = new StreamableHTTPServerTransport({ enableJsonResponse: true }); // stateless;
        await server.connect(transport);
        await transport.handleRequest(req, res, JSON.parse(body));
        return;
      }
      default:
        res.writeHead(404).end();
    }
  }
}

let as: ProtectedServer;
beforeAll(async () => {
  as = new ProtectedServer();
  await as.start();
});
afterAll(() => as.close());

const whoami = async (m: McpConnectionManager): Promise<string> =>
  ((await m.callTool("remote", "whoami", {})).content[0] as { text: string }).text;

describe("OAuth for url servers", () => {
  it("mcp login authorizes once (PKCE, loopback redirect), tokens kept 0600, used and refreshed, logout forgets", async () => {
    await withTempDir(async (home) => {
      const url = `${as.base}/mcp`;
      await writeFile(path.join(home, "toolcall.toml"), `[mcp_servers.remote]\nurl = "${url}"\n`);

      // Not logged in: the server says who needs `toolcall mcp login`.
      const before = McpConnectionManager.start({ remote: { url } }, { oauthHome: home });
      const summary = await before.waitForStartup();
      await before.close();
      expect(summary.failed[0]?.error).toContain(
        "MCP server 'remote' needs authorization: run `toolcall mcp login remote`",
      );

      const login = spawnCli(["mcp", "login", "remote"], { cwd: home, env: { TOOLCALL_HOME: home } });
      const done = collect(login);
      let printed = "";
      const link = await new Promise<string>((resolve) => {
        login.stderr?.on("data", (c: Buffer) => {
          printed += c.toString();
          const m = /\n {2}(http\S+)\n/.exec(printed);
          if (m) resolve(m[1] as string);
        });
      });
      // The person's browser: the authorization server sends it back to the loopback listener.
      const redirect = (await fetch(link, { redirect: "manual" })).headers.get("location") as string;
      expect(new URL(redirect).hostname).toBe("127.0.0.1");
      expect((await fetch(redirect)).status).toBe(200);
      const result = await done;
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toContain("logged in to 'remote'");

      const file = new OAuthTokenFile("remote", url, home).file;
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      expect(JSON.parse(await readFile(file, "utf8"))).toMatchObject({ tokens: { access_token: "at1" } });

      // A later session uses the stored token: no person needed.
      const m = McpConnectionManager.start({ remote: { url } }, { oauthHome: home });
      try {
        await m.waitForStartup();
        const authorizations = as.hits.filter((h) => h.endsWith("/authorize")).length;
        expect(await whoami(m)).toBe("at1");
        // The token is revoked: the refresh token gets a new one, and the call goes through.
        as.valid.delete("at1");
        expect(await whoami(m)).toBe("at2");
        expect(as.hits.filter((h) => h.endsWith("/authorize"))).toHaveLength(authorizations);
        expect(JSON.parse(await readFile(file, "utf8"))).toMatchObject({ tokens: { access_token: "at2" } });
      } finally {
        await m.close();
      }

      const logout = await collect(spawnCli(["mcp", "logout", "remote"], { cwd: home, env: { TOOLCALL_HOME: home } }));
      expect(logout.stderr).toContain("logged out of 'remote'");
      await expect(stat(file)).rejects.toThrow();
    });
  });
});
