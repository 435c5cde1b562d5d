/**
 * Provider figures, measured as the engine drives the provider: through the real
 * `@pulumi/pulumi/cmd/dynamic-provider` gRPC host with the `__provider` texts, against the
 * emulator, with a recording proxy in between for request bodies.
 *
 * - `preview_requests`: requests recorded while `check` + `diff` run over an unchanged stack of
 *   N resources (goal 0: a preview never calls the API). `preview_changes` counts diffs that
 *   reported a change anyway (goal 0).
 * - `update_one_field_writes`: writes sent to change one field of one flag definition (goal 1);
 *   `update_one_field_requests` all requests (the live read plus the write);
 *   `update_one_field_patch_ops` the operations in that PATCH (guards included) and
 *   `update_one_field_patch_changes` the changing ones among them.
 * - `provider_state_bytes`: the largest `__provider` text (what each resource stores in its inputs
 *   and its outputs; goal under 2048), with one figure per resource; `provider_state_secret` is 1 if
 *   the admin key appears in any of them (goal 0).
 * - `preview_ms_per_resource`: wall time of check + diff per resource through the host.
 *
 * Needs the build (`dist/`): the `__provider` texts `require("flagstack/provider/<file>")`.
 * @module
 */
import { execSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { startEmulator } from "../emulator";
import { flagProviderText } from "../provider/flags/flag";
import { flagDefinitionProviderText } from "../provider/flags/flag-definition";
import { groupProviderText } from "../provider/flags/group";
import { userInviteProviderText } from "../provider/flags/user-invite";
import { DIFF, startProviderHost, startRecordingProxy } from "../test/provider/harness";
import type { BenchContext } from "./run";

type Props = Record<string, unknown>;

/** Runs the provider benchmark. */
export async function run({ quick, log }: BenchContext): Promise<Record<string, number>> {
  const repo = join(__dirname, "..");
  if (!existsSync(join(repo, "dist", "provider", "flag-definition.js"))) {
    log("provider: building dist/ (the __provider texts require the built package)");
    execSync("npx tsc -p tsconfig.build.json", { cwd: repo, stdio: "ignore" });
  }

  const emu = await startEmulator({ port: 0 });
  const proxy = await startRecordingProxy(emu.url);
  const host = await startProviderHost();
  const figures: Record<string, number> = {};
  try {
    await host.configure({
      "flagstack:adminApiUrl": proxy.url,
      "flagstack:adminApiKey": emu.adminKey,
      "flagstack:requestsPerSecond": "1000",
    });
    const providers = {
      Flag: flagProviderText,
      FlagDefinition: flagDefinitionProviderText,
      Group: groupProviderText,
      UserInvite: userInviteProviderText,
    };
    const texts: Record<string, string> = {};
    let largest = 0;
    let leaked = 0;
    for (const [name, text] of Object.entries(providers)) {
      texts[name] = text;
      const stored = text.length;
      figures[`provider_state_bytes_${name}`] = stored;
      largest = Math.max(largest, stored);
      if (text.includes(emu.adminKey)) leaked = 1;
    }
    figures.provider_state_bytes = largest;
    figures.provider_state_secret = leaked;

    // A stack of N resources: groups, flags, one definition per flag, invitations.
    const n = quick ? 20 : 100;
    const stack: { kind: keyof typeof providers; program: Props; id: string; outs: Props }[] = [];
    const add = async (kind: keyof typeof providers, program: Props) => {
      const checked = await host.check({}, { ...program, __provider: texts[kind] });
      if (checked.failures.length > 0) throw new Error(`${kind}: ${JSON.stringify(checked.failures)}`);
      const created = await host.create(checked.inputs);
      stack.push({ kind, program, id: created.id, outs: created.properties });
    };
    for (let i = 0; stack.length < n; i++) {
      await add("Group", { name: `team-${i}`, description: `team ${i}` });
      await add("Flag", {
        workspace: "Default",
        name: `flag-${i}`,
        description: "bench",
        tags: ["bench", `t${i % 5}`],
        rolloutStatus: "Ramping",
      });
      await add("FlagDefinition", {
        workspace: "Default",
        flag: `flag-${i}`,
        environment: "Production",
        treatments: [
          { name: "on", configurations: { color: "green" }, keys: [`qa-${i}`] },
          { name: "off", description: "old" },
        ],
        defaultTreatment: "off",
        rules: [
          {
            condition: { matchers: [{ type: "IN_SEGMENT", string: "beta" }] },
            buckets: [{ treatment: "on", size: 100 }],
          },
        ],
        defaultRule: [
          { treatment: "on", size: 50 },
          { treatment: "off", size: 50 },
        ],
      });
      await add("UserInvite", { email: `user${i}@example.com`, groups: [`team-${i}`] });
    }
    log(`provider: stack of ${stack.length} resources created`);

    emu.resetRequests();
    let changes = 0;
    const started = performance.now();
    for (const r of stack) {
      const checked = await host.check(r.outs, { ...r.program, __provider: texts[r.kind] });
      const diff = await host.diff(r.id, r.outs, checked.inputs);
      if (diff.changes !== DIFF.NONE) changes++;
    }
    figures.preview_ms_per_resource = Math.round(((performance.now() - started) / stack.length) * 100) / 100;
    figures.preview_requests = emu.requests().length;
    figures.preview_changes = changes;

    const def = stack.find((r) => r.kind === "FlagDefinition");
    if (!def) throw new Error("no definition in the stack");
    const changed = {
      ...def.program,
      defaultRule: [
        { treatment: "on", size: 60 },
        { treatment: "off", size: 40 },
      ],
      __provider: texts.FlagDefinition,
    };
    const news = (await host.check(def.outs, changed)).inputs;
    proxy.reset();
    await host.update(def.id, def.outs, news);
    const writes = proxy.writes();
    figures.update_one_field_writes = writes.length;
    figures.update_one_field_requests = proxy.requests().length;
    const body = (writes[0]?.body ?? []) as { op: string }[];
    figures.update_one_field_patch_ops = body.length;
    figures.update_one_field_patch_changes = body.filter((o) => o.op !== "test").length;
  } finally {
    await host.stop();
    await proxy.stop();
    await emu.stop();
  }
  return figures;
}
