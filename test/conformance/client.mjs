/**
 * The client the MCP conformance suite drives (`conformance client --command ...`): one
 * McpConnectionManager for the scenario's server URL (the last argument), every listed tool
 * called once. Elicitations are accepted with no fields, so the schema defaults fill them in.
 * Plain JavaScript on the built dist/ (what users run): each scenario starts it afresh, and a
 * TypeScript loader would cost three times the client's own start-up, every time.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import process from "node:process";
import { McpConnectionManager } from "../../dist/index.js";

const url = process.argv.at(-1);
/** Scenario data: pre-registered or machine client credentials. */
/** @type {Record<string, string | undefined>} */
const context = JSON.parse(process.env["MCP_CONFORMANCE_CONTEXT"] ?? "{}");

/** @returns {import("../../dist/index.js").McpOAuthConfig} */
function oauthFor(scenario) {
  const { client_id: clientId, client_secret: clientSecret, private_key_pem: privateKey } = context;
  if (scenario === "auth/client-credentials-jwt") {
    return {
      clientId: clientId,
      privateKey: privateKey,
      signingAlgorithm: context["signing_algorithm"] ?? "ES256",
    };
  }
  if (scenario === "auth/client-credentials-basic") {
    return { clientId: clientId, clientSecret: clientSecret, grantType: "client_credentials" };
  }
  if (scenario === "auth/cross-app-access-complete-flow") {
    process.env["CONFORMANCE_IDP_ID_TOKEN"] = context["idp_id_token"];
    return {
      clientId: clientId,
      clientSecret: clientSecret,
      idpTokenEndpoint: context["idp_token_endpoint"],
      idpClientId: context["idp_client_id"],
      idTokenEnvVar: "CONFORMANCE_IDP_ID_TOKEN",
    };
  }
  if (clientId !== undefined) return { clientId, ...(clientSecret !== undefined && { clientSecret }) };
  // Used where the authorization server supports URL-based client ids.
  return { clientMetadataUrl: "https://conformance-test.local/client-metadata.json" };
}

/** Plays the person's browser: the suite's authorization endpoint redirects at once; follow it to our loopback. */
async function browser(authorizationUrl) {
  const answer = await globalThis.fetch(authorizationUrl, { redirect: "manual" });
  const location = answer.headers.get("location");
  if (!location) throw new Error(`no redirect from ${authorizationUrl.href} (${answer.status})`);
  await globalThis.fetch(location);
}

const mcp = McpConnectionManager.start(
  {
    conformance: {
      url,
      startupTimeoutSec: 20,
      toolTimeoutSec: 20,
      oauth: oauthFor(process.env["MCP_CONFORMANCE_SCENARIO"] ?? ""),
    },
  },
  {
    onElicitation: () => Promise.resolve({ action: "accept", content: {} }),
    onAuthorizationUrl: browser,
    oauthHome: mkdtempSync(path.join(tmpdir(), "toolcall-conformance-")),
  },
);
let failed = false;
try {
  const { failed: startFailures } = await mcp.waitForStartup();
  for (const f of startFailures) {
    process.stderr.write(`start-up failed: ${f.error}\n`);
    failed = true;
  }
  for (const { tool, inputSchema } of mcp.listAllTools().values()) {
    // Numbers for number parameters (add_numbers), nothing for the rest.
    const props = inputSchema["properties"] ?? {};
    const args = Object.fromEntries(
      Object.entries(props).flatMap(([k, s]) => (s.type === "number" || s.type === "integer" ? [[k, 1]] : [])),
    );
    const result = await mcp.callTool("conformance", tool, args);
    process.stdout.write(`${tool}: ${JSON.stringify(result.content)}\n`);
  }
} catch (err) {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  failed = true;
} finally {
  await mcp.close();
}
process.exit(failed ? 1 : 0);
