/**
 * `kill -9` of `pulumi up` + `flagstack recover` + `up` converging, over every kind of
 * `provider/kinds.ts` (issue 23, "Every kind under every attack, by construction").
 *
 * One Pulumi program (generated into a temporary directory) declares one resource of every kind,
 * each from its sample's inputs (`test/reliability/samples.ts`; what an object lives in is made
 * first through the kinds' own lifecycle in this process, and the inputs reach the program as
 * `inputs.json`). The program does `new (require("flagstack/provider")[kind])(name, inputs)` for
 * each, so a kind added to the list is declared, and attacked, without a new test; every round
 * fails unless the stack ends up holding exactly one resource of each kind of the list.
 *
 * The reference: one sample of every kind created and deleted through its own `create` and
 * `delete`, the requests an uninterrupted `up` of the program sends. What the emulator's state
 * file gains per collection (`census`) is what the program must add.
 *
 * Each round has its own stack and fresh samples, and SIGKILLs the whole process tree of `pulumi up`
 * at once (the CLI, the language host, the program, the provider hosts), as a CI runner or the OOM
 * killer does:
 * - creates made, never answered: a gate between the provider and the emulator forwards each write
 *   and holds its answer; every resource is created at once (`--parallel`), and the kill comes
 *   when the gate holds as many writes as the provider sends at a time. Those objects exist on the
 *   service, the creates queued behind them were never sent, and the state holds only pending
 *   creates;
 * - no create reached the service: the gate stalls each write instead;
 * - a run cut anywhere: killed once half the reference's writes have been answered, at the
 *   engine's own parallelism;
 * - issue 23's item 8, the CI path: creates made and never answered (the gate lets the writes of
 *   the shapes the first hold round held through, and holds the others: the creates that waited
 *   there, and the later steps of creates made in several), then the job retries `pulumi up`
 *   before anyone runs `recover` (after `pulumi cancel` when the killed run's lock is in the way);
 *   each resource the retry fails names `flagstack recover`.
 * Then `flagstack recover`, whose every `unknown` line is one the kinds say (checked exactly), and the
 * operator does what it says: revokes each key named in an ApiKey's (a kind whose look-up cannot
 * see its objects: nothing tells whether the lost create made a key), and before `destroy` the
 * SDK keys of each environment adopted without them. Then `up` succeeds, a preview shows no change
 * and writes nothing, the state holds one resource of every kind, each read back by the id
 * recorded, the census grew by the reference exactly (no duplicate, no orphan), and `destroy`
 * leaves the census as before the program with no kind's object left under its natural key. And
 * over the two hold rounds, every kind's create was made and never answered once and `recover`
 * adopted it, or, for a kind whose look-up cannot see its objects, reported it unknown while the
 * orphan it names existed.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { promisify } from "node:util";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { DEFAULTS } from "../../sdk/core/options";
import { censusDelta, checked, type KindBed, startKindBed } from "../reliability/kind-bed";
import { type KindUnderTest, kindsUnderTest } from "../reliability/samples";
import { EngineStack, pulumiCli, REPO_ROOT, type RequestRecord } from "./harness";

const execFileAsync = promisify(execFile);
type Props = Record<string, unknown>;

const kinds: KindUnderTest[] = kindsUnderTest();

/** The program: one resource per entry of `inputs.json`, of the kind its entry names. */
const PROGRAM = `import { readFileSync } from "node:fs";
import { join } from "node:path";

const provider: Record<string, new (name: string, args: unknown) => unknown> = require("flagstack/provider");
const spec = JSON.parse(readFileSync(join(__dirname, "inputs.json"), "utf8")) as {
  resources: { kind: string; name: string; inputs: Record<string, unknown> }[];
};
for (const { kind, name, inputs } of spec.resources) {
  const Kind = provider[kind];
  if (typeof Kind !== "function") throw new Error(\`flagstack/provider has no resource \${kind}\`);
  new Kind(name, inputs);
}
`;

