/**
 * After a killed `tofu apply` or `tofu destroy`, `npx flagstack terraform recover` and the next
 * `tofu apply` converge with nothing but the configuration, the state and the service (issue 34:
 * "Terraform users get the same safety"). The real OpenTofu against the emulator, in a temporary
 * directory outside the repository; per seed, in its own workspace (so its own state and flag
 * names):
 * 1. `tofu apply` of 40 flags (`for_each`) and their definitions in Production (`count`), slowed
 *    by the provider's `requests_per_second`, is SIGKILLed at a moment drawn from the seed after
 *    its first request; its provider exits with it (provider/terraform/parent-watch.ts);
 * 2. the objects on the service that the state does not hold are counted (the killed run's
 *    creates answered too late to be recorded);
 * 3. (first seed) a `tofu apply` run first fails on each object the killed run made, its message naming the
 *    `import` block (type and import id) and `npx flagstack terraform recover`, never Pulumi's words;
 *    then `flagstack terraform recover --tofu <tofu>` (the built command, run in the configuration's
 *    directory) names exactly those, each with its address and import id, and writes exactly their
 *    `import` blocks into `flagstack-recovered.tf` (nothing when there are none);
 * 4. `tofu apply` imports them with no write of theirs (a POST for each object not on the service,
 *    nothing else), and the service then holds every object once: 40 flags, no name twice, 40
 *    definitions; `recover` again finds nothing and removes its file;
 * 5. the same for a `tofu destroy` SIGKILLed at a moment drawn from the seed after its first state
 *    write (the definitions whose delete the provider held back for their flag's are then out of
 *    the state and still on the service: recover finds some), then `recover`, then `tofu apply`;
 * 6. `tofu destroy` leaves nothing of the workspace's flags.
 * The seeds are fixed, so each kill moment is the same on every run; `FLAGSTACK_TF_RECOVER_SEEDS`
 * (comma-separated) replays others. Each round prints its kill moments and what was recovered.
 */
import { execFile, spawn } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Emulator, startEmulator } from "../../emulator";
import { mulberry32 } from "../../emulator/middleware/faults";
import { importBlocksText, parseImportBlocks } from "../../provider/terraform/recover";
import type { AdminClient } from "../../sdk";
import { clients, defaultWorkspaceId } from "./fixtures";
import { apiRequests, REPO_ROOT } from "./harness";
import { PROVIDER_HCL, TofuDir, writes } from "./tofu";

const run = promisify(execFile);
const SEEDS = (process.env.FLAGSTACK_TF_RECOVER_SEEDS ?? "34,3434,343434").split(",").map(Number);
const FLAGS = 40;
/**
 * The killed runs: their request rate, and the span their kill is drawn from (ms after the run's
 * first request, or after its first state write). OpenTofu writes a run's state every 20 s of its
 * apply walk (`TF_STATE_PERSIST_INTERVAL`, at least 20) and at its end. The apply (40 flags and
 * definitions, about 8 s at 20 requests a second) is killed before its first write: the state holds
 * none of what it made. The destroy is slowed to run past its first write (the flags' DELETEs at 1
 * request a second) and killed after it: the state then holds the flags not yet deleted but none of
 * the definitions, whose deletes the provider held back for their flag's
 * (provider/terraform/held-deletes.ts) and dropped at the kill.
 */
const KILLS = {
  apply: { rps: 20, afterStateWrite: false, minMs: 300, maxMs: 5000 },
  destroy: { rps: 1, afterStateWrite: true, minMs: 0, maxMs: 2000 },
} as const;
const FILE = "flagstack-recovered.tf";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The seed's kill delay of a run: the first number drawn for the apply, the second for the destroy. */
function killDelay(seed: number, run: keyof typeof KILLS): number {
  const random = mulberry32(seed);
  if (run === "destroy") random();
  const { minMs, maxMs } = KILLS[run];
  return minMs + Math.floor(random() * (maxMs - minMs));
}

const key = (i: number) => `k${String(i).padStart(2, "0")}`;

const CONFIG = `${PROVIDER_HCL}
locals {
  keys = toset([for i in range(${FLAGS}) : format("k%02d", i)])
}

resource "flagstack_flag" "f" {
  for_each  = local.keys
  workspace = "Default"
  name      = "\${terraform.workspace}-\${each.key}"
}

resource "flagstack_flag_definition" "d" {
  count             = ${FLAGS}
  workspace         = "Default"
  flag              = flagstack_flag.f[format("k%02d", count.index)].name
  environment       = "Production"
  treatments        = [{ name = "on" }, { name = "off" }]
  default_treatment = "off"
}
`;

