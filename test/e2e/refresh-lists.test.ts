/**
 * Refresh at list speed (issue 25), through the real Pulumi CLI and the emulator: a stack of 5
 * flags and 8 flag definitions (4 of the flags in Production and Staging) is refreshed with one
 * list request per scope and phase (`pulumi refresh --yes` runs a preview phase and an apply
 * phase, each in a provider process of its own: `--skip-preview` and `pulumi preview --refresh`
 * run one each), and a refresh after three out-of-band changes (a changed definition, a deleted
 * flag, a new tag) reports exactly those three, read from the lists, the deleted flag confirmed by
 * one single GET per phase.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AdminClient } from "../../sdk";
import type { Environment } from "../../sdk/admin/schemas";
import { clients, defaultWorkspaceId, type StackSpec } from "./fixtures";
import { apiRequests, EngineStack, type RequestRecord, recordedOutputs } from "./harness";

const ENVIRONMENTS = ["Production", "Staging"] as const;
const FLAGS = 5;

/** `FLAGS` flags `lists-fN`; each but the last with a definition in both environments. */
function spec(): StackSpec {
  const s: StackSpec = { flags: {}, definitions: {} };
  for (let i = 0; i < FLAGS; i++) {
    const key = `f${i}`;
    s.flags![key] = { workspace: "Default", name: `lists-${key}`, description: `flag ${i}`, tags: ["team"] };
    if (i === FLAGS - 1) continue;
    for (const env of ENVIRONMENTS) {
      s.definitions![`${key}-${env}`] = {
        workspace: "Default",
        flag: key,
        environment: env,
        treatments: [{ name: "on", keys: [`user-${i}`] }, { name: "off" }],
        defaultTreatment: "off",
        defaultRule: [
          { treatment: "on", size: 10 },
          { treatment: "off", size: 90 },
        ],
      };
    }
  }
  return s;
}

const RESOURCES = FLAGS + (FLAGS - 1) * ENVIRONMENTS.length;

describe("refresh reads lists", () => {
  let s: EngineStack;
  let admin: AdminClient;
  let ws: string;
  let envs: Environment[];
  /** `METHOD path?query` of each request, sorted (the reads of a phase run concurrently). */
  const lines = (requests: RequestRecord[]) =>
    requests.map((r) => `${r.method} ${r.path}${r.query ? `?${r.query}` : ""}`).sort();
  const flagList = () => `GET /internal/api/v2/splits/ws/${ws}?offset=0&limit=50`;
  const definitionList = (name: string) =>
    `GET /internal/api/v2/splits/ws/${ws}/environments/${envs.find((e) => e.name === name)!.id}?offset=0&limit=50`;
  /** One phase's reads: the flag list and one definition list per environment. */
  const phase = () => [flagList(), ...ENVIRONMENTS.map(definitionList)];

  /**
   * `pulumi refresh --yes` as a user types it (both phases): the CLI's resource summary on one line
   * and the API requests.
   */
  const cliRefresh = async () => {
    const before = s.emu.requests().length;
    const { stdout } = await s.cli(["refresh", "--yes", "--color", "never"]);
    const requests = apiRequests(s.emu.requests().slice(before));
    const block = stdout.slice(stdout.lastIndexOf("Resources:") + "Resources:".length);
    const summary = block
      .split("\n")
      // The CLI ends the block with "3 changes. 11 unchanged" when something changed.
      .map((l) => l.trim().replace(/^\d+ changes?\. /, ""))
      .filter((l) => /^([~+-] )?\d+ \w+$/.test(l))
      .join(", ");
    return { summary, requests };
  };

  beforeAll(async () => {
    s = await EngineStack.open({ program: "test/e2e/programs/stack" });
    ({ admin } = clients(s.emu));
    ws = await defaultWorkspaceId(admin);
    envs = await admin.environments.list(ws);
    await s.setSpec(spec());
    const { result } = await s.up();
    expect(result.summary.resourceChanges).toEqual({ create: RESOURCES + 1 });
  });
  afterAll(async () => {
    await s?.close();
  });

  it("counts a refresh's requests per kind and phase: one list per scope in each phase", async () => {
    const both = await cliRefresh();
    expect(both.summary).toEqual(`${RESOURCES + 1} unchanged`);
    expect(lines(both.requests)).toEqual([...phase(), ...phase()].sort());

    // The Automation API's refresh skips the preview: the apply phase alone.
    const apply = await s.refresh();
    expect(apply.result.summary.resourceChanges).toEqual({ same: RESOURCES + 1 });
    expect(lines(apply.requests)).toEqual(phase().sort());

    const preview = await s.preview({ refresh: true });
    expect(preview.result.changeSummary).toEqual({ same: RESOURCES + 1 });
    expect(lines(preview.requests)).toEqual(phase().sort());
  });

  it("after three out-of-band changes a refresh reports exactly those three, from the lists", async () => {
    await admin.definitions.patch(ws, "lists-f0", "Production", [
      { op: "replace", path: "/defaultRule", value: [{ treatment: "on", size: 100 }] },
    ]);
    const gone = await admin.flags.get(ws, `lists-f${FLAGS - 1}`);
    await admin.flags.delete(ws, gone.name);
    await admin.flags.setTags(ws, "lists-f2", ["team", "new-tag"]);

    const { summary, requests } = await cliRefresh();
    expect(summary).toEqual(`~ 2 updated, - 1 deleted, ${RESOURCES - 2} unchanged`);
    // Each phase: the lists, and one single GET confirming the flag missing from its list.
    const confirm = `GET /internal/api/v2/splits/ws/${ws}/${gone.id}`;
    expect(lines(requests)).toEqual([...phase(), confirm, ...phase(), confirm].sort());
    expect(requests.filter((r) => r.path.endsWith(`/${gone.id}`)).map((r) => r.status)).toEqual([404, 404]);

    expect((await recordedOutputs(s, "f0-Production")).defaultRule).toEqual([{ treatment: "on", size: 100 }]);
    expect((await recordedOutputs(s, "f2")).tags).toEqual(["new-tag", "team"]);
    expect((await s.resources()).some((r) => r.urn.endsWith(`::f${FLAGS - 1}`))).toBe(false);
    // Nothing else moved: every other resource's outputs are as the service shows them.
    expect((await recordedOutputs(s, "f1")).tags).toEqual(["team"]);
    expect((await recordedOutputs(s, "f0-Staging")).defaultRule).toEqual([
      { treatment: "on", size: 10 },
      { treatment: "off", size: 90 },
    ]);
  });
});