/** Writes the program's directory (the harness copies it into each stack's sandbox); returns it. */
function writeProgram(): string {
  const dir = mkdtempSync(join(tmpdir(), "flagstack-kind-kill-"));
  writeFileSync(join(dir, "Pulumi.yaml"), "name: flagstack-kind-kill\nruntime: nodejs\nmain: index.ts\n");
  writeFileSync(
    join(dir, "package.json"),
    `${JSON.stringify({ name: "flagstack-kind-kill", private: true })}\n`,
  );
  writeFileSync(
    join(dir, "tsconfig.json"),
    readFileSync(join(REPO_ROOT, "test", "e2e", "programs", "stack", "tsconfig.json"), "utf8"),
  );
  writeFileSync(join(dir, "index.ts"), PROGRAM);
  return dir;
}

/**
 * A request's method and path with each part naming one object as `*` (an id), or `prefix_*` (a
 * sample's unique name `prefix_NNN`): the same for the same write of any sample of a kind, and
 * different for two kinds that write the same paths for objects of different names (a flag's
 * definition and a flag's definitions).
 */
function shape(method: string, path: string): string {
  const parts = path.split("/").map((p) => (/^[0-9a-f-]{20,}$/i.test(p) ? "*" : p.replace(/_\d+$/, "_*")));
  return `${method} ${parts.join("/")}`;
}

/** What the gate does with a write (reads always pass). */
type GateMode = "pass" | "hold" | "stall";

/** A proxy between the engine's provider and the emulator that can hold or stall every write. */
interface Gate {
  url: string;
  mode: GateMode;
  /** The {@link shape}s of the writes let through whatever the mode. */
  passing: Set<string>;
  /** `METHOD path` of each write held or stalled since the last {@link release}. */
  held: string[];
  /** When the last write was held or stalled (epoch ms). */
  lastHeld: number;
  /** Drops the held and stalled requests (their client is gone) and lets every write pass again. */
  release(): void;
  stop(): Promise<void>;
}

async function startGate(target: string): Promise<Gate> {
  let parked: ServerResponse[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks);
    const method = req.method ?? "GET";
    const url = new URL(req.url ?? "/", "http://gate");
    const mode: GateMode =
      method === "GET" || gate.passing.has(shape(method, url.pathname)) ? "pass" : gate.mode;
    const park = () => {
      gate.held.push(`${method} ${url.pathname}`);
      gate.lastHeld = Date.now();
      parked.push(res);
    };
    if (mode === "stall") return park();
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers))
      if (typeof v === "string" && !["host", "connection", "content-length"].includes(k)) headers[k] = v;
    try {
      const upstream = await fetch(new URL(url.pathname + url.search, target), {
        method,
        headers,
        ...(raw.length > 0 ? { body: raw } : {}),
      });
      const body = Buffer.from(await upstream.arrayBuffer());
      if (mode === "hold") return park();
      const out: Record<string, string> = {};
      upstream.headers.forEach((v, k) => {
        if (!["content-length", "transfer-encoding", "connection", "content-encoding"].includes(k))
          out[k] = v;
      });
      res.writeHead(upstream.status, out);
      res.end(body);
    } catch (e) {
      res.writeHead(502);
      res.end(String(e));
    }
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const gate: Gate = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    mode: "pass",
    passing: new Set(),
    held: [],
    lastHeld: 0,
    release() {
      for (const res of parked) res.destroy();
      parked = [];
      gate.held = [];
      gate.mode = "pass";
      gate.passing = new Set();
    },
    stop: () =>
      new Promise<void>((r) => {
        gate.release();
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
  return gate;
}

/** A write to the APIs proper. */
const isWrite = (r: RequestRecord) => r.api !== "emulator" && r.method !== "GET";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `pid`'s state letter and parent, from /proc (Linux); `undefined` when it is gone. */
function procStat(pid: number): { state: string; ppid: number } | undefined {
  try {
    // pid (comm) state ppid ...: comm may hold spaces, so read after its closing parenthesis.
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const [state = "", ppid = "0"] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return { state, ppid: Number(ppid) };
  } catch {
    return undefined;
  }
}

/** `root` and every process descending from it. */
function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = procStat(Number(entry));
    if (stat) children.set(stat.ppid, [...(children.get(stat.ppid) ?? []), Number(entry)]);
  }
  const tree = [root];
  for (let i = 0; i < tree.length; i++) tree.push(...(children.get(tree[i] as number) ?? []));
  return tree;
}

