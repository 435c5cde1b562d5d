/**
 * A credential set with `pulumi config set` without `--secret` (issue 14, group 6; issue 23 item 9)
 * lands in `Pulumi.<stack>.yaml` in plain text; flagstack warns, naming the key and never its
 * value, and keeps it out of the stack's state (`provider/core/config-provider.ts`; the real
 * engine's side is `test/e2e/keys-plaintext-config.test.ts`).
 *
 * The program's process is the only one that knows which config values are secrets (the language
 * host's `PULUMI_CONFIG_SECRET_KEYS`; the dynamic provider's `configure` gets every value already
 * unwrapped), so the end-to-end cases run a program's process as the Node.js language host starts
 * one: a child process with `PULUMI_CONFIG`, `PULUMI_CONFIG_SECRET_KEYS` and the engine's address in
 * `PULUMI_NODEJS_ENGINE`, which loads flagstack's resource modules. The engine is a gRPC server in
 * this process that records every `Log` call, as the real engine's would become diagnostics.
 */
import { spawn } from "node:child_process";
import { resolve } from "node:path";
import * as grpc from "@grpc/grpc-js";
import { EngineService } from "@pulumi/pulumi/proto/engine_grpc_pb";
import type { LogRequest } from "@pulumi/pulumi/proto/engine_pb";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  ALLOW_PLAINTEXT_KEYS,
  plaintextCredentialKeys,
  plaintextCredentialWarning,
  warnPlaintextCredentials,
} from "../../provider/core/config";

const REPO = resolve(__dirname, "..", "..");
const ADMIN_KEY = "adm-PLAINCANARY-0123456789abcdef0123456789ab";
const PLATFORM_KEY = "pat.acct.PLAINCANARY0123456789.abcdef0123";
const SDK_KEY = "sdk-PLAINCANARY-0123456789abcdef0123456789ab";

/** The env a Pulumi program gets from the language host (keys in its `<ns>:config:<name>` form). */
function programEnv(config: Record<string, string>, secretKeys: string[]): NodeJS.ProcessEnv {
  const wire: Record<string, string> = {};
  for (const [k, v] of Object.entries(config)) wire[k.replace(":", ":config:")] = v;
  return { PULUMI_CONFIG: JSON.stringify(wire), PULUMI_CONFIG_SECRET_KEYS: JSON.stringify(secretKeys) };
}

const STACK = {
  "flagstack:adminApiUrl": "http://127.0.0.1:1",
  "flagstack:adminApiKey": ADMIN_KEY,
  "flagstack:platformApiKey": PLATFORM_KEY,
  "flagstack:sdkKey": SDK_KEY,
  "shop:flagName": "checkout",
};

const ONE_KEY =
  "flagstack: flagstack:adminApiKey is set in the stack config in plain text (without --secret), so it is stored unencrypted in Pulumi.<stack>.yaml and in each update's record of the config; flagstack's resources keep it out of the stack's state by taking the provider flagstack-config, which holds the flagstack config with the keys encrypted. Run `pulumi config set --secret flagstack:adminApiKey <value>`, or set flagstack:allowPlaintextKeys to true to accept plain-text keys";

