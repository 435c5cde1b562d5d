/**
 * Test harness for the platform API: a running emulator (real HTTP on 127.0.0.1:0) or the app
 * in-process (`app.request()`) on a store the test can inspect, both behind one `call()`; plus
 * the exact error bodies.
 */
import type { Hono } from "hono";
import { expect } from "vitest";
import { type Emulator, type EmulatorOptions, startEmulator } from "../../../emulator";
import type { AppEnv } from "../../../emulator/context";
import { createApp } from "../../../emulator/server";
import { Store } from "../../../emulator/store";

/** A parsed reply. */
export interface Reply {
  status: number;
  headers: Headers;
  /** Parsed JSON, or `null` for an empty body. */
  // biome-ignore lint/suspicious/noExplicitAny: test bodies are inspected freely.
  body: any;
}

/** Options of one call. */
export interface CallInit {
  /** Query parameters; `accountIdentifier` is added unless `account` is `false` or a string. */
  query?: Record<string, string | undefined>;
  /** `false` leaves `accountIdentifier` out; a string sends that value instead. */
  account?: false | string;
  /** The `x-api-key`; `null` sends none. Default: the emulator's platform key. */
  key?: string | null;
  /** A JSON body (`Content-Type: application/json`). */
  json?: unknown;
  /** A YAML body (`Content-Type: application/yaml`). */
  yaml?: string;
  /** A raw body, with `contentType`. */
  raw?: string;
  contentType?: string;
  headers?: Record<string, string>;
}

/** Sends one request and parses the reply. */
export type Call = (method: string, path: string, init?: CallInit) => Promise<Reply>;

function buildRequest(
  accountId: string,
  defaultKey: string,
  method: string,
  path: string,
  init: CallInit = {},
) {
  const params = new URLSearchParams();
  if (init.account !== false) params.set("accountIdentifier", init.account ?? accountId);
  for (const [k, v] of Object.entries(init.query ?? {})) if (v !== undefined) params.append(k, v);
  const headers: Record<string, string> = { ...init.headers };
  const key = init.key === undefined ? defaultKey : init.key;
  if (key !== null) headers["x-api-key"] = key;
  let body: string | undefined;
  if (init.json !== undefined) {
    body = JSON.stringify(init.json);
    headers["content-type"] = init.contentType ?? "application/json";
  } else if (init.yaml !== undefined) {
    body = init.yaml;
    headers["content-type"] = init.contentType ?? "application/yaml";
  } else if (init.raw !== undefined) {
    body = init.raw;
    if (init.contentType !== undefined) headers["content-type"] = init.contentType;
  }
  const qs = params.toString();
  return { url: `${path}${qs ? `?${qs}` : ""}`, init: { method, headers, body } };
}

async function parse(res: Response): Promise<Reply> {
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text === "" ? null : JSON.parse(text) };
}

/** A running emulator with a platform `call()`. */
export interface HttpPlatform {
  emu: Emulator;
  call: Call;
}

/** Starts the emulator on port 0; stop it with `emu.stop()` in `afterAll`. */
export async function startPlatform(options: EmulatorOptions = {}): Promise<HttpPlatform> {
  const emu = await startEmulator({ port: 0, ...options });
  const call: Call = async (method, path, init) => {
    const req = buildRequest(emu.accountId, emu.platformKey, method, path, init);
    return parse(await fetch(`${emu.url}${req.url}`, req.init));
  };
  return { emu, call };
}

/** The app in-process on a store the test can inspect. */
export interface InProcessPlatform {
  app: Hono<AppEnv>;
  store: Store;
  call: Call;
  /** How many times a route committed a change. */
  commits: number;
  accountId: string;
  platformKey: string;
  /** Adds a platform key, as `emu.addKey()` does. */
  addKey: (key: string) => Promise<void>;
  /** Releases the store (and its state file's lock). */
  close: () => Promise<void>;
}

/**
 * Builds the app in-process on a memory store (or on `statePath`), counting commits; `commit`
 * replaces what a commit does.
 */
export async function inProcessPlatform(
  opts: { accountId?: string; platformKey?: string; statePath?: string; commit?: () => Promise<void> } = {},
): Promise<InProcessPlatform> {
  const { accountId = "acc_test", platformKey = "pat.acc_test.key" } = opts;
  const store = await Store.open({ accountId, statePath: opts.statePath });
  const harness: InProcessPlatform = {
    app: createApp({ store }),
    store,
    call: async (method, path, init) => {
      const req = buildRequest(accountId, platformKey, method, path, init);
      return parse(await harness.app.request(req.url, req.init));
    },
    commits: 0,
    accountId,
    platformKey,
    addKey: (key) => {
      store.keys.add({ key, type: "platform", id: key, name: key });
      return store.commit();
    },
    close: () => store.close(),
  };
  await harness.addKey(platformKey);
  const commit = store.commit.bind(store);
  store.commit = () => {
    harness.commits += 1;
    return opts.commit ? opts.commit() : commit();
  };
  return harness;
}

/** The exact ErrorDTO body (ref §2); `message` is `responseMessages[0].message`. */
export function errorBody(code: string, message: string, metadata: unknown = null) {
  return {
    status: "ERROR",
    code,
    message,
    correlationId: expect.any(String),
    detailedMessage: null,
    responseMessages: [{ code, level: "ERROR", message, exception: null, failureTypes: [] }],
    metadata,
  };
}

/** The exact FailureDTO body (ref §2). */
export function failureBody(
  code: string,
  message: string,
  errors: { fieldId: string; error: string }[] = [],
) {
  return { status: "FAILURE", code, message, correlationId: expect.any(String), errors };
}

/** A bean-validation FailureDTO from `[path, message]` pairs (fieldId is the last path node). */
export function validationBody(violations: [string, string][]) {
  return failureBody(
    "INVALID_REQUEST",
    violations.map(([p, m]) => `${p}: ${m}`).join(", "),
    violations.map(([p, m]) => ({ fieldId: p.split(".").at(-1) ?? p, error: m })),
  );
}

/** The success envelope around `data`. */
export function successBody(data: unknown) {
  return { status: "SUCCESS", data, metaData: null, correlationId: expect.any(String) };
}

/** A pipeline YAML with one Custom stage and one ShellScript step, for `org`/`project`. */
export function simplePipeline(identifier: string, project: string, org = "default", extra = ""): string {
  return `pipeline:
  name: ${identifier} pipeline
  identifier: ${identifier}
  orgIdentifier: ${org}
  projectIdentifier: ${project}
${extra}  stages:
    - stage:
        name: build
        identifier: build
        type: Custom
        spec:
          execution:
            steps:
              - step:
                  type: ShellScript
                  name: hello
                  identifier: hello
                  timeout: 10m
                  spec:
                    shell: Bash
                    source:
                      type: Inline
                      spec:
                        script: echo hello
`;
}

/** The smallest valid Docker registry connector body. */
export function dockerConnector(
  identifier: string,
  scope: { org?: string; project?: string } = {},
  name = identifier,
) {
  return {
    connector: {
      name,
      identifier,
      ...(scope.org === undefined ? {} : { orgIdentifier: scope.org }),
      ...(scope.project === undefined ? {} : { projectIdentifier: scope.project }),
      type: "DockerRegistry",
      spec: {
        dockerRegistryUrl: "https://index.docker.io/v2/",
        providerType: "DockerHub",
        auth: { type: "Anonymous" },
      },
    },
  };
}
