/**
 * The stories every language's native-provider e2e test tells of its example program (YAML,
 * Python, TypeScript through the generated SDK), written once: a one-field change that previews
 * as a field-level diff and goes out as one JSON Patch of exactly that field, and a refresh after
 * an out-of-band change whose next preview and `up` restore the program's value. Each test passes
 * what differs: the flag's name and description in its program, how to add
 * `trafficAllocation: 50` to its Production definition in its language, and whether the program
 * reads anything itself (the Python and TypeScript programs look up the workspace and
 * environments; YAML makes no request of its own).
 */
import { expect } from "vitest";
import type { RecordingProxy } from "../provider/harness";
import { clients, defaultWorkspaceId } from "./fixtures";
import { type EngineStack, previewJson, recordedOutputs } from "./harness";

/** One language's example stack. */
export interface NativeExample {
  s: EngineStack;
  /** Between the provider and the emulator's admin API: the emulator's log has no bodies. */
  proxy: RecordingProxy;
  /** The flag's name in the program. */
  flag: string;
  /** The flag's description in the program. */
  description: string;
  /** Whether the program makes requests of its own (lookups), which every run repeats. */
  lookups: boolean;
}

/** The requests a run makes besides the program's own lookups. */
const providerRequests = <T extends { method: string; path: string }>(n: NativeExample, requests: T[]) =>
  n.lookups ? requests.filter((r) => r.path.includes("/splits/")) : requests;

/**
 * On a stack that `up` creates (four resources), `addTrafficAllocation` adds
 * `trafficAllocation: 50` to the Production definition: `preview --json` names that field alone and
 * writes nothing, `preview --diff` prints `100 => 50`, and `up` reads the live definition and sends
 * one PATCH of exactly that field.
 */
export async function oneFieldChange(n: NativeExample, addTrafficAllocation: () => void): Promise<void> {
  const { s, proxy } = n;
  const { admin } = clients(s.emu);
  const ws = await defaultWorkspaceId(admin);
  expect((await s.up()).result.summary.resourceChanges).toEqual({ create: 4 });
  addTrafficAllocation();

  const preview = await previewJson(s);
  expect(preview.summary).toEqual({ same: 3, update: 1 });
  expect(preview.changes).toEqual({
    checkoutProduction: {
      op: "update",
      urn: expect.stringMatching(/::flagstack:index:FlagDefinition::checkoutProduction$/),
      diffReasons: ["trafficAllocation"],
      detailedDiff: { trafficAllocation: { kind: "update", inputDiff: false } },
    },
  });
  expect(n.lookups ? preview.requests.filter((r) => r.method !== "GET") : preview.requests).toEqual([]);
  const diff = await s.preview({ diff: true });
  expect(diff.result.stdout).toMatch(/~ flagstack:index:FlagDefinition: \(update\)/);
  expect(diff.result.stdout).toMatch(/\n\s+~ trafficAllocation: 100 => 50\n/);

  proxy.reset();
  const up = await s.up();
  expect(up.result.summary.resourceChanges).toEqual({ same: 3, update: 1 });
  const flag = await admin.flags.get(ws, n.flag);
  const after = await admin.definitions.get(ws, n.flag, "Production");
  const env = after.environment.id;
  const path = `/internal/api/v2/splits/ws/${ws}/${n.flag}/environments/${env}`;
  // The program's lookups (when it has any), the guard's read of the live definition, then the
  // one PATCH.
  expect(up.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
    ...(n.lookups
      ? ["GET /internal/api/v2/workspaces 200", `GET /internal/api/v2/environments/ws/${ws} 200`]
      : []),
    `GET /internal/api/v2/splits/ws/${ws}/${flag.id}/environments/${env} 200`,
    `PATCH ${path} 200`,
  ]);
  expect(proxy.writes().map((r) => ({ method: r.method, path: r.path, body: r.body }))).toEqual([
    {
      method: "PATCH",
      path,
      body: [
        { op: "test", path: "/trafficAllocation", value: 100 },
        { op: "replace", path: "/trafficAllocation", value: 50 },
      ],
    },
  ]);
  expect(after.trafficAllocation).toBe(50);
  expect((await s.preview()).result.changeSummary).toEqual({ same: 4 });
}

/**
 * The flag's description changed outside Pulumi: a refresh records the live value with reads
 * only, the next preview shows the one field, and `up` reads the flag and sends one PATCH that
 * restores the program's description.
 */
export async function outOfBandRefresh(n: NativeExample): Promise<void> {
  const { s, proxy } = n;
  const { admin } = clients(s.emu);
  const ws = await defaultWorkspaceId(admin);
  await admin.flags.patch(ws, n.flag, [
    { op: "replace", path: "/description", value: "Changed outside Pulumi" },
  ]);

  const refresh = await s.refresh();
  expect(refresh.result.summary.resourceChanges).toEqual({ same: 3, update: 1 });
  expect(refresh.requests.filter((r) => r.method !== "GET")).toEqual([]);
  expect((await recordedOutputs(s, "checkout")).description).toBe("Changed outside Pulumi");

  const preview = await previewJson(s);
  expect(preview.summary).toEqual({ same: 3, update: 1 });
  expect(preview.changes).toEqual({
    checkout: {
      op: "update",
      urn: expect.stringMatching(/::flagstack:index:Flag::checkout$/),
      diffReasons: ["description"],
      detailedDiff: { description: { kind: "update", inputDiff: false } },
    },
  });

  proxy.reset();
  const up = await s.up();
  expect(up.result.summary.resourceChanges).toEqual({ same: 3, update: 1 });
  const flag = await admin.flags.get(ws, n.flag);
  expect(providerRequests(n, up.requests).map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
    `GET /internal/api/v2/splits/ws/${ws}/${flag.id} 200`,
    `PATCH /internal/api/v2/splits/ws/${ws}/${n.flag} 200`,
  ]);
  expect(proxy.writes().map((r) => ({ method: r.method, path: r.path, body: r.body }))).toEqual([
    {
      method: "PATCH",
      path: `/internal/api/v2/splits/ws/${ws}/${n.flag}`,
      body: [{ op: "replace", path: "/description", value: n.description }],
    },
  ]);
  expect(flag.description).toBe(n.description);
}