/** Those of `pids` still running (a zombie waiting for its parent runs nothing). */
const running = (pids: readonly number[]) =>
  pids.filter((p) => ![undefined, "Z"].includes(procStat(p)?.state));

/**
 * SIGKILL of `root` and all its descendants at once, as a CI runner or the OOM killer ends a job:
 * the engine starts its plugins (language host, provider hosts) in process groups of their own, so
 * a group kill would miss them. The tree is stopped first (SIGSTOP) until no new process appears,
 * so that none is left behind or gets a moment to act on the others' deaths. Returns the pids.
 */
function killTree(root: number): number[] {
  const stopped = new Set<number>();
  for (;;) {
    const fresh = processTree(root).filter((p) => !stopped.has(p));
    if (fresh.length === 0) break;
    for (const p of fresh) {
      stopped.add(p);
      try {
        process.kill(p, "SIGSTOP");
      } catch {
        // gone meanwhile
      }
    }
  }
  for (const p of stopped) {
    try {
      process.kill(p, "SIGKILL");
    } catch {
      // gone meanwhile
    }
  }
  return [...stopped];
}

/**
 * Each flagstack resource's error in a failed command's `Diagnostics:`, by resource name (the
 * stack's own summary left out).
 */
function resourceErrors(output: string): Record<string, string> {
  const from = output.indexOf("Diagnostics:");
  const to = output.indexOf("\nResources:", from);
  const text = from < 0 ? "" : output.slice(from, to < 0 ? undefined : to);
  const out: Record<string, string> = {};
  for (const section of text.split(/\n {2}(?=\S)/).slice(1)) {
    const head = /^pulumi-nodejs:dynamic\/flagstack:\w+ \((\w+)\):/.exec(section);
    if (head?.[1]) out[head[1]] = section.slice(head[0].length).replace(/\s+/g, " ").trim();
  }
  return out;
}

/** The signature of a secret in Pulumi's state: `{ [SECRET_SIG]: ..., plaintext | ciphertext }`. */
const SECRET_SIG = "4dabf18193072939515e22adb298388d";

/**
 * `v` with each secret of a `--show-secrets` export replaced by its value, as the engine hands it
 * to a provider.
 */
function revealed(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(revealed);
  if (v === null || typeof v !== "object") return v;
  const o = v as Props;
  if (SECRET_SIG in o && typeof o.plaintext === "string") return revealed(JSON.parse(o.plaintext));
  return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, revealed(x)]));
}

/** How long each step of the running round took, printed with it (the file's budget: ~3 min on 2 cores). */
const laps: string[] = [];
async function timed<T>(label: string, step: () => Promise<T>): Promise<T> {
  const started = Date.now();
  try {
    return await step();
  } finally {
    laps.push(`${label} ${((Date.now() - started) / 1000).toFixed(1)}s`);
  }
}

/** One round's program: each kind's checked inputs, and the census before the program. */
interface Round {
  checkedInputs: Record<string, Props>;
  before: Record<string, number>;
  /** A hold round: what recover adopts counts towards every kind's being adopted once. */
  adopts?: boolean;
}