describe("which credentials are in plain text", () => {
  it("a credential set without --secret is named, in a fixed order, never with its value", () => {
    const env = programEnv(STACK, ["flagstack:platformApiKey"]);
    expect(plaintextCredentialKeys(env)).toEqual(["flagstack:adminApiKey", "flagstack:sdkKey"]);
    const warning = plaintextCredentialWarning(env);
    expect(warning).toBe(
      "flagstack: flagstack:adminApiKey, flagstack:sdkKey are set in the stack config in plain text (without --secret), so they are stored unencrypted in Pulumi.<stack>.yaml and in each update's record of the config; flagstack's resources keep them out of the stack's state by taking the provider flagstack-config, which holds the flagstack config with the keys encrypted. Run `pulumi config set --secret flagstack:adminApiKey <value>`, `pulumi config set --secret flagstack:sdkKey <value>`, or set flagstack:allowPlaintextKeys to true to accept plain-text keys",
    );
    expect(warning).not.toContain("PLAINCANARY");
    expect(
      plaintextCredentialWarning(programEnv(STACK, ["flagstack:platformApiKey", "flagstack:sdkKey"])),
    ).toBe(ONE_KEY);
  });

  it("no warning when every credential is a secret, when none is set, outside a program, or when plain text is allowed", () => {
    const allSecret = ["flagstack:adminApiKey", "flagstack:platformApiKey", "flagstack:sdkKey"];
    expect(plaintextCredentialKeys(programEnv(STACK, allSecret))).toEqual([]);
    // the secret keys may also come in the language host's `<ns>:config:<name>` form
    expect(
      plaintextCredentialKeys(
        programEnv(
          STACK,
          allSecret.map((k) => k.replace(":", ":config:")),
        ),
      ),
    ).toEqual([]);
    expect(plaintextCredentialKeys(programEnv({ "flagstack:adminApiUrl": "http://h" }, []))).toEqual([]);
    expect(plaintextCredentialKeys({})).toEqual([]);
    // the provider process: the engine puts only the pulumi-nodejs namespace there
    expect(plaintextCredentialKeys({ PULUMI_CONFIG: "{}" })).toEqual([]);
    expect(plaintextCredentialKeys({ PULUMI_CONFIG: "not json", PULUMI_CONFIG_SECRET_KEYS: "[" })).toEqual(
      [],
    );
    for (const allow of ["true", "TRUE", " true "]) {
      expect(plaintextCredentialKeys(programEnv({ ...STACK, [ALLOW_PLAINTEXT_KEYS]: allow }, []))).toEqual(
        [],
      );
    }
    expect(
      plaintextCredentialKeys(programEnv({ ...STACK, [ALLOW_PLAINTEXT_KEYS]: "false" }, [])),
    ).toHaveLength(3);
  });

  it("warns once per program run", () => {
    const told: string[] = [];
    const env = programEnv(STACK, ["flagstack:platformApiKey", "flagstack:sdkKey"]);
    expect(warnPlaintextCredentials(env, (m) => told.push(m))).toBe(ONE_KEY);
    expect(warnPlaintextCredentials(env, (m) => told.push(m))).toBeUndefined();
    // another run (an Automation API program runs many in one process) is warned again
    const next = programEnv(STACK, ["flagstack:platformApiKey", "flagstack:sdkKey"]);
    expect(warnPlaintextCredentials(next, (m) => told.push(m))).toBe(ONE_KEY);
    expect(told).toEqual([ONE_KEY, ONE_KEY]);
  });
});

describe("a Pulumi program's process", () => {
  let server: grpc.Server;
  let address: string;
  const logs: { severity: number; message: string }[] = [];

  beforeAll(async () => {
    server = new grpc.Server();
    server.addService(EngineService, {
      log: (call: grpc.ServerUnaryCall<LogRequest, Empty>, callback: grpc.sendUnaryData<Empty>) => {
        logs.push({ severity: call.request.getSeverity(), message: call.request.getMessage() });
        callback(null, new Empty());
      },
    });
    const port = await new Promise<number>((ok, fail) =>
      server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (e, p) =>
        e ? fail(e) : ok(p),
      ),
    );
    address = `127.0.0.1:${port}`;
  });
  afterAll(async () => {
    await new Promise<void>((ok) => server.tryShutdown(() => ok()));
  });
  beforeEach(() => {
    logs.length = 0;
  });

  /** Runs a program that declares nothing but loads two resource modules; returns its output. */
  function runProgram(env: NodeJS.ProcessEnv): Promise<string> {
    // Exits once every engine RPC is answered, as the SDK's program runner waits for them.
    const code = `require("./provider/flags/flag"); require("./provider/flags/group");
      require("@pulumi/pulumi/runtime/settings").waitForRPCs().then(() => process.exit(0));`;
    const child = spawn(process.execPath, ["--import", "tsx", "-e", code], {
      cwd: REPO,
      env: { ...process.env, ...env, PULUMI_NODEJS_ENGINE: address },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (c: Buffer) => {
      output += c.toString();
    });
    child.stderr.on("data", (c: Buffer) => {
      output += c.toString();
    });
    return new Promise((ok, fail) => {
      child.on("error", fail);
      child.on("exit", (code) =>
        code === 0 ? ok(output) : fail(new Error(`program exited ${code}: ${output}`)),
      );
    });
  }

  it("a credential set without --secret is warned about through the engine's log, once, by name only", async () => {
    const output = await runProgram(programEnv(STACK, ["flagstack:platformApiKey", "flagstack:sdkKey"]));
    // LogSeverity.WARNING = 2: the engine prints it as a `warning:` diagnostic
    expect(logs).toEqual([{ severity: 2, message: ONE_KEY }]);
    expect(output).not.toContain("PLAINCANARY");
  }, 30_000);

  it("no warning reaches the engine when the credentials are secrets", async () => {
    await runProgram(
      programEnv(STACK, ["flagstack:adminApiKey", "flagstack:platformApiKey", "flagstack:sdkKey"]),
    );
    expect(logs).toEqual([]);
  }, 30_000);
});
