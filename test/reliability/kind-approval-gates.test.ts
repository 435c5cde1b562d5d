/**
 * Approval gates, on every kind of `provider/kinds.ts` that writes into a feature-flag environment
 * (through its sample): in an environment whose change permissions require approvals, the kind's
 * create, update and delete each go through a change request or are refused saying why, and none
 * of them, nor the delete of the object the kind lives in (`deletedWith`), changes the gated
 * environment directly. A kind whose inputs name an environment must say which input that is, or
 * why its writes are not gated.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as provider from "../../provider";
import type { Owner } from "../../provider/core/resource";
import { checked, type KindBed, plainJson, startKindBed } from "./kind-bed";
import { type KindUnderTest, kindsUnderTest } from "./samples";

type Props = Record<string, unknown>;
const kinds = kindsUnderTest();

/** The kinds whose inputs name an environment (`environment`, `environments`, or a map by environment: `definitions`). */
const naming = kinds.filter((k) =>
  ["environment", "environments", "definitions"].some((i) => i in k.inputs.shape),
);
const gated = kinds.filter((k) => k.sample.environmentInput !== undefined);

let bed: KindBed;
let approvers: { type: string; id: string }[];
beforeAll(async () => {
  bed = await startKindBed();
  const group = await bed.ctx.admin.groups.create({ name: bed.ctx.unique("approvers") });
  approvers = [{ type: "group", id: group.id }];
});
afterAll(async () => {
  await bed?.stop();
});

describe("the kinds of the list", () => {
  it("each name the environment they write into, or say why their writes are not gated", () => {
    const undeclared = naming
      .filter((k) => k.sample.environmentInput === undefined && k.sample.notGated === undefined)
      .map((k) => k.name);
    expect(undeclared).toEqual([]);
    expect(gated.length).toBeGreaterThan(0);
  });
});

/** A new environment of the Default workspace, gated from the start or not. */
async function environment(approvalsRequired: boolean) {
  const env = await bed.ctx.make("Environment", {
    changePermissions: { areApprovalsRequired: approvalsRequired, approvers },
  });
  return { id: env.id, name: env.outs.name as string, outs: env.outs, inputs: env.inputs };
}

/** Turns approvals on in an environment made by {@link environment}. */
async function gate(env: Awaited<ReturnType<typeof environment>>) {
  const impl = kinds.find((k) => k.name === "Environment")?.impl;
  if (!impl) throw new Error("no Environment kind");
  await impl.update(
    env.id,
    env.outs,
    await checked("Environment", {
      ...env.inputs,
      changePermissions: { areApprovalsRequired: true, approvers },
    }),
  );
}

/**
 * The successful writes sent into `env` other than change requests, dry runs (which change
 * nothing: how change permissions are read) and those the sample says carry no targeting: the
 * gate was bypassed.
 */
function bypasses(kind: KindUnderTest, env: { id: string; name: string }): string[] {
  return bed.proxy
    .writes()
    .filter((r) => r.status < 300 && !/changeRequests/.test(r.path) && r.query.dry_run !== "true")
    .filter((r) => !(kind.sample.ungatedWrites ?? []).some((w) => w.test(`${r.method} ${r.path}`)))
    .filter((r) => r.path.includes(env.id) || r.path.includes(`/${encodeURIComponent(env.name)}`))
    .map((r) => `${r.method} ${r.path} ${r.status}`);
}

/** What a verb did: resolved (with the value), or refused (with the message). */
async function outcome<T>(p: Promise<T>): Promise<{ ok: true; value: T } | { ok: false; message: string }> {
  try {
    return { ok: true, value: await p };
  } catch (e) {
    return { ok: false, message: e instanceof Error ? e.message : String(e) };
  }
}

/**
 * The status of the object's pending change request, or of each environment's (a map by
 * environment, `environments`, where a kind holds its definitions in several).
 */
function pendingStatus(outs: Props | undefined): string | undefined {
  const own = (outs?.pendingChangeRequest as { status?: string } | undefined)?.status;
  if (own !== undefined || outs?.environments === undefined) return own;
  const each = Object.values(outs.environments as Record<string, Props>).map((e) => pendingStatus(e));
  return each.every((s) => s !== undefined && s === each[0]) ? each[0] : undefined;
}

