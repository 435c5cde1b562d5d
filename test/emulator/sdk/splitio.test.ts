/**
 * The real feature-flag SDK (`@splitsoftware/splitio`, server-side, polling) against the emulator:
 * definitions made through the admin API are evaluated by the SDK exactly (individual targets, a
 * segment rule, a percentage default rule, a kill), updates and deletes reach it, and `track()`
 * events land in the event store (spec §4 event import; ref wire §5-§7).
 */

import { createRequire } from "node:module";
import { SplitFactory } from "@splitsoftware/splitio";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Emulator } from "../../../emulator";
import { type Call, start } from "../helpers";

// The SDK's own murmur3 bucketing (untyped module): bucket(key, seed) in 1..100 (ref wire §3).
const { bucket } = createRequire(__filename)("@splitsoftware/splitio-commons/cjs/utils/murmur3/murmur3") as {
  bucket: (key: string, seed: number) => number;
};

let emu: Emulator;
let call: Call;
let ws: { id: string };
let factory: SplitIO.ISDK;
let client: SplitIO.IClient;

const KEYS = Array.from({ length: 40 }, (_, i) => `user-${i}`);
const base = () => `/internal/api/v2/splits/ws/${ws.id}`;
const treatment = (key: string, flag = "new_checkout") => client.getTreatment(key, flag);

/** The seed the emulator serves for a flag (so the expected buckets can be computed). */
async function seedOf(flag: string): Promise<number> {
  const r = await call("GET", "/api/splitChanges?s=1.3&since=-1", { key: emu.sdkKey });
  const split = r.body.ff.d.find((s: { name: string }) => s.name === flag);
  return split.seed;
}

/** What a 30/70 on/off default rule gives a key: bucket 1..30 → on. */
const expected = (key: string, seed: number, onShare: number) =>
  bucket(key, seed) <= onShare ? "on" : "off";

beforeAll(async () => {
  ({ emu, call, ws } = await start());
  // Segment beta_users with two members in Production.
  await call("POST", `/internal/api/v2/segments/ws/${ws.id}/trafficTypes/user`, {
    body: { name: "beta_users" },
  });
  await call("POST", "/internal/api/v2/segments/Production/beta_users");
  await call("PUT", "/internal/api/v2/segments/Production/beta_users/uploadKeys?replace=true", {
    body: { keys: ["seg-1", "seg-2"] },
  });
  // Flag with individual targets, a segment rule and a 30/70 default rule.
  await call("POST", `${base()}/trafficTypes/user`, { body: { name: "new_checkout" } });
  const def = await call("POST", `${base()}/new_checkout/environments/Production`, {
    body: {
      treatments: [
        { name: "on", keys: ["qa-bot"], configurations: '{"color":"green"}' },
        { name: "off", keys: ["qa-off"] },
      ],
      defaultTreatment: "off",
      rules: [
        {
          condition: { combiner: "AND", matchers: [{ type: "IN_SEGMENT", string: "beta_users" }] },
          buckets: [{ treatment: "on", size: 100 }],
        },
      ],
      defaultRule: [
        { treatment: "on", size: 30 },
        { treatment: "off", size: 70 },
      ],
    },
  });
  expect(def.status).toBe(200);
  await call("POST", `${base()}/trafficTypes/user`, { body: { name: "side_flag" } });
  await call("POST", `${base()}/side_flag/environments/Production`, {
    body: {
      treatments: [{ name: "on" }, { name: "off" }],
      defaultTreatment: "off",
      defaultRule: [{ treatment: "on", size: 100 }],
    },
  });

  factory = SplitFactory({
    core: { authorizationKey: emu.sdkKey },
    urls: {
      sdk: `${emu.url}/api`,
      events: `${emu.url}/api`,
      auth: `${emu.url}/api`,
      telemetry: `${emu.url}/api`,
      streaming: emu.url,
    },
    streamingEnabled: false,
    scheduler: {
      featuresRefreshRate: 0.1,
      segmentsRefreshRate: 0.1,
      eventsPushRate: 0.2,
      impressionsRefreshRate: 0.5,
    },
    startup: { readyTimeout: 10 },
    debug: false,
  });
  client = factory.client();
  await client.whenReady();
});

afterAll(async () => {
  await client?.destroy();
  await emu?.stop();
});

