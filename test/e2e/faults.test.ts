/**
 * Reliability through the real engine: a stack applied through an emulator that fails 10% of API
 * requests (429, 500, 503, connections dropped before and after the server acted) converges to
 * exactly the declared objects: no duplicate flag, group, user or project, nothing missing, and a
 * following preview finds nothing to change.
 *
 * "Converges" is what a user sees: `pulumi up` either succeeds or fails with an error naming the
 * failed request, and running it again picks up where it stopped. The SDK retries what is safe to
 * retry (429, 503, dropped connections) but not a 500, so a run may stop on one; each operation is
 * therefore repeated until it succeeds, at most {@link ATTEMPTS} times, and every failed attempt
 * must have failed on an injected fault, never on anything else (a duplicate, a conflict, a
 * corrupted state).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AdminClient, PlatformClient } from "../../sdk";
import {
  clients,
  defaultWorkspaceId,
  flagNames,
  groupNames,
  helloPipeline,
  projectIds,
  resourceCount,
  type StackSpec,
  users,
} from "./fixtures";
import { apiRequests, EngineStack } from "./harness";

const FLAGS = 12;
const ATTEMPTS = 4;
const FAULTS = { rate429: 0.03, rate500: 0.02, rate503: 0.02, dropRate: 0.015, dropAfterRate: 0.015 };

/**
 * Runs an engine operation until it succeeds; returns the last result and how many attempts it
 * took. A failure must come from an injected fault.
 */
async function converge<T>(run: () => Promise<{ result: T }>): Promise<{ result: T; attempts: number }> {
  for (let attempt = 1; ; attempt++) {
    try {
      const r = await run();
      return { result: r.result, attempts: attempt };
    } catch (e) {
      const text = String(e);
      const reasons = [
        ...text.matchAll(/error: (?!update failed|preview failed|refresh failed|destroy failed)(.*)/g),
      ]
        .map((m) => m[1] ?? "")
        // The engine may head a list of step errors with "N error(s) occurred:"; the list follows.
        .filter((reason) => !/^\d+ errors? occurred:?$/.test(reason.trim()));
      for (const reason of reasons)
        expect(reason).toMatch(
          /injected fault|socket|connection|ECONNRESET|other side closed|fetch failed|terminated|\d+ errored/i,
        );
      if (attempt >= ATTEMPTS) throw e;
      console.info(
        `attempt ${attempt} stopped on an injected fault: ${reasons[0] ?? "(no reason printed)"}; running it again`,
      );
    }
  }
}

/** Twelve flags with a definition in Staging and Production each, three groups, three users, two projects. */
function faultSpec(): StackSpec {
  const spec: StackSpec = {
    flags: {},
    definitions: {},
    groups: {},
    users: {},
    projects: {},
    connectors: {},
    pipelines: {},
  };
  for (let i = 0; i < FLAGS; i++) {
    spec.flags![`f${i}`] = {
      workspace: "Default",
      name: `faulty-${i}`,
      description: `flag ${i}`,
      tags: ["owner:e2e"],
    };
    for (const env of ["Staging", "Production"]) {
      spec.definitions![`f${i}-${env}`] = {
        workspace: "Default",
        flag: `f${i}`,
        environment: env,
        treatments: [{ name: "on", keys: [`user-${i}`] }, { name: "off" }],
        defaultTreatment: "off",
        defaultRule: [
          { treatment: "on", size: env === "Staging" ? 50 : 10 },
          { treatment: "off", size: env === "Staging" ? 50 : 90 },
        ],
      };
    }
  }
  for (let g = 0; g < 3; g++) {
    spec.groups![`g${g}`] = { name: `faulty-group-${g}`, description: `group ${g}` };
    spec.users![`u${g}`] = { email: `faulty-${g}@example.test`, groups: [`g${g}`] };
  }
  for (const p of ["alpha", "beta"]) {
    spec.projects![p] = { identifier: `faulty_${p}`, name: `Faulty ${p}` };
    spec.connectors![`${p}-registry`] = {
      org: "default",
      project: p,
      identifier: "registry",
      name: "Registry",
      dockerRegistry: { url: "https://registry.example.test/v2", providerType: "Harbor" },
    };
    spec.pipelines![`${p}-deploy`] = { project: p, pipeline: helloPipeline("deploy") };
  }
  return spec;
}