const pendingOrRefused = (o: Awaited<ReturnType<typeof outcome<{ outs?: unknown }>>>) =>
  o.ok
    ? (pendingStatus(o.value.outs as Props | undefined) ?? "(applied directly)")
    : /approv|change request/i.test(o.message)
      ? "refused, saying why"
      : o.message;

/**
 * The environment input set to `env`, as the kind takes it: a name, a list of names, or a map by
 * environment (its first entry, under `env`).
 */
function inEnvironment(kind: KindUnderTest, inputs: Props, env: string): Props {
  const input = kind.sample.environmentInput as string;
  const given = inputs[input];
  if (Array.isArray(given)) return { ...inputs, [input]: [env] };
  if (given !== null && typeof given === "object")
    return { ...inputs, [input]: { [env]: Object.values(given)[0] } };
  return { ...inputs, [input]: env };
}

describe.each(gated.map((k) => k.name))("%s in an approval-gated environment", (name) => {
  const kind = kinds.find((k) => k.name === name) as KindUnderTest;
  const { impl, sample } = kind;

  /** An object of the sample made in `env` before its gate was turned on. */
  const madeBeforeGate = async () => {
    const env = await environment(false);
    const inputs = await checked(name, inEnvironment(kind, await sample.inputs(bed.ctx), env.name));
    const made = await impl.create(inputs);
    await gate(env);
    return { env, inputs, id: made.id, outs: plainJson(made.outs) };
  };

  it("create: a change request, or refused saying why; nothing written directly", async () => {
    const env = await environment(true);
    const inputs = await checked(name, inEnvironment(kind, await sample.inputs(bed.ctx), env.name));
    bed.proxy.reset();
    const created = await outcome(impl.create(inputs));
    expect(pendingOrRefused(created)).toMatch(/^(REQUESTED|refused, saying why)$/);
    expect(bypasses(kind, env)).toEqual([]);
  });

  it("update: a change request, or refused saying why; nothing written directly", async () => {
    const obj = await madeBeforeGate();
    const edits = Object.entries(await sample.edits(bed.ctx, obj.inputs));
    const news = await checked(name, {
      ...obj.inputs,
      ...Object.fromEntries(edits.map(([f, [, b]]) => [f, b])),
    });
    bed.proxy.reset();
    const updated = await outcome(impl.update(obj.id, obj.outs, news));
    expect(pendingOrRefused(updated)).toMatch(/^(REQUESTED|refused, saying why)$/);
    expect(bypasses(kind, obj.env)).toEqual([]);
  });

  it("delete: a change request or refused saying why; the object stays until approved", async () => {
    const obj = await madeBeforeGate();
    bed.proxy.reset();
    const deleted = await outcome(impl.delete(obj.id, obj.outs));
    expect(bypasses(kind, obj.env)).toEqual([]);
    // A delete that reports success must have removed the object; in a gated environment it
    // cannot have, so it is refused (naming the change request it submitted, or why).
    expect(deleted.ok ? "(reported deleted)" : /approv|change request/i.test(deleted.message)).toBe(true);
    expect((await impl.read(obj.id, obj.outs)).id).toBe(obj.id);
  });

  it("the delete of what it lives in does not remove it behind the gate", async () => {
    const cls = (provider as unknown as Record<string, { owner?: Owner<string> }>)[name];
    const owner = cls?.owner;
    if (!owner) return;
    const obj = await madeBeforeGate();
    const ownerOf = kinds.find((k) => k.dynamicToken === owner.type);
    if (!ownerOf) throw new Error(`no kind of token ${owner.type}`);
    const made = bed
      .made()
      .find((m) => m.kind === ownerOf.name && m.outs[owner.output] === obj.inputs[owner.input]);
    if (!made) throw new Error(`the ${name} sample's ${owner.input} was not made by the bed`);
    bed.proxy.reset();
    const deleted = await outcome(ownerOf.impl.delete(made.id, made.outs));
    expect(deleted.ok ? "(owner deleted)" : /approv|change request/i.test(deleted.message)).toBe(true);
    expect(bypasses(kind, obj.env)).toEqual([]);
    expect((await impl.read(obj.id, obj.outs)).id).toBe(obj.id);
  });
});
