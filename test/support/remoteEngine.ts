/**
 * A second Docker Engine for the remote tests (DESIGN section 16, "Remote engines"): `dockerd`
 * listening on a 127.0.0.1 TCP port with TLS (a CA, a server and a client certificate made here
 * with openssl), its own data root and exec root, so nothing of it is the local engine's, in a
 * mount namespace of its own (nothing it mounts is seen by the host). Root only; stopped (its
 * containers with it) and its directory removed by `stop()`.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { copyFileSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { docker } from "./docker.js";

export interface RemoteEngine {
  /** `tcp://127.0.0.1:PORT`. */
  host: string;
  /** The client's ca.pem, cert.pem, key.pem (DOCKER_CERT_PATH). */
  certPath: string;
  /** DOCKER_HOST, DOCKER_TLS_VERIFY, DOCKER_CERT_PATH for the CLI. */
  env: Record<string, string>;
  /** Where the engine keeps everything (its data root is under it). */
  dir: string;
  stop(): Promise<void>;
}

const freePort = async (): Promise<number> => {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
};

function openssl(args: string[], cwd: string): void {
  execFileSync("openssl", args, { cwd, stdio: ["ignore", "ignore", "pipe"] });
}

/** A CA; the server's certificate for IP 127.0.0.1; the client's. Client files in `client/`. */
function makeCertificates(dir: string): { server: string; client: string } {
  const server = path.join(dir, "server");
  const client = path.join(dir, "client");
  mkdirSync(server);
  mkdirSync(client);
  const key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
  openssl(
    ["req", "-x509", ...key, "-keyout", "ca-key.pem", "-out", "ca.pem", "-days", "2", "-subj", "/CN=toolcall-ca"],
    dir,
  );
  const sign = (who: string, subject: string, ext: string): void => {
    writeFileSync(path.join(dir, `${who}.ext`), ext);
    openssl(["req", ...key, "-keyout", `${who}/key.pem`, "-out", `${who}.csr`, "-subj", subject], dir);
    openssl(
      ["x509", "-req", "-in", `${who}.csr`, "-CA", "ca.pem", "-CAkey", "ca-key.pem", "-CAcreateserial"].concat([
        "-out",
        `${who}/cert.pem`,
        "-days",
        "2",
        "-extfile",
        `${who}.ext`,
      ]),
      dir,
    );
    copyFileSync(path.join(dir, "ca.pem"), path.join(dir, who, "ca.pem"));
  };
  sign("server", "/CN=127.0.0.1", "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n");
  sign("client", "/CN=toolcall-client", "extendedKeyUsage=clientAuth\n");
  return { server, client };
}

/** Starts the engine and waits (up to 120 s) until it answers over TLS. */
export async function startRemoteEngine(): Promise<RemoteEngine> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "toolcall-engine-"));
  const { server, client } = makeCertificates(dir);
  const port = await freePort();
  const host = `tcp://127.0.0.1:${port}`;
  const log = openSync(path.join(dir, "dockerd.log"), "a");
  // In a mount namespace of its own: its containers' overlays never appear in (nor vanish from)
  // the host's tree that other tests' sandboxes bind while it runs.
  const daemon: ChildProcess = spawn(
    "unshare",
    [
      ...["--mount", "--propagation", "private", "dockerd"],
      ...["--data-root", path.join(dir, "data"), "--exec-root", path.join(dir, "exec")],
      ...["--pidfile", path.join(dir, "dockerd.pid"), "-H", host, "--tlsverify"],
      ...["--tlscacert", path.join(server, "ca.pem"), "--tlscert", path.join(server, "cert.pem")],
      ...["--tlskey", path.join(server, "key.pem"), "--iptables=false", "--bridge=none"],
    ],
    { stdio: ["ignore", log, log] },
  );
  daemon.on("error", () => undefined);
  const env = { DOCKER_HOST: host, DOCKER_TLS_VERIFY: "1", DOCKER_CERT_PATH: client };
  const stop = async (): Promise<void> => {
    if (daemon.exitCode === null && daemon.signalCode === null) {
      const left = (() => {
        try {
          return docker(["ps", "-aq"], undefined, env).split("\n").filter(Boolean);
        } catch {
          return [];
        }
      })();
      if (left.length > 0) docker(["rm", "-f", ...left], undefined, env);
      const exited = once(daemon, "exit");
      daemon.kill("SIGTERM");
      const timer = setTimeout(() => daemon.kill("SIGKILL"), 60_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  for (let i = 0; i < 600; i++) {
    if (daemon.exitCode !== null) break;
    try {
      docker(["info", "--format", "{{.ServerVersion}}"], undefined, env);
      return { host, certPath: client, env, dir, stop };
    } catch {
      await delay(200);
    }
  }
  await stop();
  throw new Error(`the TLS engine on ${host} did not answer (log: ${path.join(dir, "dockerd.log")})`);
}
