/**
 * Security: credentials stay where they belong.
 *
 * - Sentinel keys (admin, platform, SDK; each contains the word SENTINEL) are the emulator's real
 *   keys and the provider's configuration. The sentinel is then searched for everywhere a key could
 *   leak: each resource's `__provider` text (what the engine stores in every resource's state),
 *   the outputs and inputs every lifecycle call returns (directly, and the raw gRPC responses of
 *   the host, `__provider` included), the message, JSON, `util.inspect` and stack of every error
 *   from failed calls made with those keys (401, 403, 404, 409, a server echoing the key in its
 *   error body, refused connections, timeouts, bad configuration), the event importer's journal,
 *   rejects file and summary, the host's stderr, and every line logged through `console` or
 *   written to stdout/stderr while this file runs.
 * - Key types: an SDK key cannot call admin endpoints, an admin key cannot import events, a
 *   platform key and an admin key cannot stand in for each other.
 * - Scopes: a key restricted to one workspace, one environment or one platform project can neither
 *   read nor change anything outside it (and the objects outside are unchanged afterwards).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inspect } from "node:util";
import { afterAll, beforeAll, describe, expect, it, type MockInstance, vi } from "vitest";
import { type Emulator, startEmulator } from "../../emulator";
import { adminClient } from "../../provider/core/config";
import { AdminClient, EventsClient, eventsEndpoints, PlatformClient } from "../../sdk";
import { formatSummary, importEvents } from "../../sdk/events/import";
import { type Driver, hostDriver, type ProviderHost, startProviderHost } from "../provider/harness";
import { type Declared, MiniEngine } from "./engine";
import { configureDirect, drivers, KIND_NAMES, KINDS, type Kind, stackConfig } from "./kinds";
import { pipelineModel } from "./program";

/** What every sentinel key contains: searching for it finds any of them, whole or cut. */
const SENTINEL = "SENTINEL";
const ACCOUNT = "sentinel_acct";
const ADMIN_KEY = "adm-SENTINEL-4f1c9e2a7b3d5068a1f2e3d4c5b6a798";
const PLATFORM_KEY = `pat.${ACCOUNT}.SENTINEL9c8b7a6f5e4d3c2b.SENTINEL0a1b2c3d4e5f`;
const SDK_KEY = "sdk-SENTINEL-0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e";

/** Everything that was checked, so a test can prove it looked at something. */
const inspected: string[] = [];

/** Fails when `value` (any shape) shows a sentinel, whole or in part. */
function expectNoKey(what: string, value: unknown): void {
  const text =
    typeof value === "string"
      ? value
      : `${JSON.stringify(value, (_k, v: unknown) => (typeof v === "bigint" ? String(v) : v)) ?? ""}\n${inspect(value, { depth: 12, showHidden: true, getters: true })}`;
  inspected.push(what);
  expect(
    text.includes(SENTINEL),
    `${what} shows a key: ${text.slice(Math.max(0, text.indexOf(SENTINEL) - 200), text.indexOf(SENTINEL) + 60)}`,
  ).toBe(false);
}

/** An error's message, stack, JSON and full inspection, checked for the sentinel. */
function expectErrorClean(what: string, e: unknown): void {
  expect(e, `${what}: expected an error`).toBeInstanceOf(Error);
  const err = e as Error;
  expectNoKey(`${what}: message`, err.message);
  expectNoKey(`${what}: stack`, err.stack ?? "");
  expectNoKey(`${what}: String()`, String(err));
  expectNoKey(`${what}: JSON and inspect`, err);
  // As a program that reports its failures would: checked with everything else logged.
  console.error(`${what}:`, err);
}

/** The rejection of `p` (fails the test when it resolves). */
async function failure(p: Promise<unknown>): Promise<Error> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e, "the call was expected to fail").toBeInstanceOf(Error);
  return e as Error;
}

let emu: Emulator;
/** Another emulator that knows none of the sentinel keys. */
let stranger: Emulator;
let host: ProviderHost;
let dir: string;
const spies: MockInstance[] = [];
const logged: string[] = [];

beforeAll(async () => {
  for (const name of ["log", "info", "warn", "error", "debug", "trace"] as const) {
    spies.push(
      vi.spyOn(console, name).mockImplementation((...args: unknown[]) => {
        logged.push(args.map((a) => (typeof a === "string" ? a : inspect(a, { depth: 8 }))).join(" "));
      }),
    );
  }
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream);
    spies.push(
      vi.spyOn(stream, "write").mockImplementation(((chunk: unknown, ...rest: unknown[]) => {
        logged.push(String(chunk));
        return (write as (...a: unknown[]) => boolean)(chunk, ...rest);
      }) as typeof stream.write),
    );
  }
  dir = mkdtempSync(join(tmpdir(), "flagstack-security-"));
  emu = await startEmulator({
    port: 0,
    accountId: ACCOUNT,
    adminKey: ADMIN_KEY,
    platformKey: PLATFORM_KEY,
    sdkKey: SDK_KEY,
  });
  stranger = await startEmulator({ port: 0, accountId: ACCOUNT });
  expect([emu.adminKey, emu.platformKey, emu.sdkKey]).toEqual([ADMIN_KEY, PLATFORM_KEY, SDK_KEY]);
  const config = stackConfig(emu);
  configureDirect(config);
  host = await startProviderHost();
  await host.configure(config);
});

