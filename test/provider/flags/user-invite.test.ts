/**
 * UserInvite lifecycle against the emulator, directly and through the gRPC host: invite, read,
 * no-op diff, membership changes in one guarded PATCH, replacement on a new e-mail, refresh
 * picking up PENDING → ACTIVE and out-of-band changes, delete per status and `onDelete`, delete
 * again, adopt, and an invitation whose response was lost. Each test invites the users it needs at
 * an e-mail domain of its own, so it passes alone.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { impl, userInviteProviderText } from "../../../provider/flags/user-invite";
import type { Group } from "../../../sdk/admin/schemas";
import { type Driver, MODES } from "../harness";
import { slug, startTestbed, type Testbed, unique } from "../testbed";

let bed: Testbed;
let qa: Group;
let ops: Group;

beforeAll(async () => {
  bed = await startTestbed();
  qa = await bed.admin.groups.create({ name: "qa", description: "" });
  ops = await bed.admin.groups.create({ name: "ops", description: "" });
});
afterAll(async () => {
  await bed?.stop();
});

describe.each(MODES)("UserInvite (%s)", (mode) => {
  let p: Driver;
  const tag = slug(mode);
  /**
   * An e-mail address no other test uses: the local part as given (the service names the user
   * after it), the domain the test's own.
   */
  const fresh = (local: string) => `${local}@${unique(`t${tag}`)}.example.com`;
  const check = async (olds: Record<string, unknown>, news: Record<string, unknown>) =>
    (await p.check(olds, news)).inputs;
  /** A user of the test's own, invited by the provider into `groups`. */
  const invited = async (groups: string[]) => {
    const email = fresh(`ana.${tag}`);
    const { id, outs } = await p.create(await check({}, { email, groups }));
    return { email, id, outs };
  };
  /**
   * A user invited into ops who then accepted and was added to qa out of band, with the state a
   * refresh records.
   */
  const active = async () => {
    const { email, id, outs } = await invited(["ops"]);
    await bed.emu.acceptInvitation(id);
    await bed.admin.users.patch(id, [{ op: "add", path: "/groups/0", value: { id: qa.id, type: "group" } }]);
    return { email, id, outs: (await p.read(id, outs)).props as Record<string, unknown> };
  };

  beforeAll(async () => {
    p = await bed.driver(mode, impl, userInviteProviderText);
  });

  it("invites with one POST naming the groups by id", async () => {
    const email = fresh(`ana.${tag}`);
    const inputs = await check({}, { email, groups: ["qa"] });
    expect(inputs).toEqual({ email, groups: ["qa"], onDelete: "deactivate", adopt: false });
    bed.proxy.reset();
    const created = await p.create(inputs);
    const id = created.id;
    expect(bed.proxy.writes().map(({ method, path, body }) => ({ method, path, body }))).toEqual([
      {
        method: "POST",
        path: "/internal/api/v2/users",
        body: { email, groups: [{ id: qa.id, type: "group" }] },
      },
    ]);
    expect(created.outs).toEqual({
      ...inputs,
      userId: id,
      name: `ana.${tag}`,
      status: "PENDING",
      twoFactor: false,
      groupIds: [qa.id],
      groupNames: ["qa"],
    });
  });

  it("reads it back", async () => {
    const { email, id, outs } = await invited(["qa"]);
    expect(await p.read(id, outs)).toEqual({
      id,
      props: outs,
      inputs: { email, groups: ["qa"], onDelete: "deactivate", adopt: false },
    });
  });

  it("reports no change for the same groups by id, with no request", async () => {
    const { email, id, outs } = await invited(["qa"]);
    bed.emu.resetRequests();
    expect(
      await p.diff(id, outs, await check(outs, { email: email.toUpperCase(), groups: [qa.id] })),
    ).toEqual({
      changes: false,
      replaces: [],
      deleteBeforeReplace: false,
    });
    expect(bed.emu.requests()).toEqual([]);
  });

  it("changes memberships with one PATCH: a guarded remove and an add", async () => {
    const { email, id, outs } = await invited(["qa"]);
    const news = await check(outs, { email, groups: ["ops"] });
    expect(await p.diff(id, outs, news)).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
    bed.proxy.reset();
    const updated = (await p.update(id, outs, news)).outs;
    expect(bed.proxy.writes().map(({ method, path, body }) => ({ method, path, body }))).toEqual([
      {
        method: "PATCH",
        path: `/internal/api/v2/users/${id}`,
        body: [
          { op: "test", path: "/groups/0/id", value: qa.id },
          { op: "remove", path: "/groups/0" },
          { op: "add", path: "/groups/-", value: { id: ops.id, type: "group" } },
        ],
      },
    ]);
    expect(updated).toMatchObject({ groups: ["ops"], groupIds: [ops.id], groupNames: ["ops"] });
  });

  it("changes onDelete without any write, and replaces on a new e-mail", async () => {
    const { email, id, outs } = await invited(["ops"]);
    const retain = await check(outs, { email, groups: ["ops"], onDelete: "retain" });
    expect(await p.diff(id, outs, retain)).toEqual({
      changes: true,
      replaces: [],
      deleteBeforeReplace: false,
    });
    bed.proxy.reset();
    const updated = (await p.update(id, outs, retain)).outs;
    expect(bed.proxy.writes()).toEqual([]);
    expect(updated.onDelete).toBe("retain");
    expect(
      await p.diff(id, outs, await check(outs, { email: `bo.${tag}@example.com`, groups: ["ops"] })),
    ).toEqual({
      changes: true,
      replaces: ["email"],
      deleteBeforeReplace: false,
    });
  });

  it("refresh picks up PENDING -> ACTIVE and memberships changed out of band", async () => {
    const { email, id, outs } = await invited(["ops"]);
    await bed.emu.acceptInvitation(id);
    await bed.admin.users.patch(id, [{ op: "add", path: "/groups/0", value: { id: qa.id, type: "group" } }]);
    const read = await p.read(id, outs);
    expect(read.props).toMatchObject({
      status: "ACTIVE",
      groupIds: [ops.id, qa.id].sort(),
      groups: expect.arrayContaining(["ops", "qa"]),
    });
    expect(
      await p.diff(id, read.props as Record<string, unknown>, await check(outs, { email, groups: ["ops"] })),
    ).toMatchObject({ changes: true, replaces: [] });
  });

  it("refuses to delete an ACTIVE user with onDelete fail, retains with retain", async () => {
    const { email, id, outs } = await active();
    await expect(p.delete(id, { ...outs, onDelete: "fail" })).rejects.toThrow(
      `user ${email} (${id}) has accepted the invitation and onDelete is "fail"`,
    );
    bed.proxy.reset();
    await p.delete(id, { ...outs, onDelete: "retain" });
    expect(bed.proxy.writes()).toEqual([]);
    expect((await bed.admin.users.get(id)).status).toBe("ACTIVE");
  });

  it("deactivates an ACTIVE user with a PUT of every property; deleting again writes nothing", async () => {
    const { email, id, outs } = await active();
    bed.proxy.reset();
    await p.delete(id, outs);
    expect(bed.proxy.writes().map(({ method, path, body }) => ({ method, path, body }))).toEqual([
      {
        method: "PUT",
        path: `/internal/api/v2/users/${id}`,
        body: { email, name: `ana.${tag}`, status: "DEACTIVATED", "2fa": false, type: "user" },
      },
    ]);
    bed.proxy.reset();
    await p.delete(id, outs);
    expect(bed.proxy.writes()).toEqual([]);
  });

  it("deletes a PENDING invitation; a user deleted out of band reads as gone and deletes fine", async () => {
    const pending = await p.create(await check({}, { email: fresh(`cy.${tag}`) }));
    bed.proxy.reset();
    await p.delete(pending.id, pending.outs);
    expect(bed.proxy.writes().map((w) => `${w.method} ${w.path}`)).toEqual([
      `DELETE /internal/api/v2/users/${pending.id}`,
    ]);
    expect(await p.read(pending.id, pending.outs)).toEqual({
      id: undefined,
      props: undefined,
      inputs: undefined,
    });
    await expect(p.delete(pending.id, pending.outs)).resolves.toBeUndefined();
  });

  it("refuses an invited e-mail unless adopt is set, then takes the user over and syncs groups", async () => {
    const existing = await bed.admin.users.invite({ email: fresh(`di.${tag}`), groups: [] });
    await expect(p.create(await check({}, { email: existing.email }))).rejects.toThrow(
      `a user with e-mail ${existing.email} already exists. Set \`adopt: true\``,
    );
    bed.proxy.reset();
    const adopted = await p.create(await check({}, { email: existing.email, groups: ["qa"], adopt: true }));
    expect(adopted.id).toBe(existing.id);
    expect(bed.proxy.writes().map((w) => `${w.method} ${w.path}`)).toEqual([
      `PATCH /internal/api/v2/users/${existing.id}`,
    ]);
    expect(adopted.outs).toMatchObject({ groupIds: [qa.id], adopt: true });
    await p.delete(adopted.id, adopted.outs);
  });

  it("recovers an invitation whose response was lost, without inviting twice", async () => {
    const email = fresh(`ed.${tag}`);
    bed.proxy.reset();
    bed.proxy.once({ method: "POST", path: /\/users$/ }, { lose: true });
    const created = await p.create(await check({}, { email }));
    expect(bed.proxy.writes().map((w) => `${w.method} ${w.path}`)).toEqual(["POST /internal/api/v2/users"]);
    const all: string[] = [];
    for await (const u of bed.admin.users.list({ status: "PENDING" })) all.push(u.email);
    expect(all.filter((e) => e === email)).toHaveLength(1);
    expect(created.outs).toMatchObject({ email, status: "PENDING" });
  });
});