describe("a stack applied through an emulator that injects 10% faults", () => {
  let s: EngineStack;
  let admin: AdminClient;
  let platform: PlatformClient;
  const spec = faultSpec();
  const n = resourceCount(spec);

  beforeAll(async () => {
    s = await EngineStack.open({
      program: "test/e2e/programs/stack",
      emulator: { faults: { ...FAULTS, seed: 20261122 } },
    });
    ({ admin, platform } = clients(s.emu));
    await s.setSpec(spec);
  });
  afterAll(async () => {
    await s?.close();
  });

  it("up converges through the injected faults", async () => {
    const logged = s.emu.requests().length;
    const { result, attempts } = await converge(() => s.up());
    expect(result.summary.result).toBe("succeeded");
    // The last run creates what earlier runs did not get to, counts the rest the same, and updates
    // an object whose create an earlier run left half done (a lost answer to the PATCH that follows
    // a create: the engine records it half-initialised, and the next run finishes it). Nothing is
    // replaced or deleted.
    const changes = result.summary.resourceChanges ?? {};
    expect((changes.create ?? 0) + (changes.same ?? 0) + (changes.update ?? 0)).toBe(n + 1);
    expect(Object.keys(changes).filter((k) => !["create", "same", "update"].includes(k))).toEqual([]);
    expect(attempts).toBeLessThanOrEqual(ATTEMPTS);
    // About 10% of the requests of every attempt (failed ones included) met a fault, counted by the
    // log's fault mark, so drops after the server acted (answered, then cut) count too. The seeded
    // draws are fixed and only the engine's concurrency decides which request meets which, so the
    // count barely moves between runs (10 of 77-79 requests when this was written); the bounds
    // leave room for a run that needs more or fewer requests.
    const all = apiRequests(s.emu.requests().slice(logged));
    const faulted = all.filter((r) => r.fault !== undefined).length;
    expect(faulted).toBeGreaterThanOrEqual(5);
    expect(faulted / all.length).toBeGreaterThan(0.05);
    expect(faulted / all.length).toBeLessThan(0.25);
  });

  it("leaves exactly the declared objects: no duplicate, nothing missing", async () => {
    s.emu.setFaults({});
    const ws = await defaultWorkspaceId(admin);
    expect(await flagNames(admin)).toEqual(Array.from({ length: FLAGS }, (_, i) => `faulty-${i}`).sort());
    for (let i = 0; i < FLAGS; i++) {
      for (const env of ["Staging", "Production"]) {
        const def = await admin.definitions.get(ws, `faulty-${i}`, env);
        expect(def.treatments.find((t) => t.name === "on")?.keys).toEqual([`user-${i}`]);
      }
    }
    expect(await groupNames(admin)).toEqual(["faulty-group-0", "faulty-group-1", "faulty-group-2"]);
    expect((await users(admin)).map((u) => u.email)).toEqual([
      "faulty-0@example.test",
      "faulty-1@example.test",
      "faulty-2@example.test",
    ]);
    expect(await projectIds(platform)).toEqual(["faulty_alpha", "faulty_beta"]);
  });

  it("a preview after it finds nothing to change and makes no request", async () => {
    const { result, requests } = await s.preview();
    expect(result.changeSummary).toEqual({ same: n + 1 });
    expect(requests).toEqual([]);
  });

  it("refresh through the faults finds no drift, and destroy through them removes everything", async () => {
    s.emu.setFaults({ ...FAULTS, seed: 7 });
    const refreshed = await converge(() => s.refresh());
    expect(refreshed.result.summary.resourceChanges).toEqual({ same: n + 1 });
    const { result } = await converge(() => s.destroy());
    expect(result.summary.result).toBe("succeeded");
    expect(await s.resources()).toEqual([]);
    s.emu.setFaults({});
    expect(await flagNames(admin)).toEqual([]);
    expect(await groupNames(admin)).toEqual([]);
    expect(await users(admin)).toEqual([]);
    expect(await projectIds(platform)).toEqual([]);
  });
});