afterAll(async () => {
  await host?.stop();
  await emu?.stop();
  await stranger?.stop();
  for (const s of spies) s.mockRestore();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** One resource of every kind. */
function program(prefix: string): Declared[] {
  const proj = `${prefix}_proj`;
  return [
    { urn: "group", kind: "Group", inputs: { name: `${prefix}-team`, description: "t" }, deps: [] },
    {
      urn: "user",
      kind: "UserInvite",
      inputs: { email: `${prefix}@example.test`, groups: [`${prefix}-team`] },
      deps: ["group"],
    },
    {
      urn: "flag",
      kind: "Flag",
      inputs: { workspace: "Default", name: `${prefix}-flag`, tags: ["x"], rolloutStatus: "Ramping" },
      deps: [],
    },
    {
      urn: "definition",
      kind: "FlagDefinition",
      inputs: {
        workspace: "Default",
        flag: `${prefix}-flag`,
        environment: "Production",
        treatments: [{ name: "on", keys: ["k"] }, { name: "off" }],
        defaultTreatment: "off",
      },
      deps: ["flag"],
    },
    { urn: "project", kind: "Project", inputs: { identifier: proj, name: "Sentinel" }, deps: [] },
    {
      urn: "connector",
      kind: "Connector",
      inputs: {
        org: "default",
        project: proj,
        identifier: "registry",
        name: "Registry",
        dockerRegistry: {
          url: "https://registry.example.test/v2",
          providerType: "DockerHub",
          auth: { type: "UsernamePassword", username: "bot", passwordRef: "account.registry_password" },
        },
      },
      deps: ["project"],
    },
    {
      urn: "pipeline",
      kind: "Pipeline",
      inputs: { project: proj, pipeline: pipelineModel("deploy", "echo hi") },
      deps: ["project"],
    },
  ];
}

/** A host whose raw responses (with `__provider`) are all kept. */
function recordingHost(h: ProviderHost, raw: unknown[]): ProviderHost {
  const wrap =
    <A extends unknown[], R>(fn: (...a: A) => Promise<R>) =>
    async (...a: A): Promise<R> => {
      const r = await fn(...a);
      raw.push(r);
      return r;
    };
  return {
    ...h,
    check: wrap(h.check),
    diff: wrap(h.diff),
    create: wrap(h.create),
    read: wrap(h.read),
    update: wrap(h.update),
    delete: wrap(h.delete),
  };
}

describe("no key in the __provider texts, state or outputs", () => {
  it.each(KIND_NAMES)("the __provider text of %s holds no key and only requires the package", (kind) => {
    // The clients of this process hold the keys by now: nothing of them may reach the text.
    adminClient();
    const text = KINDS[kind].provider;
    expectNoKey(`${kind} __provider`, text);
    expect(text).toMatch(/^exports\.handler = \(\) => require\("flagstack\/provider\/[a-z-]+"\)\.impl;\n$/);
  });

  it("create, read, diff, update and delete of every kind return no key (direct)", async () => {
    const engine = new MiniEngine(await drivers("direct"));
    const decl = program("sdirect");
    expect(await engine.up(decl)).toMatchObject({ errors: [] });
    expectNoKey("state after create (direct)", [...engine.state.values()]);
    expect(await engine.refresh()).toEqual({ gone: [], errors: [] });
    expectNoKey("state after refresh (direct)", [...engine.state.values()]);
    const changed = decl.map((d) =>
      d.kind === "Group" ? { ...d, inputs: { ...d.inputs, description: "changed" } } : d,
    );
    expect(await engine.up(changed)).toMatchObject({ errors: [], steps: [{ urn: "group", op: "update" }] });
    expectNoKey("state after update (direct)", [...engine.state.values()]);
    expect(await engine.up([])).toMatchObject({ errors: [] });
    expect(engine.state.size).toBe(0);
  });

  it("the raw gRPC responses of every call through the host, __provider included, hold no key", async () => {
    const raw: unknown[] = [];
    const recording = recordingHost(host, raw);
    const hostDrivers = {} as Record<Kind, Driver>;
    for (const kind of KIND_NAMES) hostDrivers[kind] = hostDriver(recording, KINDS[kind].provider);
    const engine = new MiniEngine(hostDrivers);
    const decl = program("shost");
    expect(await engine.up(decl)).toMatchObject({ errors: [] });
    expect(await engine.refresh()).toEqual({ gone: [], errors: [] });
    const changed = decl.map((d) =>
      d.kind === "Project" ? { ...d, inputs: { ...d.inputs, name: "Changed" } } : d,
    );
    expect(await engine.up(changed)).toMatchObject({ errors: [], steps: [{ urn: "project", op: "update" }] });
    expect(await engine.up([])).toMatchObject({ errors: [] });
    expect(raw.length).toBeGreaterThan(40);
    expect(JSON.stringify(raw)).toContain("__provider");
    expectNoKey("raw host responses", raw);
    expectNoKey("host stderr", host.stderr());
  });
});

describe("no key in the errors of failed calls made with it", () => {
  it("provider calls refused by a service that does not know the keys (401), directly and through the host", async () => {
    const config = stackConfig(stranger, {
      "flagstack:adminApiKey": ADMIN_KEY,
      "flagstack:platformApiKey": PLATFORM_KEY,
    });
    configureDirect(config);
    const other = await startProviderHost();
    try {
      await other.configure(config);
      const direct = await drivers("direct");
      const viaHost = await drivers("gRPC host", other);
      for (const d of program("s401")) {
        const kind = d.kind as Kind;
        const inputs = (await direct[kind].check({}, d.inputs)).inputs;
        const e = await failure(direct[kind].create(inputs));
        expect(e.message).toMatch(/401|INVALID_TOKEN|[Ii]nvalid/);
        expectErrorClean(`direct ${kind} create against a stranger`, e);
        expectErrorClean(
          `host ${kind} create against a stranger`,
          await failure(viaHost[kind].create(inputs)),
        );
      }
      expectNoKey("stderr of the host that failed", other.stderr());
    } finally {
      await other.stop();
      configureDirect(stackConfig(emu));
    }
  });

  it("provider calls refused by the service that knows the keys (404, 409, 400)", async () => {
    const d = await drivers("direct");
    const flag = (await d.Flag.check({}, { workspace: "Default", name: "sentinel-dup" })).inputs;
    await d.Flag.create(flag);
    expectErrorClean("a duplicate flag (409)", await failure(d.Flag.create(flag)));
    const def = (
      await d.FlagDefinition.check(
        {},
        {
          workspace: "Default",
          flag: "no-such-flag",
          environment: "Production",
          treatments: [{ name: "on" }],
          defaultTreatment: "on",
        },
      )
    ).inputs;
    expectErrorClean("a definition of a missing flag (404)", await failure(d.FlagDefinition.create(def)));
    const project = (await d.Project.check({}, { org: "no_such_org", identifier: "p", name: "P" })).inputs;
    expectErrorClean("a project in a missing organization", await failure(d.Project.create(project)));
  });

  it("SDK calls: wrong key type, missing objects, an unreachable service and a service that never answers", async () => {
    const inf = Number.POSITIVE_INFINITY;
    const admin = new AdminClient({ baseUrl: emu.url, apiKey: ADMIN_KEY, requestsPerSecond: inf });
    const platform = new PlatformClient({
      baseUrl: emu.url,
      apiKey: PLATFORM_KEY,
      accountId: ACCOUNT,
      requestsPerSecond: inf,
    });
    const events = new EventsClient({ baseUrl: emu.url, sdkKey: SDK_KEY, requestsPerSecond: inf });
    expectErrorClean("flag not found", await failure(admin.flags.get("nope", "nope")));
    expectErrorClean("project not found", await failure(platform.projects.get("nope")));
    expectErrorClean(
      "pipeline not found",
      await failure(platform.pipelines.get("nope", { org: "default", project: "nope" })),
    );
    expectErrorClean(
      "admin key on the events API",
      await failure(
        new EventsClient({ baseUrl: emu.url, sdkKey: ADMIN_KEY, requestsPerSecond: inf }).bulk([]),
      ),
    );
    expectErrorClean(
      "SDK key on the admin API",
      await failure(
        new AdminClient({ baseUrl: emu.url, apiKey: SDK_KEY, requestsPerSecond: inf }).groups.get("x"),
      ),
    );
    expectErrorClean(
      "platform key on the admin API",
      await failure(
        new AdminClient({ baseUrl: emu.url, apiKey: PLATFORM_KEY, requestsPerSecond: inf }).groups.get("x"),
      ),
    );
    expectErrorClean(
      "admin key on the platform API",
      await failure(
        new PlatformClient({
          baseUrl: emu.url,
          apiKey: ADMIN_KEY,
          accountId: ACCOUNT,
          requestsPerSecond: inf,
        }).projects.get("x"),
      ),
    );
    expectErrorClean(
      "events refused (400)",
      await failure(events.core.request(eventsEndpoints.bulk, {}, { body: [{ bad: true }] })),
    );

    // Nothing listens on a port just released.
    const closed = await freePort();
    const unreachable = `http://127.0.0.1:${closed}`;
    const opts = { requestsPerSecond: inf, maxRetries: 1, retryBaseDelayMs: 1 };
    expectErrorClean(
      "admin: connection refused",
      await failure(new AdminClient({ baseUrl: unreachable, apiKey: ADMIN_KEY, ...opts }).groups.get("x")),
    );
    expectErrorClean(
      "platform: connection refused",
      await failure(
        new PlatformClient({
          baseUrl: unreachable,
          apiKey: PLATFORM_KEY,
          accountId: ACCOUNT,
          ...opts,
        }).projects.get("x"),
      ),
    );
    expectErrorClean(
      "events: connection refused",
      await failure(new EventsClient({ baseUrl: unreachable, sdkKey: SDK_KEY, ...opts }).bulk([])),
    );

    const silent = await startServer(() => undefined);
    try {
      const timeoutOpts = { ...opts, timeoutMs: 150, maxRetries: 0 };
      expectErrorClean(
        "admin: timeout",
        await failure(
          new AdminClient({ baseUrl: silent.url, apiKey: ADMIN_KEY, ...timeoutOpts }).groups.get("x"),
        ),
      );
      expectErrorClean(
        "events: timeout",
        await failure(new EventsClient({ baseUrl: silent.url, sdkKey: SDK_KEY, ...timeoutOpts }).bulk([])),
      );
    } finally {
      await silent.stop();
    }
  });

  it("a service that echoes the key in its error bodies: the SDK removes it", async () => {
    // Answers every request with the credential it was sent, the way a careless proxy might.
    const echo = await startServer((req, res) => {
      const sent = req.headers.authorization ?? req.headers["x-api-key"] ?? "";
      const status = req.url?.includes("/groups/") ? 400 : req.url?.includes("/projects/") ? 500 : 401;
      res.writeHead(status, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          code: status,
          status: "ERROR",
          message: `rejected credential ${sent}`,
          details: String(sent),
          correlationId: "c",
          transactionId: "t",
        }),
      );
    });
    try {
      const opts = { requestsPerSecond: Number.POSITIVE_INFINITY, maxRetries: 0 };
      const admin = new AdminClient({ baseUrl: echo.url, apiKey: ADMIN_KEY, ...opts });
      const groupErr = await failure(admin.groups.get("x"));
      expect(groupErr.message).toContain("rejected credential");
      expectErrorClean("admin 400 echoing the key", groupErr);
      expectErrorClean("admin 401 echoing the key", await failure(admin.flags.get("ws", "f")));
      const platform = new PlatformClient({
        baseUrl: echo.url,
        apiKey: PLATFORM_KEY,
        accountId: ACCOUNT,
        ...opts,
      });
      expectErrorClean("platform 500 echoing the key", await failure(platform.projects.get("p")));
      const events = new EventsClient({ baseUrl: echo.url, sdkKey: SDK_KEY, ...opts });
      expectErrorClean("events 401 echoing the key", await failure(events.bulk([])));
    } finally {
      await echo.stop();
    }
  });

  it("bad configuration: a key with a line break, credentials in the base URL, a bad provider setting", async () => {
    expectErrorClean(
      "apiKey with a line break",
      await failure(
        Promise.resolve().then(
          () => new AdminClient({ baseUrl: emu.url, apiKey: `${ADMIN_KEY}\nX-Other: 1` }),
        ),
      ),
    );
    expectErrorClean(
      "credentials in baseUrl",
      await failure(
        Promise.resolve().then(
          () =>
            new AdminClient({ baseUrl: `https://bot:${ADMIN_KEY}@admin.example.test`, apiKey: ADMIN_KEY }),
        ),
      ),
    );
    expectErrorClean(
      "an unparsable baseUrl holding the key",
      await failure(
        Promise.resolve().then(
          () =>
            new PlatformClient({
              baseUrl: `not a url ${PLATFORM_KEY}`,
              apiKey: PLATFORM_KEY,
              accountId: ACCOUNT,
            }),
        ),
      ),
    );
    expectErrorClean(
      "URL and key variables swapped",
      await failure(
        Promise.resolve().then(
          () =>
            new AdminClient({
              env: { FLAGSTACK_ADMIN_API_URL: ADMIN_KEY, FLAGSTACK_ADMIN_API_KEY: emu.url },
            }),
        ),
      ),
    );
    expectErrorClean(
      "credentials in a non-http baseUrl",
      await failure(
        Promise.resolve().then(
          () => new EventsClient({ baseUrl: `ftp://bot:${SDK_KEY}@events.example.test`, sdkKey: SDK_KEY }),
        ),
      ),
    );
    const bad = { ...stackConfig(emu), "flagstack:requestsPerSecond": "fast" };
    expectErrorClean(
      "a bad provider setting",
      await failure(Promise.resolve().then(() => configureDirect(bad))),
    );
    configureDirect(stackConfig(emu));
  });
});

