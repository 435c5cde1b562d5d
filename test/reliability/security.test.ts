/**
 * Security: credentials stay where they belong.
 *
 * - Sentinel keys (admin, platform, SDK; each contains the word SENTINEL) are the emulator's real
 *   keys and the provider's configuration. The sentinel is then searched for everywhere a key could
 *   leak: the `__provider` text of every kind of `provider/kinds.ts` (what the engine stores in
 *   every resource's state), what every call of every kind's lifecycle returns on its sample
 *   (`samples.ts`: check, create, read, diff, update, delete; directly, and the raw gRPC responses
 *   of the host, `__provider` included), the message, JSON, `util.inspect` and stack of every error
 *   from failed calls made with those keys (401 from a service that does not know them, for every
 *   kind directly and through the host; a second create of every kind's object and every kind's
 *   names that do not exist; 403, 404, a server echoing the key in its error body, refused
 *   connections, timeouts, bad configuration), the event importer's journal, rejects file and
 *   summary, the host's stderr, and every line logged through `console` or written to
 *   stdout/stderr while this file runs. Each every-kind case fails if a kind of the list is not
 *   exercised.
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
import { providerText } from "../../provider/core/resource";
import { AdminClient, EventsClient, eventsEndpoints, PlatformClient } from "../../sdk";
import { formatSummary, importEvents } from "../../sdk/events/import";
import { type Driver, MODES, type Mode, type ProviderHost, startProviderHost } from "../provider/harness";
import { applyChange } from "./bad-inputs";
import { Exercised } from "./coverage";
import { type KindBed, kindDriver, names, startKindBed } from "./kind-bed";
import { configureDirect, drivers, stackConfig } from "./kinds";
import { type Edit, type KindUnderTest, kindsUnderTest } from "./samples";

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

const kinds = kindsUnderTest();
const exercised = new Exercised();

let bed: KindBed;
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
  // The kinds' bed (the provider's settings point at it through its proxy), with the sentinel keys.
  bed = await startKindBed({
    accountId: ACCOUNT,
    adminKey: ADMIN_KEY,
    platformKey: PLATFORM_KEY,
    sdkKey: SDK_KEY,
  });
  emu = bed.emu;
  stranger = await startEmulator({ port: 0, accountId: ACCOUNT });
  expect([emu.adminKey, emu.platformKey, emu.sdkKey]).toEqual([ADMIN_KEY, PLATFORM_KEY, SDK_KEY]);
  host = await startProviderHost();
  await host.configure(bed.config);
});

afterAll(async () => {
  await host?.stop();
  await bed?.stop();
  await stranger?.stop();
  for (const s of spies) s.mockRestore();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

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

/** The kind's driver in `mode` through `h`: its implementation, or the host with its `__provider` text. */
const driverOf = (kind: KindUnderTest, mode: Mode, h: ProviderHost = host): Driver =>
  kindDriver(kind, mode, h);

const messageOf = (e: unknown) => (e instanceof Error ? e.message : String(e));

/**
 * Every call of one kind's lifecycle on a new object of its sample, through `d`: check, create,
 * read, diff and update to the program's value of its first edit (or the same inputs), read,
 * delete, and the read of the gone object. Returns what each call returned.
 */
async function lifecycle(kind: KindUnderTest, d: Driver): Promise<unknown[]> {
  const got: unknown[] = [];
  const raw = await kind.sample.inputs(bed.ctx);
  const checked = await d.check({}, raw);
  got.push(checked);
  expect(checked.failures).toEqual([]);
  const created = await d.create(checked.inputs);
  got.push(created);
  got.push(await d.read(created.id, created.outs));
  const edits = await kind.sample.edits(bed.ctx, checked.inputs);
  const [field] = Object.keys(edits);
  const next = field === undefined ? raw : { ...raw, [field]: (edits[field] as Edit)[1] };
  const news = await d.check({}, next);
  got.push(news);
  got.push(await d.diff(created.id, created.outs, news.inputs));
  const updated = await d.update(created.id, created.outs, news.inputs);
  got.push(updated);
  got.push(await d.read(created.id, updated.outs));
  await d.delete(created.id, updated.outs);
  got.push(await d.read(created.id, updated.outs));
  return got;
}

const PROVIDER_TEXT = "its __provider text holds no key and only requires the package";
const LIFECYCLE = "check, create, read, diff, update and delete return no key";
const STRANGER = "refused by a service that does not know the keys (401): no key in the errors";
const REFUSED = "refused by the service that knows the keys (409, 404, 400): no key in the errors";