describe.skipIf(process.platform !== "linux")(
  "kill -9 of pulumi up over every kind, flagstack recover, up converges",
  () => {
    let bed: KindBed;
    let gate: Gate;
    /** The running round's stack: each round has its own, so a round's failure stays its own. */
    let s: EngineStack | undefined;
    let pulumiBin: string;
    let programSource: string;
    /** What one object of every kind adds to the emulator's state file, per collection. */
    let reference: Record<string, number> | undefined;
    /** How many writes creating one object of every kind takes. */
    let writes = 0;
    /**
     * The kinds `recover` adopted after their create was made and never answered (the hold rounds),
     * and those it reported unknown whose orphan the operator then found and revoked.
     */
    const adopted = new Set<string>();

    beforeAll(async () => {
      bed = await startKindBed();
      // The bed names a stack for the in-process provider; the engine's processes get their own.
      delete process.env.PULUMI_NODEJS_PROJECT;
      delete process.env.PULUMI_NODEJS_STACK;
      gate = await startGate(bed.emu.url);
      programSource = writeProgram();
      pulumiBin = (await pulumiCli()).command;
    });
    afterEach(async () => {
      if (laps.length > 0) console.info(laps.splice(0).join(", "));
      gate.release();
      await s?.close();
      s = undefined;
    });
    afterAll(async () => {
      await gate?.stop();
      await bed?.stop();
      if (programSource) rmSync(programSource, { recursive: true, force: true });
    });

    const stack = (): EngineStack => {
      if (!s) throw new Error("no stack: prepare() first");
      return s;
    };
    const env = () => ({
      ...process.env,
      ...stack().env,
      PATH: `${dirname(pulumiBin)}${delimiter}${stack().env.PATH}`,
    });

    /** Fresh samples of every kind (what they live in made first): the inputs, by kind. */
    async function samples(): Promise<{ raw: Record<string, Props>; checkedInputs: Record<string, Props> }> {
      const raw: Record<string, Props> = {};
      const checkedInputs: Record<string, Props> = {};
      for (const kind of kinds) {
        raw[kind.name] = await kind.sample.inputs(bed.ctx);
        checkedInputs[kind.name] = await checked(kind.name, raw[kind.name] as Props);
      }
      return { raw, checkedInputs };
    }

    /** A fresh stack of the program (its provider behind the gate), fresh samples as its inputs. */
    async function prepare(): Promise<Round> {
      s = await timed("stack", () =>
        EngineStack.open({
          program: programSource,
          sharedEmulator: bed.emu,
          config: {
            "flagstack:adminApiUrl": { value: gate.url },
            "flagstack:platformApiUrl": { value: gate.url },
          },
          // The program is a few lines of untyped lookups: type checking it would only cost time.
          env: { PULUMI_NODEJS_TRANSPILE_ONLY: "true" },
        }),
      );
      const { raw, checkedInputs } = await timed("samples", samples);
      const resources = kinds.map((k) => ({ kind: k.name, name: k.name, inputs: raw[k.name] }));
      writeFileSync(join(s.programDir, "inputs.json"), `${JSON.stringify({ resources }, null, 2)}\n`);
      return { checkedInputs, before: await bed.census() };
    }

    /** `flagstack recover` on the round's stack; its output. */
    async function recover(): Promise<string> {
      try {
        const { stdout } = await execFileAsync(
          process.execPath,
          [join(REPO_ROOT, "bin", "flagstack.js"), "recover", "--stack", "e2e", "--cwd", stack().programDir],
          { env: env(), maxBuffer: 1 << 26 },
        );
        return stdout;
      } catch (e) {
        const { stdout = "", stderr = "" } = e as { stdout?: string; stderr?: string };
        throw new Error(`flagstack recover failed:\n${stdout}\n${stderr}`);
      }
    }

    /**
     * `pulumi up` (with `args`), its whole process tree SIGKILLed as soon as `due()` holds; fails
     * when the run ended before (the round would test nothing) or a process of it survived.
     */
    async function killedUp(due: () => boolean, args: string[] = []): Promise<void> {
      const child: ChildProcess = spawn(
        pulumiBin,
        ["up", "--yes", "--skip-preview", "--non-interactive", "--stack", "e2e", ...args],
        { cwd: stack().programDir, env: env(), stdio: "ignore" },
      );
      let ended = false;
      const exited = new Promise<void>((resolve) =>
        child.once("exit", () => {
          ended = true;
          resolve();
        }),
      );
      while (!ended && !due()) await sleep(5);
      const killed = !ended;
      const tree = killed ? killTree(child.pid as number) : [];
      await exited;
      for (let i = 0; i < 100 && running(tree).length > 0; i++) await sleep(50);
      // The CLI, the language host, the program and a provider host at least.
      expect({ killed, processes: tree.length >= 4, running: running(tree) }).toEqual({
        killed: true,
        processes: true,
        running: [],
      });
    }

    /**
     * The gate is full: it holds as many writes as the provider sends at once (each API's client
     * has `DEFAULTS.maxConcurrent` requests in flight at most; the writes after those wait in its
     * queue, their creates pending in the state and never sent), or nothing more came for 4 s.
     */
    const gateFull = (capacity: number) => () =>
      gate.held.length >= capacity || (gate.held.length > 0 && Date.now() - gate.lastHeld > 4000);

    /** The shapes of the writes the first hold round held: the second lets them through. */
    let firstHeld: string[] = [];

    /**
     * `pulumi up` killed with the gate holding (`hold`) or stalling (`stall`) every write it got,
     * but for those of the shapes `passing`; returns the shapes of the writes it held.
     */
    async function killedAtTheGate(
      mode: "hold" | "stall",
      passing: readonly string[] = [],
    ): Promise<string[]> {
      gate.mode = mode;
      gate.passing = new Set(passing);
      const capacity =
        passing.length > 0 ? Number.POSITIVE_INFINITY : Math.min(kinds.length, 2 * DEFAULTS.maxConcurrent);
      // Every resource at once, so that the creates the provider sends first fill the gate.
      await timed("killed up", () => killedUp(gateFull(capacity), ["--parallel", String(kinds.length * 2)]));
      const held = gate.held.map((h) => shape(...(h.split(" ") as [string, string])));
      console.info(`killed with ${held.length} writes ${mode === "hold" ? "held" : "stalled"}`);
      gate.release();
      return held;
    }

    /**
     * After `up` succeeded: a preview with no change and no write; one resource of every kind,
     * each read back by its recorded id; the census grown by the reference exactly. Then `destroy`
     * leaves the census as before the program, and no kind's object is found by its natural key.
     */
    async function expectConvergedThenDestroy(
      round: Round,
      beforeDestroy?: () => Promise<void>,
    ): Promise<void> {
      const preview = await timed("preview", () => stack().preview());
      expect(preview.result.changeSummary).toEqual({ same: kinds.length + 1 });
      expect(preview.requests.filter(isWrite)).toEqual([]);

      const { deployment } = (await timed("export", () => stack().stack.exportStack())) as {
        deployment: { resources?: { type: string; urn: string; id?: string; outputs?: Props }[] };
      };
      const state = (deployment.resources ?? []).filter(
        (r) => r.type !== "pulumi:pulumi:Stack" && !r.type.startsWith("pulumi:providers:"),
      );
      expect(
        Object.fromEntries(state.map((r) => [r.urn.slice(r.urn.lastIndexOf("::") + 2), r.type])),
      ).toEqual(Object.fromEntries(kinds.map((k) => [k.name, k.dynamicToken])));
      const unread: string[] = [];
      for (const r of state) {
        const kind = kinds.find((k) => k.dynamicToken === r.type) as KindUnderTest;
        const read = await kind.impl.read(r.id ?? "", revealed(r.outputs ?? {}) as Props);
        if (read.id !== r.id) unread.push(`${kind.name}: read ${String(read.id)}, recorded ${r.id}`);
      }
      expect(unread).toEqual([]);
      expect(censusDelta(round.before, await bed.census())).toEqual(reference);

      await beforeDestroy?.();
      expect((await timed("destroy", () => stack().destroy())).result.summary.result).toBe("succeeded");
      expect(censusDelta(round.before, await bed.census())).toEqual({});
      const left: string[] = [];
      for (const kind of kinds) {
        if (kind.sample.noRead) continue;
        if ((await kind.impl.lookup(round.checkedInputs[kind.name] as Props)) !== undefined)
          left.push(kind.name);
      }
      expect(left).toEqual([]);
    }

    /**
     * `flagstack recover` (the resources it reports as recovered noted as adopted in a hold round),
     * then `up` converges (see {@link expectConvergedThenDestroy}).
     */
    async function expectRecovered(round: Round, settled?: Record<string, string>): Promise<void> {
      const report = await timed("recover", recover);
      console.info(`flagstack recover:\n${report}`);
      const lines = [...report.matchAll(/^(\w+(?: pending)?) urn:\S*::(\w+)(?: \(id (\S+)\))?: (.*)$/gm)].map(
        (m) => ({ outcome: m[1] as string, kind: m[2] as string, id: m[3], text: m[4] as string }),
      );
      if (settled) expect(Object.fromEntries(lines.map((l) => [l.kind, l.outcome]))).toEqual(settled);
      if (round.adopts) for (const l of lines) if (l.outcome === "recovered") adopted.add(l.kind);
      // What recover cannot know, each said exactly as the kind says it, and done as it says.
      const keyless: string[] = [];
      const unexpected: string[] = [];
      for (const l of lines.filter((x) => x.outcome === "unknown")) {
        const kind = kinds.find((k) => k.name === l.kind) as KindUnderTest;
        const inputs = round.checkedInputs[l.kind] as Props;
        const recoveredId = lines.find((x) => x.kind === l.kind && x.outcome === "recovered")?.id;
        const recordedId = lines.some((x) => x.kind === l.kind && x.text.startsWith("a later update"))
          ? await recordedIdOf(l.kind)
          : undefined;
        if (recoveredId !== undefined && l.kind === "Environment") {
          const ws = (await bed.ctx.admin.workspaces.getByName("Default"))?.name;
          expect(l.text).toBe(
            `adopted environment "${inputs.name}" in workspace "${ws}"; its SDK keys are unknown (the create's answer was lost): revoke them in the admin settings before \`pulumi destroy\``,
          );
          keyless.push(recoveredId);
        } else if (recoveredId !== undefined && l.kind === "ApiKey") {
          expect(l.text).toBe(
            `adopted API key "${inputs.name}" (id ${recoveredId}); its key was shown only in the create's answer, which was lost: the next \`pulumi up\` replaces it (a new key, then this one revoked)`,
          );
        } else if (kind.impl.unseen !== undefined && recoveredId === undefined) {
          expect(l.text).toBe(kind.impl.unseen(inputs, recordedId));
          // The operator revokes any key of that name the state does not record.
          const orphans = emulatorKeys().filter((k) => k.name === inputs.name && k.id !== recordedId);
          for (const k of orphans) await bed.ctx.admin.apiKeys.revoke(k.id);
          console.info(`revoked ${orphans.length} orphaned key(s) named ${String(inputs.name)}`);
          if (round.adopts && orphans.length > 0) adopted.add(l.kind);
        } else unexpected.push(`${l.outcome} ${l.kind}: ${l.text}`);
      }
      expect(unexpected).toEqual([]);
      const { result } = await timed("up", () => stack().up());
      expect(result.summary.result).toBe("succeeded");
      await expectConvergedThenDestroy(round, async () => {
        // The operator revokes the SDK keys of each environment adopted without them.
        for (const envId of keyless)
          for (const k of emulatorKeys().filter((x) => x.type === "sdk" && x.environments?.[0] === envId))
            await bed.ctx.admin.apiKeys.revoke(k.id);
      });
    }

    /** The keys the emulator holds (what the admin settings show), from its state file. */
    function emulatorKeys(): { id: string; name: string; type: string; environments?: string[] }[] {
      const state = JSON.parse(readFileSync(bed.emu.statePath as string, "utf8")) as { keys?: unknown };
      const keys = state.keys as Record<string, unknown> | unknown[] | undefined;
      return (Array.isArray(keys) ? keys : Object.values(keys ?? {})) as {
        id: string;
        name: string;
        type: string;
        environments?: string[];
      }[];
    }

    /** The id the round's stack records for the resource named `name`. */
    async function recordedIdOf(name: string): Promise<string | undefined> {
      const { deployment } = (await stack().stack.exportStack()) as {
        deployment: { resources?: { urn: string; id?: string }[] };
      };
      return deployment.resources?.find((r) => r.urn.endsWith(`::${name}`))?.id;
    }

    it("the reference: one object of every kind through its own create, then delete", async () => {
      const { checkedInputs } = await samples();
      const before = await bed.census();
      const start = bed.emu.requests().length;
      const made: { kind: KindUnderTest; id: string; outs: Props }[] = [];
      for (const kind of kinds) {
        const { id, outs } = await kind.impl.create(checkedInputs[kind.name]);
        made.push({ kind, id, outs: outs as Props });
      }
      writes = bed.emu.requests().slice(start).filter(isWrite).length;
      reference = censusDelta(before, await bed.census());
      console.info(`${kinds.length} kinds, ${writes} writes, census delta ${JSON.stringify(reference)}`);
      for (const { kind, id, outs } of made.reverse()) await kind.impl.delete(id, outs);
      expect(censusDelta(before, await bed.census())).toEqual({});
      // Every kind adds to the state file, and creating them takes a write each at least.
      expect(writes).toBeGreaterThanOrEqual(kinds.length);
      expect(Object.values(reference).reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(kinds.length);
    });

    it("creates made, never answered: recover adopts them, up converges with each object once, destroy leaves nothing", async () => {
      expect(reference).toBeDefined();
      const round = { ...(await prepare()), adopts: true };
      firstHeld = await killedAtTheGate("hold");
      await expectRecovered(round);
    });

    it("no create reached the service: recover clears them, up converges with each object once, destroy leaves nothing", async () => {
      expect(reference).toBeDefined();
      const round = await prepare();
      await killedAtTheGate("stall");
      // Nothing was made: each kind's pending create cleared, but a kind whose look-up cannot see
      // its objects, which can only say that a create may have made one.
      await expectRecovered(
        round,
        Object.fromEntries(kinds.map((k) => [k.name, k.impl.unseen ? "unknown" : "cleared"])),
      );
    });

    it("killed once half the writes were answered: recover, up converges with each object once, destroy leaves nothing", async () => {
      expect(reference).toBeDefined();
      const round = await prepare();
      const start = bed.emu.requests().length;
      const half = Math.ceil(writes / 2);
      await timed("killed up", () =>
        killedUp(() => bed.emu.requests().slice(start).filter(isWrite).length >= half),
      );
      await expectRecovered(round);
    });

    it("creates made, never answered, the job retries up before recover (issue 23 item 8): each failure names recover; recover, up converges", async () => {
      expect(reference).toBeDefined();
      // The writes held in the first hold round go through here, and the ones that waited are held.
      const round = { ...(await prepare()), adopts: true };
      await killedAtTheGate("hold", firstHeld);
      const retry = async (): Promise<string> => {
        try {
          await timed("retried up", () => stack().up());
          return "";
        } catch (e) {
          return (e as Error).message;
        }
      };
      let failure = await retry();
      if (/currently locked/.test(failure)) {
        await stack().cli(["cancel", "--yes"]);
        failure = await retry();
      }
      const errors = resourceErrors(failure);
      console.info(`the retried up: ${failure === "" ? "succeeded" : JSON.stringify(errors, null, 1)}`);
      await expectRecovered(round);
      const silent = Object.entries(errors).filter(([, message]) => !message.includes("flagstack recover"));
      expect(Object.fromEntries(silent)).toEqual({});
    });

    it("over the two hold rounds, recover adopted every kind whose create was made and never answered (or reported the orphan a kind that cannot look its objects up may leave)", () => {
      // The first hold round holds the first writes the provider sends, the second every write of
      // another shape: every kind's create is among the held ones once.
      expect(kinds.map((k) => k.name).filter((name) => !adopted.has(name))).toEqual([]);
    });
  },
);