describe("no key in what the event importer writes", () => {
  it("journal, rejects file, summary and progress, on success and on a refused key", async () => {
    const input = join(dir, "events.ndjson");
    const good = {
      eventTypeId: "checkout",
      trafficTypeName: "user",
      key: "u1",
      timestamp: 1_700_000_000_000,
    };
    writeFileSync(input, `${JSON.stringify(good)}\n${JSON.stringify({ ...good, timestamp: "soon" })}\n`);
    const progress: unknown[] = [];
    const summary = await importEvents({
      input,
      eventsUrl: emu.url,
      sdkKey: SDK_KEY,
      syncJournal: false,
      requestsPerSecond: Number.POSITIVE_INFINITY,
      onProgress: (p) => progress.push(p),
      onBatch: (b) => progress.push(b),
    });
    expect(summary).toMatchObject({ accepted: 1, rejected: 1 });
    expectNoKey("import summary", summary);
    expectNoKey("formatted summary", formatSummary(summary));
    expectNoKey("progress and batch events", progress);
    const written = readdirSync(dir).filter((f) => f.startsWith("events.ndjson."));
    expect(written.length).toBeGreaterThanOrEqual(2);
    for (const f of written) expectNoKey(`importer file ${f}`, readFileSync(join(dir, f), "utf8"));

    const refused = join(dir, "refused.ndjson");
    writeFileSync(refused, `${JSON.stringify(good)}\n`);
    const outcome = await importEvents({
      input: refused,
      eventsUrl: emu.url,
      sdkKey: ADMIN_KEY,
      syncJournal: false,
      requestsPerSecond: Number.POSITIVE_INFINITY,
      maxRetries: 0,
    }).then(
      (s) => s,
      (e: unknown) => e,
    );
    expectNoKey("outcome of an import with an admin key", outcome);
    if (outcome instanceof Error) expectErrorClean("import with an admin key", outcome);
    else expect(outcome).toMatchObject({ accepted: 0, failed: 1 });
    for (const f of readdirSync(dir).filter((name) => name.startsWith("refused.ndjson."))) {
      expectNoKey(`importer file ${f}`, readFileSync(join(dir, f), "utf8"));
    }
  });
});

