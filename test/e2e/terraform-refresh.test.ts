/**
 * A refreshing `tofu plan` reads through the lists (issue 25's mechanism in the Terraform door,
 * `provider/core/list-reads.ts`): OpenTofu calls ReadResource once per resource, ten at a time,
 * in one provider process per walk, and the provider answers them from one list per scope: the
 * workspace's flags, each environment's definitions. Requests are counted per kind. A flag deleted
 * outside is confirmed by a single GET before it (and its definitions) are reported gone.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Emulator, startEmulator } from "../../emulator";
import type { AdminClient } from "../../sdk";
import { clients, defaultWorkspaceId } from "./fixtures";
import type { RequestRecord } from "./harness";
import { flagsHcl, TofuDir, writes } from "./tofu";

const FLAGS = 12;

describe("a refreshing tofu plan reads one list per scope", () => {
  let emu: Emulator;
  let admin: AdminClient;
  let ws: string;
  let envIds: Record<string, string>;
  let t: TofuDir;

  /** Each request as `<method> <kind> <list|one> <status>`: the flag list, a definition list, a single GET. */
  const byKind = (requests: RequestRecord[]): Record<string, number> => {
    const counts: Record<string, number> = {};
    const names = Object.fromEntries(Object.entries(envIds).map(([name, id]) => [id, name]));
    for (const r of requests) {
      const p = r.path.replace(`/internal/api/v2/splits/ws/${ws}`, "");
      const m = /^\/([^/]+)\/environments\/([^/]+)$/.exec(p);
      const key =
        p === ""
          ? "flags list"
          : /^\/environments\/[^/]+$/.test(p)
            ? `definitions list ${names[p.slice(14)] ?? p.slice(14)}`
            : m
              ? `definition GET ${names[m[2] as string] ?? m[2]}`
              : /^\/[^/]+$/.test(p)
                ? "flag GET"
                : r.path;
      const k = `${r.method} ${key} ${r.status}`;
      counts[k] = (counts[k] ?? 0) + 1;
    }
    return counts;
  };

  beforeAll(async () => {
    emu = await startEmulator({ port: 0 });
    ({ admin } = clients(emu));
    ws = await defaultWorkspaceId(admin);
    envIds = Object.fromEntries((await admin.environments.list(ws)).map((e) => [e.name, e.id]));
    t = TofuDir.open(emu);
    t.write(flagsHcl("tf-refresh", FLAGS));
    const init = await t.tf(["init", "-input=false"]);
    expect(init.code, init.out).toBe(0);
    const apply = await t.tf(["apply", "-input=false", "-auto-approve"]);
    expect(apply.code, apply.out).toBe(0);
    expect(apply.out).toContain(`Resources: ${FLAGS * 3} added, 0 changed, 0 destroyed.`);
  }, 300_000);
  afterAll(async () => {
    t?.close();
    await emu?.stop();
  });

  it("the flags from the workspace's list, the definitions from each environment's: 3 GETs for 36 resources", async () => {
    const plan = await t.tf(["plan", "-input=false", "-detailed-exitcode"]);
    expect(plan.code, plan.out).toBe(0);
    expect(plan.out).toContain("No changes.");
    expect(byKind(plan.requests)).toEqual({
      "GET flags list 200": 1,
      "GET definitions list Production 200": 1,
      "GET definitions list Staging 200": 1,
    });
  }, 300_000);

  it("a flag deleted outside: missing from the lists, confirmed gone by one single GET each", async () => {
    await admin.flags.delete(ws, "tf-refresh-3");
    const plan = await t.tf(["plan", "-input=false", "-detailed-exitcode"]);
    expect(plan.code, plan.out).toBe(2);
    expect(plan.out).toContain("Plan: 3 to add, 0 to change, 0 to destroy.");
    expect(writes(plan.requests)).toEqual([]);
    expect(byKind(plan.requests)).toEqual({
      "GET flags list 200": 1,
      "GET flag GET 404": 1,
      "GET definitions list Production 200": 1,
      "GET definitions list Staging 200": 1,
      "GET definition GET Production 404": 1,
      "GET definition GET Staging 404": 1,
    });
  }, 300_000);
});