describe.skipIf(process.platform !== "linux")(
  `a killed tofu apply or destroy, recovered (seeds ${SEEDS.join(", ")})`,
  () => {
    let emu: Emulator;
    let admin: AdminClient;
    let t: TofuDir;
    let wsId: string;
    let productionId: string;
    /** Objects recovered over all rounds (the suite checks that the kills left some). */
    let recoveredTotal = 0;

    beforeAll(async () => {
      emu = await startEmulator({ port: 0 });
      admin = clients(emu).admin;
      wsId = await defaultWorkspaceId(admin);
      productionId = (
        (await admin.environments.list(wsId)).find((e) => e.name === "Production") as { id: string }
      ).id;
      t = TofuDir.open(emu);
      t.write(CONFIG);
      const init = await t.tf(["init"]);
      expect(init.code, init.out).toBe(0);
    });
    afterAll(async () => {
      t?.close();
      await emu?.stop();
    });

    /** The workspace's objects on the service: flag names and the flags with a definition in Production. */
    async function onService(ws: string): Promise<{ flags: string[]; definitions: string[] }> {
      const flags: string[] = [];
      for await (const f of admin.flags.list(wsId)) if (f.name.startsWith(`${ws}-`)) flags.push(f.name);
      const definitions: string[] = [];
      for await (const d of admin.definitions.list(wsId, productionId))
        if (d.name.startsWith(`${ws}-`)) definitions.push(d.name);
      return { flags: flags.sort(), definitions: definitions.sort() };
    }

    /** The addresses the state holds (`tofu state list`); none when there is no state yet. */
    async function stateAddresses(): Promise<string[]> {
      const list = await t.tf(["state", "list"]);
      // A run killed before OpenTofu first wrote its state (it persists the state every 20 s, and at the end).
      if (list.code !== 0 && list.out.includes("No state file was found")) return [];
      expect(list.code, list.out).toBe(0);
      return list.out.split("\n").filter((l) => l.startsWith("flagstack_"));
    }

    /** The blocks recover must write: each object on the service whose address the state lacks. */
    function missing(ws: string, service: { flags: string[]; definitions: string[] }, state: string[]) {
      const blocks: { address: string; id: string }[] = [];
      for (let i = 0; i < FLAGS; i++) {
        const name = `${ws}-${key(i)}`;
        const flag = `flagstack_flag.f["${key(i)}"]`;
        if (service.flags.includes(name) && !state.includes(flag))
          blocks.push({ address: flag, id: `Default/${name}` });
      }
      for (let i = 0; i < FLAGS; i++) {
        const name = `${ws}-${key(i)}`;
        const def = `flagstack_flag_definition.d[${i}]`;
        if (service.definitions.includes(name) && !state.includes(def))
          blocks.push({ address: def, id: `Default/${name}/Production` });
      }
      return blocks;
    }

    /**
     * Starts `tofu <run> -auto-approve` in workspace `ws`, slowed; SIGKILLs it `delay` ms after its
     * first request (or after its first state write); waits for its provider to stop.
     */
    async function killed(ws: string, run: keyof typeof KILLS, delay: number): Promise<void> {
      const before = emu.requests().length;
      const stateFile = join(t.dir, "terraform.tfstate.d", ws, "terraform.tfstate");
      const written = () => (existsSync(stateFile) ? statSync(stateFile).mtimeMs : 0);
      const start = written();
      const rps = `-var=requests_per_second=${KILLS[run].rps}`;
      const child = spawn(t.tofu, [run, "-auto-approve", "-no-color", "-input=false", rps], {
        cwd: t.dir,
        env: t.env,
        stdio: "ignore",
      });
      let ended = false;
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve())).then(() => {
        ended = true;
      });
      while (!ended && apiRequests(emu.requests().slice(before)).length === 0) await sleep(10);
      if (KILLS[run].afterStateWrite) while (!ended && written() === start) await sleep(10);
      await Promise.race([exited, sleep(delay)]);
      expect(ended ? "the run ended before the kill" : "killed while running").toBe("killed while running");
      child.kill("SIGKILL");
      await exited;
      // The provider sees its parent gone within 500 ms and sends nothing later than 1 s after the
      // kill (test/e2e/orphan-provider.test.ts).
      await sleep(1500);
    }

    /** `flagstack terraform recover` as docs/terraform.md shows it, in the configuration's directory. */
    async function recover(): Promise<{ code: number; out: string }> {
      try {
        const r = await run(
          process.execPath,
          [join(REPO_ROOT, "bin", "flagstack.js"), "terraform", "recover", "--tofu", t.tofu],
          { cwd: t.dir, env: t.env },
        );
        return { code: 0, out: r.stdout + r.stderr };
      } catch (e) {
        const err = e as { code?: number; stdout?: string; stderr?: string };
        return { code: err.code ?? 1, out: (err.stdout ?? "") + (err.stderr ?? "") };
      }
    }

    /**
     * The apply a user runs first after a kill: it fails on each object the killed run made, naming
     * the `import` block (type and import id) and `npx flagstack terraform recover`, in Terraform's
     * words only; it records what it made.
     */
    async function applyWithoutRecovery(ws: string): Promise<void> {
      const first = missing(ws, await onService(ws), await stateAddresses())[0];
      if (first === undefined) return;
      const apply = await t.tf(["apply", "-auto-approve"]);
      const out = apply.out.replace(/\s+/g, " ");
      expect(apply.code, apply.out).not.toBe(0);
      const type = first.address.slice(0, first.address.indexOf("."));
      expect(out).toContain(`\`import { to = ${type}.<name> id = ${JSON.stringify(first.id)} }\``);
      expect(out).toContain("run `npx flagstack terraform recover`");
      expect(out).not.toMatch(/pulumi|adopt: true|npx flagstack recover/i);
    }

    /**
     * After a kill: recover names exactly the objects on the service the state lacks and writes their
     * blocks; the apply imports them with no write of theirs and creates the rest; every object is on
     * the service once; recover again removes its file. Returns how many were recovered.
     */
    async function recoverAndApply(ws: string, label: string): Promise<number> {
      const expected = missing(ws, await onService(ws), await stateAddresses());
      const r = await recover();
      expect(r.code, r.out).toBe(0);
      const file = join(t.dir, FILE);
      if (expected.length === 0) {
        expect(r.out).toContain("nothing to recover: wrote nothing");
        expect(existsSync(file)).toBe(false);
      } else {
        expect(parseImportBlocks(readFileSync(file, "utf8"))).toEqual(expected);
        expect(readFileSync(file, "utf8")).toBe(importBlocksText(expected));
        for (const b of expected) expect(r.out).toContain(`  found ${b.address}: ${b.id} (created `);
        expect(r.out).toContain(`wrote ${expected.length} import block(s) to ${file}`);
      }
      const before = await onService(ws);
      const absent = 2 * FLAGS - before.flags.length - before.definitions.length;
      const apply = await t.tf(["apply", "-auto-approve"]);
      expect(apply.code, apply.out).toBe(0);
      expect(apply.out).toContain(
        `Apply complete! Resources: ${expected.length > 0 ? `${expected.length} imported, ` : ""}${absent} added, 0 changed, 0 destroyed.`,
      );
      // A POST for each object not on the service, nothing else: the recovered ones cost no write.
      const sent = writes(apply.requests);
      expect(sent).toHaveLength(absent);
      expect(sent.every((w) => w.startsWith("POST "))).toBe(true);
      const after = await onService(ws);
      const names = Array.from({ length: FLAGS }, (_, i) => `${ws}-${key(i)}`);
      expect(after).toEqual({ flags: names, definitions: names });
      const again = await recover();
      expect(again.code, again.out).toBe(0);
      expect(existsSync(file)).toBe(false);
      expect(again.out).toContain("every object the configuration declares is in the state");
      console.info(
        `${label}: ${expected.length} recovered (${expected.filter((b) => b.address.startsWith("flagstack_flag.")).length} flags), ${absent} created`,
      );
      return expected.length;
    }

    it.each(SEEDS)(
      "seed %i: kill -9 of apply, recover, apply; kill -9 of destroy, recover, apply; destroy leaves nothing",
      async (seed) => {
        const ws = `r${seed}`;
        const made = await t.tf(["workspace", "new", ws]);
        expect(made.code, made.out).toBe(0);
        const applyDelay = killDelay(seed, "apply");
        await killed(ws, "apply", applyDelay);
        // What a user runs first after a kill (once: a full apply more per seed).
        if (seed === SEEDS[0]) await applyWithoutRecovery(ws);
        recoveredTotal += await recoverAndApply(ws, `seed ${seed}, apply killed after ${applyDelay} ms`);
        const destroyDelay = killDelay(seed, "destroy");
        await killed(ws, "destroy", destroyDelay);
        const held = await recoverAndApply(
          ws,
          `seed ${seed}, destroy killed ${destroyDelay} ms after its first state write`,
        );
        // The definitions whose delete was held for a flag not yet deleted: out of the state, on the service.
        expect(held).toBeGreaterThan(0);
        recoveredTotal += held;
        const destroy = await t.tf(["destroy", "-auto-approve"]);
        expect(destroy.code, destroy.out).toBe(0);
        expect(await onService(ws)).toEqual({ flags: [], definitions: [] });
      },
    );

    it("the kills left objects to recover", () => {
      expect(recoveredTotal).toBeGreaterThan(0);
    });
  },
);