describe("each key type is refused where it does not belong", () => {
  const inf = Number.POSITIVE_INFINITY;
  const event = { eventTypeId: "checkout", trafficTypeName: "user", key: "u1", timestamp: 1_700_000_000_000 };

  it("an SDK key cannot call the admin API", async () => {
    const admin = new AdminClient({ baseUrl: emu.url, apiKey: SDK_KEY, requestsPerSecond: inf });
    await expect(admin.groups.create({ name: "by-sdk-key" })).rejects.toMatchObject({ status: 401 });
    await expect(admin.workspaces.getByName("Default")).rejects.toMatchObject({ status: 401 });
    const raw = await fetch(`${emu.url}/internal/api/v2/workspaces`, {
      headers: { authorization: `Bearer ${SDK_KEY}` },
    });
    expect(raw.status).toBe(401);
    const groups = new AdminClient({ baseUrl: emu.url, apiKey: ADMIN_KEY, requestsPerSecond: inf }).groups;
    expect(await groups.getByName("by-sdk-key")).toBeUndefined();
  });

  it("an admin key cannot import events", async () => {
    const before = emu.eventCount();
    const events = new EventsClient({
      baseUrl: emu.url,
      sdkKey: ADMIN_KEY,
      requestsPerSecond: inf,
      maxRetries: 0,
    });
    await expect(events.bulk([event])).rejects.toMatchObject({ status: 401, outcomeUnknown: false });
    const raw = await fetch(`${emu.url}/api/events/bulk`, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" },
      body: JSON.stringify([event]),
    });
    expect(raw.status).toBe(401);
    expect(emu.eventCount()).toBe(before);
  });

  it("a platform key and an admin key cannot stand in for each other", async () => {
    // A Harness token (the platform key) reaches the admin API only as Harness-mode auth, in
    // x-api-key (ref admin §4; test/sdk/admin/auth.test.ts); as a Bearer admin key it is refused.
    await expect(
      new AdminClient({
        baseUrl: emu.url,
        apiKey: PLATFORM_KEY,
        adminAuth: "bearer",
        requestsPerSecond: inf,
      }).groups.create({ name: "by-platform-key" }),
    ).rejects.toMatchObject({ status: 401 });
    await expect(
      new PlatformClient({
        baseUrl: emu.url,
        apiKey: ADMIN_KEY,
        accountId: ACCOUNT,
        requestsPerSecond: inf,
      }).projects.create({ identifier: "by_admin_key", name: "x" }, { org: "default" }),
    ).rejects.toMatchObject({ status: 401 });
    await expect(
      new PlatformClient({
        baseUrl: emu.url,
        apiKey: SDK_KEY,
        accountId: ACCOUNT,
        requestsPerSecond: inf,
      }).projects.get("x"),
    ).rejects.toMatchObject({ status: 401 });
  });
});