describe("no key in the __provider texts, state or outputs", () => {
  it.each(names(kinds))(`%s: ${PROVIDER_TEXT}`, (name) => {
    const kind = kinds.find((k) => k.name === name) as KindUnderTest;
    // The clients of this process hold the keys by now: nothing of them may reach the text.
    adminClient();
    const text = providerText(kind.file);
    expectNoKey(`${name} __provider`, text);
    expect(text).toMatch(/^exports\.handler = \(\) => require\("flagstack\/provider\/[a-z-]+"\)\.impl;\n$/);
    exercised.ran(PROVIDER_TEXT, name);
  });

  describe.each(MODES)("(%s)", (mode) => {
    it.each(names(kinds))(`%s: ${LIFECYCLE}`, async (name) => {
      const kind = kinds.find((k) => k.name === name) as KindUnderTest;
      if (mode === "direct") {
        expectNoKey(`${name} lifecycle (direct)`, await lifecycle(kind, driverOf(kind, mode)));
      } else {
        // The raw gRPC responses, `__provider` included.
        const raw: unknown[] = [];
        await lifecycle(kind, driverOf(kind, mode, recordingHost(host, raw)));
        expect(raw.length).toBeGreaterThanOrEqual(8);
        expect(JSON.stringify(raw)).toContain("__provider");
        expectNoKey(`${name} lifecycle: raw host responses`, raw);
        expectNoKey(`${name} lifecycle: host stderr`, host.stderr());
      }
      exercised.ran(`${LIFECYCLE} (${mode})`, name);
    });
  });
});

describe("no key in the errors of failed calls made with it", () => {
  describe("provider calls refused by a service that does not know the keys (401), directly and through the host", () => {
    let other: ProviderHost;
    const inputs = new Map<string, Record<string, unknown>>();
    beforeAll(async () => {
      // What each sample lives in is made in the service that knows the keys, first.
      for (const kind of kinds) {
        const { inputs: checked, failures } = await kind.impl.check({}, await kind.sample.inputs(bed.ctx));
        expect(failures ?? []).toEqual([]);
        inputs.set(kind.name, checked as Record<string, unknown>);
      }
      const config = stackConfig(stranger, {
        "flagstack:adminApiKey": ADMIN_KEY,
        "flagstack:platformApiKey": PLATFORM_KEY,
      });
      configureDirect(config);
      other = await startProviderHost();
      await other.configure(config);
    });
    afterAll(async () => {
      expectNoKey("stderr of the host that failed", other?.stderr() ?? "");
      await other?.stop();
      configureDirect(bed.config);
    });

    it.each(names(kinds))(`%s: ${STRANGER}`, async (name) => {
      const kind = kinds.find((k) => k.name === name) as KindUnderTest;
      for (const mode of MODES) {
        const e = await failure(
          driverOf(kind, mode, other).create(inputs.get(name) as Record<string, unknown>),
        );
        expect(e.message).toMatch(/401|INVALID_TOKEN|[Ii]nvalid/);
        expectErrorClean(`${mode} ${name} create against a stranger`, e);
      }
      exercised.ran(STRANGER, name);
    });
  });

  it.each(names(kinds))(`%s: ${REFUSED}`, async (name) => {
    const kind = kinds.find((k) => k.name === name) as KindUnderTest;
    // A second create of the same object: refused (409), naming the one that exists.
    const base = await kind.sample.inputs(bed.ctx);
    const checked = (await kind.impl.check({}, base)).inputs as Record<string, unknown>;
    await kind.impl.create(checked);
    const again = await kind.impl.create(checked).then(
      () => undefined,
      (e: unknown) => e,
    );
    // The API has no read of the object (an API key): it cannot tell a second one from the first.
    if (kind.sample.noRead === undefined) {
      expect(messageOf(again)).toContain("already exists");
      expectErrorClean(`${name}: a second create`, again);
    }
    // Names that do not exist (404, 400), from the kind's malformed inputs.
    for (const row of (kind.sample.badInputs ?? []).filter((r) => r.create)) {
      const unknown = (await kind.impl.check({}, applyChange(base, row.change))).inputs as Record<
        string,
        unknown
      >;
      const e = await failure(kind.impl.create(unknown));
      expect(messageOf(e)).toContain(row.reason);
      expectErrorClean(`${name}: ${row.label}`, e);
    }
    exercised.ran(REFUSED, name, kind.sample.noRead);
  });

  it("every kind of the list went through every every-kind case", () => {
    exercised.expectEvery(
      [PROVIDER_TEXT, ...MODES.map((m) => `${LIFECYCLE} (${m})`), STRANGER, REFUSED],
      names(kinds),
    );
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
    // A Harness project is its FME workspace: each project made above has its own.
    const workspaceOf = async (project: string) => {
      const ws = await admin.workspaces.getByHarnessProject("default", project);
      if (!ws) throw new Error(`no workspace for project ${project}`);
      return ws;
    };
    const mine = (await workspaceOf("proj_a")).id;
    const theirs = (await workspaceOf("proj_b")).id;
    expect((await workspaceOf("proj_a")).requiresTitleAndComments).toBe(false);
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
    const after = await workspaceOf("proj_b");
    expect([after.id, after.name]).toEqual([theirs, "proj_b"]);
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