describe("the real SDK evaluates what the admin API defined", () => {
  it("hashes like the published test vector (seed -52311562 → bucket 43)", () => {
    expect(bucket("00018112-7d59-46cf-b9e0-f8fa625aa20b", -52311562)).toBe(43);
  });

  it("serves individual targets, the segment rule and the percentage default rule exactly", async () => {
    const seed = await seedOf("new_checkout");
    expect(treatment("qa-bot")).toBe("on");
    expect(treatment("qa-off")).toBe("off");
    expect(treatment("seg-1")).toBe("on");
    expect(treatment("seg-2")).toBe("on");
    const got = Object.fromEntries(KEYS.map((k) => [k, treatment(k)]));
    const want = Object.fromEntries(KEYS.map((k) => [k, expected(k, seed, 30)]));
    expect(got).toEqual(want);
    // Both treatments occur, so the percentage split is really exercised.
    expect(new Set(Object.values(got))).toEqual(new Set(["on", "off"]));
    expect(client.getTreatmentWithConfig("qa-bot", "new_checkout")).toEqual({
      treatment: "on",
      config: '{"color":"green"}',
    });
    expect(treatment("anyone", "side_flag")).toBe("on");
    expect(treatment("anyone", "no_such_flag")).toBe("control");
  });

  it("sees an update: default rule 100% on, a key moved to off, a segment member removed", async () => {
    const seed = await seedOf("new_checkout");
    const r = await call("PATCH", `${base()}/new_checkout/environments/Production`, {
      body: [
        { op: "replace", path: "/defaultRule", value: [{ treatment: "on", size: 100 }] },
        { op: "add", path: "/treatments/1/keys/-", value: "user-0" },
      ],
    });
    expect(r.status).toBe(200);
    await call("PUT", "/internal/api/v2/segments/Production/beta_users/removeKeys", {
      body: { keys: ["seg-2"], comment: "gone" },
    });
    await vi.waitFor(
      () =>
        expect(Object.fromEntries(KEYS.map((k) => [k, treatment(k)]))).toEqual(
          Object.fromEntries(KEYS.map((k, i) => [k, i === 0 ? "off" : "on"])),
        ),
      { timeout: 5000, interval: 50 },
    );
    // The seed is stable across updates, so keys never re-bucket (ref wire §2.5).
    expect(await seedOf("new_checkout")).toBe(seed);
    expect(treatment("qa-off")).toBe("off");
    // seg-2 left the segment but the default rule is now 100% on; user-0 is targeted off.
    await call("PATCH", `${base()}/new_checkout/environments/Production`, {
      body: [{ op: "replace", path: "/defaultRule", value: [{ treatment: "off", size: 100 }] }],
    });
    await vi.waitFor(() => expect(treatment("seg-2")).toBe("off"), { timeout: 5000, interval: 50 });
    expect(treatment("seg-1")).toBe("on");
    expect(treatment("user-5")).toBe("off");
  });

  it("serves the default treatment for every key when killed, and the rules again when restored", async () => {
    await call("PUT", `${base()}/new_checkout/environments/Production/kill`);
    await vi.waitFor(() => expect(treatment("qa-bot")).toBe("off"), { timeout: 5000, interval: 50 });
    expect(treatment("seg-1")).toBe("off");
    await call("PUT", `${base()}/new_checkout/environments/Production/restore`);
    await vi.waitFor(() => expect(treatment("qa-bot")).toBe("on"), { timeout: 5000, interval: 50 });
    expect(treatment("seg-1")).toBe("on");
  });

  it("returns control after the definition is deleted, and after the flag is deleted", async () => {
    expect((await call("DELETE", `${base()}/new_checkout/environments/Production`)).body).toBe(true);
    await vi.waitFor(() => expect(treatment("qa-bot")).toBe("control"), { timeout: 5000, interval: 50 });
    for (const k of ["seg-1", "user-3"]) expect(treatment(k)).toBe("control");
    expect((await call("DELETE", `${base()}/side_flag`)).body).toBe(true);
    await vi.waitFor(() => expect(treatment("anyone", "side_flag")).toBe("control"), {
      timeout: 5000,
      interval: 50,
    });
  });

  it("delivers track() events to the event store with the environment of the SDK key", async () => {
    expect(client.track("user-1", "user", "checkout_completed", 12.5, { plan: "pro" })).toBe(true);
    expect(client.track("user-2", "user", "page_view")).toBe(true);
    await vi.waitFor(() => expect(emu.eventCount()).toBe(2), { timeout: 5000, interval: 50 });
    const events = emu.events();
    expect(events).toEqual([
      {
        eventTypeId: "checkout_completed",
        trafficTypeName: "user",
        key: "user-1",
        value: 12.5,
        properties: { plan: "pro" },
        timestamp: expect.any(Number),
        environmentId: expect.any(String),
        environmentName: "Production",
      },
      expect.objectContaining({ eventTypeId: "page_view", key: "user-2", environmentName: "Production" }),
    ]);
    expect(emu.requests().some((r) => r.path === "/api/events/bulk" && r.status === 202)).toBe(true);
  });
});