describe("a restricted key cannot read or change anything outside its scope", () => {
  const inf = Number.POSITIVE_INFINITY;
  const WS_KEY = "adm-scoped-default-only-0123456789";
  const ENV_KEY = "adm-scoped-staging-only-0123456789";
  const PROJECT_KEY = "pat.scoped.project-a-only.0123456789";
  let admin: AdminClient;
  let otherWs: string;
  let defaultWs: string;

  beforeAll(async () => {
    admin = new AdminClient({ baseUrl: emu.url, apiKey: ADMIN_KEY, requestsPerSecond: inf });
    defaultWs = (await admin.workspaces.getByName("Default"))?.id as string;
    otherWs = (await admin.workspaces.create({ name: "Other", requiresTitleAndComments: false })).id;
    await admin.environments.create(otherWs, { name: "Live", production: true });
    await admin.flags.create(otherWs, "user", { name: "other-flag", description: "not yours" });
    await admin.definitions.create(otherWs, "other-flag", "Live", {
      treatments: [{ name: "on" }, { name: "off" }],
      defaultTreatment: "off",
      defaultRule: [{ treatment: "off", size: 100 }],
    });
    await admin.flags.create(defaultWs, "user", { name: "scoped-flag", description: "d" });
    for (const env of ["Production", "Staging"]) {
      await admin.definitions.create(defaultWs, "scoped-flag", env, {
        treatments: [{ name: "on" }, { name: "off" }],
        defaultTreatment: "off",
        defaultRule: [{ treatment: "off", size: 100 }],
      });
    }
    await emu.addKey({ key: WS_KEY, type: "admin", workspaces: ["Default"] });
    await emu.addKey({ key: ENV_KEY, type: "admin", environments: ["Staging"] });
    const platform = new PlatformClient({
      baseUrl: emu.url,
      apiKey: PLATFORM_KEY,
      accountId: ACCOUNT,
      requestsPerSecond: inf,
    });
    for (const id of ["proj_a", "proj_b"]) {
      await platform.projects.create(
        { identifier: id, name: id, description: "original" },
        { org: "default" },
      );
    }
    await emu.addKey({
      key: PROJECT_KEY,
      type: "platform",
      organizations: ["default"],
      projects: ["proj_a"],
    });
  });

  it("a key of one workspace: reads and writes in another are refused, and nothing there changes", async () => {
    const scoped = new AdminClient({ baseUrl: emu.url, apiKey: WS_KEY, requestsPerSecond: inf });
    expect((await scoped.flags.get(defaultWs, "scoped-flag")).name).toBe("scoped-flag");
    const names: string[] = [];
    for await (const w of scoped.workspaces.list()) names.push(w.name);
    expect(names).toEqual(["Default"]);
    await expect(scoped.flags.get(otherWs, "other-flag")).rejects.toMatchObject({ status: 403 });
    await expect(scoped.definitions.get(otherWs, "other-flag", "Live")).rejects.toMatchObject({
      status: 403,
    });
    await expect(
      scoped.flags.create(otherWs, "user", { name: "intruder", description: "" }),
    ).rejects.toMatchObject({ status: 403 });
    await expect(
      scoped.flags.patch(otherWs, "other-flag", [{ op: "replace", path: "/description", value: "owned" }]),
    ).rejects.toMatchObject({ status: 403 });
    await expect(scoped.definitions.kill(otherWs, "other-flag", "Live")).rejects.toMatchObject({
      status: 403,
    });
    await expect(scoped.flags.delete(otherWs, "other-flag")).rejects.toMatchObject({ status: 403 });
    await expect(
      scoped.workspaces.create({ name: "Mine", requiresTitleAndComments: false }),
    ).rejects.toMatchObject({ status: 403 });
    const flag = await admin.flags.get(otherWs, "other-flag");
    expect(flag.description).toBe("not yours");
    expect((await admin.definitions.get(otherWs, "other-flag", "Live")).killed).toBe(false);
    await expect(admin.flags.get(otherWs, "intruder")).rejects.toMatchObject({ status: 404 });
  });

  it("the provider with a workspace-scoped key cannot create in another workspace", async () => {
    configureDirect({ ...stackConfig(emu), "flagstack:adminApiKey": WS_KEY });
    try {
      const d = await drivers("direct");
      const elsewhere = (await d.Flag.check({}, { workspace: "Other", name: "provider-intruder" })).inputs;
      const e = await failure(d.Flag.create(elsewhere));
      expect(e.message).toMatch(/workspace "Other" not found|403/);
      const home = (await d.Flag.check({}, { workspace: "Default", name: "provider-home" })).inputs;
      expect((await d.Flag.create(home)).outs).toMatchObject({
        name: "provider-home",
        workspaceName: "Default",
      });
      await expect(admin.flags.get(otherWs, "provider-intruder")).rejects.toMatchObject({ status: 404 });
    } finally {
      configureDirect(stackConfig(emu));
    }
  });

  it("a key of one environment: the other environment's definition can be neither read nor changed", async () => {
    const scoped = new AdminClient({ baseUrl: emu.url, apiKey: ENV_KEY, requestsPerSecond: inf });
    expect((await scoped.definitions.get(defaultWs, "scoped-flag", "Staging")).environment.name).toBe(
      "Staging",
    );
    await scoped.definitions.patch(defaultWs, "scoped-flag", "Staging", [
      { op: "replace", path: "/trafficAllocation", value: 50 },
    ]);
    await expect(scoped.definitions.get(defaultWs, "scoped-flag", "Production")).rejects.toMatchObject({
      status: 403,
    });
    await expect(
      scoped.definitions.patch(defaultWs, "scoped-flag", "Production", [
        { op: "replace", path: "/trafficAllocation", value: 1 },
      ]),
    ).rejects.toMatchObject({ status: 403 });
    await expect(scoped.definitions.kill(defaultWs, "scoped-flag", "Production")).rejects.toMatchObject({
      status: 403,
    });
    await expect(scoped.definitions.delete(defaultWs, "scoped-flag", "Production")).rejects.toMatchObject({
      status: 403,
    });
    await expect(scoped.flags.delete(defaultWs, "scoped-flag")).rejects.toMatchObject({ status: 403 });
    const prod = await admin.definitions.get(defaultWs, "scoped-flag", "Production");
    expect({ trafficAllocation: prod.trafficAllocation, killed: prod.killed }).toEqual({
      trafficAllocation: 100,
      killed: false,
    });
    expect((await admin.definitions.get(defaultWs, "scoped-flag", "Staging")).trafficAllocation).toBe(50);
  });

  it("an SDK key of one environment imports into that environment only", async () => {
    const staging = emu.sdkKeys.Staging as string;
    const prodBefore = emu.events({ environment: "Production" }).length;
    const events = new EventsClient({ baseUrl: emu.url, sdkKey: staging, requestsPerSecond: inf });
    await events.bulk([
      {
        eventTypeId: "scoped",
        trafficTypeName: "user",
        key: "u9",
        timestamp: 1_700_000_000_000,
        environmentName: "Production",
      },
    ]);
    expect(emu.events({ environment: "Production" }).length).toBe(prodBefore);
    expect(emu.events({ environment: "Staging" }).map((e) => e.eventTypeId)).toContain("scoped");
  });

  it("a platform key of one project: the other project can be neither read nor changed", async () => {
    const scoped = new PlatformClient({
      baseUrl: emu.url,
      apiKey: PROJECT_KEY,
      accountId: ACCOUNT,
      requestsPerSecond: inf,
    });
    expect((await scoped.projects.get("proj_a", { org: "default" })).project.identifier).toBe("proj_a");
    await expect(scoped.projects.get("proj_b", { org: "default" })).rejects.toMatchObject({ status: 403 });
    await expect(
      scoped.projects.update(
        "proj_b",
        { identifier: "proj_b", name: "taken", description: "owned" },
        { org: "default" },
      ),
    ).rejects.toMatchObject({ status: 403 });
    await expect(scoped.projects.delete("proj_b", { org: "default" })).rejects.toMatchObject({ status: 403 });
    await expect(
      scoped.connectors.create({
        identifier: "intruder",
        name: "Intruder",
        orgIdentifier: "default",
        projectIdentifier: "proj_b",
        type: "DockerRegistry",
        spec: {
          dockerRegistryUrl: "https://r.example.test",
          providerType: "DockerHub",
          auth: { type: "Anonymous" },
        },
      }),
    ).rejects.toMatchObject({ status: 403 });
    await expect(
      scoped.pipelines.create(
        "pipeline:\n  name: x\n  identifier: x\n  orgIdentifier: default\n  projectIdentifier: proj_b\n  stages: []\n",
        { org: "default", project: "proj_b" },
      ),
    ).rejects.toMatchObject({ status: 403 });
    await expect(
      scoped.projects.create({ identifier: "proj_c", name: "c" }, { org: "default" }),
    ).rejects.toMatchObject({ status: 403 });
    const ids: string[] = [];
    for await (const p of scoped.projects.list({ org: "default" })) ids.push(p.project.identifier);
    expect(ids).toEqual(["proj_a"]);
    const owner = new PlatformClient({
      baseUrl: emu.url,
      apiKey: PLATFORM_KEY,
      accountId: ACCOUNT,
      requestsPerSecond: inf,
    });
    expect((await owner.projects.get("proj_b", { org: "default" })).project).toMatchObject({
      name: "proj_b",
      description: "original",
    });
    await expect(
      owner.connectors.get("intruder", { org: "default", project: "proj_b" }),
    ).rejects.toMatchObject({ kind: "not-found" });
    await expect(owner.projects.get("proj_c", { org: "default" })).rejects.toMatchObject({
      kind: "not-found",
    });
  });

  it("a Harness token of one project on the admin API: another project's workspace is refused, and no key it mints is wider", async () => {
    // Each workspace carries its project's identifier: the workspace of that Harness project.
    const mine = (await admin.workspaces.create({ name: "proj_a", requiresTitleAndComments: false })).id;
    const theirs = (await admin.workspaces.create({ name: "proj_b", requiresTitleAndComments: false })).id;
    await admin.flags.create(theirs, "user", { name: "their-flag", description: "theirs" });
    const harness = new AdminClient({ baseUrl: emu.url, apiKey: PROJECT_KEY, requestsPerSecond: inf });
    // The attack: rename the other project's workspace, mint an unrestricted admin key.
    await expect(
      harness.workspaces.patch(theirs, [{ op: "replace", path: "/name", value: "owned" }]),
    ).rejects.toMatchObject({
      status: 403,
      message: expect.stringContaining(`The API key is not allowed to access workspace ${theirs}`),
    });
    await expect(harness.apiKeys.create({ name: "wider", apiKeyType: "admin" })).rejects.toMatchObject({
      status: 403,
      message: expect.stringContaining(
        "The Harness token is restricted to project proj_a and cannot create an admin API key for every workspace",
      ),
    });
    await expect(
      harness.apiKeys.create({
        name: "theirs",
        apiKeyType: "admin",
        workspace: { type: "workspace", id: theirs },
      }),
    ).rejects.toMatchObject({ status: 403 });
    await expect(harness.flags.delete(theirs, "their-flag")).rejects.toMatchObject({ status: 403 });
    const names: string[] = [];
    for await (const w of harness.workspaces.list()) names.push(w.name);
    expect(names).toEqual(["proj_a"]);
    // Its own project's workspace: a change, a flag, a key restricted to it (which reaches no further).
    expect(
      (
        await harness.workspaces.patch(mine, [
          { op: "replace", path: "/requiresTitleAndComments", value: true },
        ])
      ).requiresTitleAndComments,
    ).toBe(true);
    expect((await harness.flags.create(mine, "user", { name: "my-flag", description: "mine" })).name).toBe(
      "my-flag",
    );
    const minted = await harness.apiKeys.create({
      name: "mine",
      apiKeyType: "admin",
      workspace: { type: "workspace", id: mine },
    });
    const narrow = new AdminClient({ baseUrl: emu.url, apiKey: minted.key, requestsPerSecond: inf });
    expect((await narrow.flags.get(mine, "my-flag")).name).toBe("my-flag");
    await expect(narrow.flags.delete(theirs, "their-flag")).rejects.toMatchObject({ status: 403 });
    const after = await admin.workspaces.getByName("proj_b");
    expect(after?.id).toBe(theirs);
    expect((await admin.flags.get(theirs, "their-flag")).description).toBe("theirs");
  });
});

describe("no key in anything logged", () => {
  it("console and stdout/stderr during this file", () => {
    // Something was logged (the emulator's and the SDK's own lines, vitest's output), and checked.
    expect(inspected.length).toBeGreaterThan(50);
    expect(logged.filter((l) => l.includes("NetworkError")).length).toBeGreaterThan(0);
    expect(logged.filter((l) => l.includes("rejected credential")).length).toBeGreaterThan(0);
    expectNoKey("captured logs", logged.join("\n"));
    expectNoKey("host stderr", host.stderr());
  });
});

// ---------------------------------------------------------------------------------------------
// Helpers

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

async function startServer(
  handler: (req: import("node:http").IncomingMessage, res: import("node:http").ServerResponse) => void,
): Promise<{ url: string; stop: () => Promise<void> }> {
  const server: Server = createServer(handler);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
