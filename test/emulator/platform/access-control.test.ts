/**
 * The platform's access control (`emulator/platform/access-control.ts`, issue 27): service
 * accounts, API keys, tokens, user groups, users and invites, roles, resource groups and role
 * assignments, with the answers' exact shapes, paging, refusals and cascades.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACCOUNT_ADMIN_UUID } from "../../../emulator/store/access-control";
import {
  errorBody,
  failureBody,
  type InProcessPlatform,
  inProcessPlatform,
  successBody,
  validationBody,
} from "./harness";

let p: InProcessPlatform;
beforeAll(async () => {
  p = await inProcessPlatform();
});
afterAll(() => p.close());

const ACC = "acc_test";
const org = { orgIdentifier: "default" };
const SA = "/ng/api/serviceaccount";
const KEY = "/ng/api/apikey";
const TOKEN = "/ng/api/token";
const GROUPS = "/ng/api/user-groups";
const ROLES = "/authz/api/roles";
const RGS = "/resourcegroup/api/v2/resourcegroup";
const RAS = "/authz/api/roleassignments";

const saBody = (id: string, name = id) => ({ identifier: id, name, email: `${id}@service.harness.io` });
const saDto = (id: string, name = id) => ({
  identifier: id,
  name,
  email: `${id}@service.harness.io`,
  description: "",
  tags: {},
  accountIdentifier: ACC,
  orgIdentifier: "default",
  projectIdentifier: null,
});
const keyBody = (id: string, sa: string) => ({
  identifier: id,
  name: id,
  apiKeyType: "SERVICE_ACCOUNT",
  parentIdentifier: sa,
  ...org,
});
const tokenBody = (id: string, key: string, sa: string, extra: Record<string, unknown> = {}) => ({
  identifier: id,
  name: id,
  apiKeyIdentifier: key,
  parentIdentifier: sa,
  apiKeyType: "SERVICE_ACCOUNT",
  ...org,
  ...extra,
});
const keyQuery = (sa: string) => ({ ...org, apiKeyType: "SERVICE_ACCOUNT", parentIdentifier: sa });
const stamps = { createdAt: expect.any(Number), lastModifiedAt: expect.any(Number) };

describe("service accounts", () => {
  it("creates one in the query's scope, lists it, reads its aggregate, updates it", async () => {
    const created = await p.call("POST", SA, { query: org, json: saBody("ci") });
    expect([created.status, created.body]).toEqual([200, successBody(saDto("ci"))]);
    expect((await p.call("GET", SA, { query: org })).body).toEqual(successBody([saDto("ci")]));
    // Another scope holds none.
    expect((await p.call("GET", SA)).body).toEqual(successBody([]));
    const agg = await p.call("GET", `${SA}/aggregate/ci`, { query: org });
    expect(agg.body).toEqual(
      successBody({
        serviceAccount: saDto("ci"),
        ...stamps,
        tokensCount: 0,
        roleAssignmentsMetadataDTO: [],
      }),
    );
    const updated = await p.call("PUT", `${SA}/ci`, { query: org, json: saBody("ci", "CI bot") });
    expect(updated.body).toEqual(successBody(saDto("ci", "CI bot")));
    const mismatch = await p.call("PUT", `${SA}/ci`, { query: org, json: saBody("cd") });
    expect([mismatch.status, mismatch.body]).toEqual([
      400,
      errorBody("INVALID_REQUEST", "Value mismatch, previous: ci current: cd"),
    ]);
  });

  it("refuses a taken identifier, a missing one, a bad body and an unknown organization", async () => {
    const dup = await p.call("POST", SA, { query: org, json: saBody("ci") });
    expect([dup.status, dup.body]).toEqual([
      400,
      errorBody("DUPLICATE_FIELD", "Try using different service account identifier, [ci] cannot be used"),
    ]);
    for (const [method, path] of [
      ["GET", `${SA}/aggregate/nobody`],
      ["DELETE", `${SA}/nobody`],
    ] as const) {
      const r = await p.call(method, path, { query: org });
      expect([r.status, r.body]).toEqual([
        400,
        errorBody("INVALID_ARGUMENT", "Service account [nobody] doesn't exist in scope"),
      ]);
    }
    const bad = await p.call("POST", SA, { query: org, json: { identifier: "x1", name: "x1" } });
    expect([bad.status, bad.body]).toEqual([
      400,
      validationBody([["serviceAccountDTO.email", "must not be null"]]),
    ]);
    const noOrg = await p.call("POST", SA, { query: { orgIdentifier: "nowhere" }, json: saBody("x2") });
    expect([noOrg.status, noOrg.body]).toEqual([
      400,
      failureBody("RESOURCE_NOT_FOUND_EXCEPTION", "org [nowhere] not found."),
    ]);
  });

  it("pages the aggregate list (an NG page; a page past the end is empty)", async () => {
    await p.call("POST", SA, { query: org, json: saBody("deploy") });
    const first = await p.call("GET", `${SA}/aggregate`, {
      query: { ...org, pageIndex: "1", pageSize: "1" },
    });
    expect(first.body.data).toEqual({
      totalPages: 2,
      totalItems: 2,
      pageItemCount: 1,
      pageSize: 1,
      content: [
        { serviceAccount: saDto("deploy"), ...stamps, tokensCount: 0, roleAssignmentsMetadataDTO: [] },
      ],
      pageIndex: 1,
      empty: false,
    });
    const past = await p.call("GET", `${SA}/aggregate`, { query: { ...org, pageIndex: "2", pageSize: "1" } });
    expect([past.body.data.content, past.body.data.empty]).toEqual([[], true]);
    const searched = await p.call("GET", `${SA}/aggregate`, { query: { ...org, searchTerm: "DEP" } });
    expect(
      searched.body.data.content.map(
        (a: { serviceAccount: { identifier: string } }) => a.serviceAccount.identifier,
      ),
    ).toEqual(["deploy"]);
  });
});

describe("API keys and tokens", () => {
  it("makes a key in the body's scope under its service account, and refuses an unknown parent", async () => {
    const created = await p.call("POST", KEY, { json: keyBody("ci_key", "ci") });
    const dto = {
      identifier: "ci_key",
      name: "ci_key",
      description: "",
      tags: {},
      apiKeyType: "SERVICE_ACCOUNT",
      parentIdentifier: "ci",
      defaultTimeToExpireToken: 2_592_000_000,
      accountIdentifier: ACC,
      orgIdentifier: "default",
      projectIdentifier: null,
    };
    expect([created.status, created.body]).toEqual([200, successBody(dto)]);
    expect((await p.call("GET", KEY, { query: keyQuery("ci") })).body).toEqual(successBody([dto]));
    expect((await p.call("GET", KEY, { query: keyQuery("deploy") })).body).toEqual(successBody([]));
    const agg = await p.call("GET", `${KEY}/aggregate/ci_key`, { query: keyQuery("ci") });
    expect(agg.body).toEqual(successBody({ apiKey: dto, ...stamps, tokensCount: 0 }));
    const orphan = await p.call("POST", KEY, { json: keyBody("k2", "ghost") });
    expect([orphan.status, orphan.body]).toEqual([
      400,
      errorBody("INVALID_ARGUMENT", "Service account [ghost] doesn't exist in scope"),
    ]);
    const noParent = await p.call("GET", KEY, { query: org });
    expect([noParent.status, noParent.body]).toEqual([
      400,
      validationBody([
        ["apiKeyType", "must not be null"],
        ["parentIdentifier", "must not be null"],
      ]),
    ]);
  });

  it("issues a token's value once (a platform key of its scope), lists the tokens as aggregates, updates, rotates and deletes one", async () => {
    const created = await p.call("POST", TOKEN, {
      json: tokenBody("t1", "ci_key", "ci", { validFrom: 1_000, validTo: 2_000 }),
    });
    expect(created.status).toBe(200);
    expect(created.body.data).toMatch(/^sat\.acc_test\.t1\.[0-9a-f]{20}$/);
    const token = {
      identifier: "t1",
      name: "t1",
      validFrom: 1_000,
      validTo: 2_000,
      scheduledExpireTime: null,
      valid: true,
      accountIdentifier: ACC,
      orgIdentifier: "default",
      projectIdentifier: null,
      apiKeyIdentifier: "ci_key",
      parentIdentifier: "ci",
      apiKeyType: "SERVICE_ACCOUNT",
      description: "",
      tags: {},
      email: null,
      username: null,
    };
    const listed = await p.call("GET", `${TOKEN}/aggregate`, {
      query: { ...org, apiKeyType: "SERVICE_ACCOUNT", pageIndex: "0", pageSize: "100" },
    });
    expect(listed.body.data).toEqual({
      totalPages: 1,
      totalItems: 1,
      pageItemCount: 1,
      pageSize: 100,
      content: [{ token, expiryAt: 2_000, ...stamps }],
      pageIndex: 0,
      empty: false,
    });
    // The value is a platform key of the token's organization.
    const as = async (key: string, query: Record<string, string>) => {
      const r = await p.call("GET", SA, { query, key });
      return [r.status, r.body.code ?? r.body.status];
    };
    expect([await as(created.body.data, org), await as(created.body.data, {})]).toEqual([
      [200, "SUCCESS"],
      [403, "NG_ACCESS_DENIED"],
    ]);
    expect(
      (await p.call("GET", `${KEY}/aggregate/ci_key`, { query: keyQuery("ci") })).body.data.tokensCount,
    ).toBe(1);

    const updated = await p.call("PUT", `${TOKEN}/t1`, {
      json: tokenBody("t1", "ci_key", "ci", { name: "first" }),
    });
    expect(updated.body).toEqual(successBody({ ...token, name: "first" }));
    const rotated = await p.call("POST", `${TOKEN}/rotate/t1`, {
      query: { ...keyQuery("ci"), apiKeyIdentifier: "ci_key", rotateTimestamp: "1500" },
    });
    expect(rotated.body.data).toMatch(/^sat\.acc_test\.t1\.[0-9a-f]{20}$/);
    expect(rotated.body.data).not.toBe(created.body.data);
    // Rotated: the old value stops, the new one works.
    expect([await as(created.body.data, org), await as(rotated.body.data, org)]).toEqual([
      [401, "INVALID_TOKEN"],
      [200, "SUCCESS"],
    ]);
    const after = await p.call("GET", `${TOKEN}/aggregate`, { query: org });
    expect([
      after.body.data.content[0].token.scheduledExpireTime,
      after.body.data.content[0].expiryAt,
    ]).toEqual([1500, 1500]);
    expect((await p.call("DELETE", `${TOKEN}/t1`, { query: org })).body).toEqual(successBody(true));
    expect(await as(rotated.body.data, org)).toEqual([401, "INVALID_TOKEN"]);
    const gone = await p.call("DELETE", `${TOKEN}/t1`, { query: org });
    expect([gone.status, gone.body]).toEqual([
      400,
      errorBody("INVALID_ARGUMENT", "Token [t1] doesn't exist in scope"),
    ]);
  });

  it("updates a key as the Terraform provider does: no accountIdentifier query, the account id in the path, the body naming the key", async () => {
    const put = (json: unknown) => p.call("PUT", `${KEY}/${ACC}`, { account: false, json });
    const updated = await put({
      ...keyBody("ci_key", "ci"),
      accountIdentifier: ACC,
      description: "rotated monthly",
    });
    expect([updated.status, updated.body.data.identifier, updated.body.data.description]).toEqual([
      200,
      "ci_key",
      "rotated monthly",
    ]);
    const other = await put({ ...keyBody("ci_key", "ci"), accountIdentifier: "acc_other" });
    expect([other.status, other.body]).toEqual([
      403,
      errorBody("NG_ACCESS_DENIED", "Missing permission to access account [acc_other]"),
    ]);
    // Every other route still wants the query's account.
    const list = await p.call("GET", KEY, { account: false, query: keyQuery("ci") });
    expect([list.status, list.body]).toEqual([
      400,
      validationBody([["accountIdentifier", "must not be null"]]),
    ]);
  });

  it("lists the tokens the identifiers filter names", async () => {
    for (const id of ["ta", "tb"]) await p.call("POST", TOKEN, { json: tokenBody(id, "ci_key", "ci") });
    const only = await p.call("GET", `${TOKEN}/aggregate`, {
      query: { ...keyQuery("ci"), apiKeyIdentifier: "ci_key", identifiers: "tb" },
    });
    expect(only.body.data.content.map((t: { token: { identifier: string } }) => t.token.identifier)).toEqual([
      "tb",
    ]);
    for (const id of ["ta", "tb"]) await p.call("DELETE", `${TOKEN}/${id}`, { query: org });
  });

  it("deleting a service account takes its keys and their tokens along", async () => {
    await p.call("POST", SA, { query: org, json: saBody("tmp") });
    await p.call("POST", KEY, { json: keyBody("tmp_key", "tmp") });
    const value = (await p.call("POST", TOKEN, { json: tokenBody("tmp_t", "tmp_key", "tmp") })).body.data;
    expect((await p.call("GET", SA, { query: org, key: value })).status).toBe(200);
    expect((await p.call("DELETE", `${SA}/tmp`, { query: org })).body).toEqual(successBody(true));
    expect((await p.call("GET", SA, { query: org, key: value })).status).toBe(401);
    expect((await p.call("GET", KEY, { query: keyQuery("tmp") })).body.data).toEqual([]);
    const tokens = await p.call("GET", `${TOKEN}/aggregate`, { query: org });
    expect(tokens.body.data.content).toEqual([]);
  });
});

describe("user groups, users and invites", () => {
  const groupDto = (id: string, name: string, users: string[] = []) => ({
    accountIdentifier: ACC,
    orgIdentifier: "default",
    projectIdentifier: null,
    identifier: id,
    name,
    users,
    notificationConfigs: [],
    isSsoLinked: false,
    linkedSsoId: null,
    linkedSsoDisplayName: null,
    ssoGroupId: null,
    ssoGroupName: null,
    linkedSsoType: null,
    externallyManaged: false,
    description: "",
    tags: {},
    harnessManaged: false,
    ssoLinked: false,
  });

  it("creates, lists, reads, replaces (PUT) and deletes a group; PATCH is not a method of the path", async () => {
    const created = await p.call("POST", GROUPS, { query: org, json: { identifier: "ops", name: "ops" } });
    expect(created.body).toEqual(successBody(groupDto("ops", "ops")));
    const listed = await p.call("GET", GROUPS, { query: { ...org, pageIndex: "0", pageSize: "100" } });
    expect(listed.body.data.content).toEqual([groupDto("ops", "ops")]);
    expect((await p.call("GET", `${GROUPS}/ops`, { query: org })).body).toEqual(
      successBody(groupDto("ops", "ops")),
    );
    const put = await p.call("PUT", GROUPS, { query: org, json: { identifier: "ops", name: "Operations" } });
    expect(put.body).toEqual(successBody(groupDto("ops", "Operations")));
    const patch = await p.call("PATCH", GROUPS, { query: org, json: { identifier: "ops", name: "x" } });
    expect([patch.status, patch.body]).toEqual([
      400,
      failureBody("RESOURCE_NOT_FOUND_EXCEPTION", "HTTP 405 Method Not Allowed"),
    ]);
    const missing = await p.call("GET", `${GROUPS}/nope`, { query: org });
    expect([missing.status, missing.body]).toEqual([
      404,
      errorBody("ENTITY_NOT_FOUND", "User Group is not available acc_test:default:null:nope"),
    ]);
    const putMissing = await p.call("PUT", GROUPS, {
      query: org,
      json: { identifier: "nope", name: "nope" },
    });
    expect([putMissing.status, putMissing.body]).toEqual([
      400,
      errorBody("INVALID_REQUEST", "User Group is not available acc_test:default:null:nope"),
    ]);
    await p.call("POST", GROUPS, { query: org, json: { identifier: "tmp_group", name: "tmp" } });
    expect((await p.call("DELETE", `${GROUPS}/tmp_group`, { query: org })).body).toEqual(
      successBody(groupDto("tmp_group", "tmp")),
    );
  });

  const admin = {
    name: "Account Admin",
    email: "admin@example.com",
    uuid: ACCOUNT_ADMIN_UUID,
    locked: false,
    disabled: false,
    externallyManaged: false,
    twoFactorAuthenticationEnabled: false,
  };

  it("lists the account's users (its administrator) by POST, reads and renames one, adds it to groups", async () => {
    const listed = await p.call("POST", "/ng/api/user/aggregate", { query: { ...org, pageIndex: "0" } });
    expect(listed.body.data.content).toEqual([{ user: admin, roleAssignmentMetadata: [] }]);
    const page1 = await p.call("POST", "/ng/api/user/aggregate", { query: { ...org, pageIndex: "1" } });
    expect(page1.body.data.content).toEqual([]);
    const read = await p.call("GET", `/ng/api/user/aggregate/${ACCOUNT_ADMIN_UUID}`, { query: org });
    expect(read.body).toEqual(successBody({ user: admin, roleAssignmentMetadata: [] }));
    const renamed = await p.call("PUT", `/ng/api/user/${ACCOUNT_ADMIN_UUID}`, {
      query: org,
      json: { name: "Ana" },
    });
    expect(renamed.body).toEqual(
      successBody({
        uuid: ACCOUNT_ADMIN_UUID,
        name: "Ana",
        email: "admin@example.com",
        admin: true,
        twoFactorAuthenticationEnabled: false,
        emailVerified: true,
        locked: false,
        disabled: false,
        externallyManaged: false,
      }),
    );
    const added = await p.call("PUT", `/ng/api/user/add-user-to-groups/${ACCOUNT_ADMIN_UUID}`, {
      query: org,
      json: { userGroupIdsToAdd: ["ops"] },
    });
    expect(added.body).toEqual(successBody(true));
    expect((await p.call("GET", `${GROUPS}/ops`, { query: org })).body.data.users).toEqual([
      ACCOUNT_ADMIN_UUID,
    ]);
    const unknown = await p.call("PUT", `/ng/api/user/add-user-to-groups/${ACCOUNT_ADMIN_UUID}`, {
      query: org,
      json: { userGroupIdsToAdd: ["ghosts"] },
    });
    expect([unknown.status, unknown.body]).toEqual([
      400,
      errorBody("INVALID_REQUEST", "User Group is not available acc_test:default:null:ghosts"),
    ]);
    const nobody = await p.call("GET", "/ng/api/user/aggregate/nobody", { query: org });
    expect([nobody.status, nobody.body]).toEqual([
      404,
      errorBody("ENTITY_NOT_FOUND", "User with id [nobody] not found"),
    ]);
  });

  it("invites new e-mails (pending until deleted), adds an existing user, refuses a second invite", async () => {
    const invited = await p.call("POST", "/ng/api/user/users", {
      query: org,
      json: { emails: ["bo@example.com", "admin@example.com"], userGroups: ["ops"], roleBindings: [] },
    });
    expect(invited.body).toEqual(
      successBody({
        addUserResponseMap: {
          "bo@example.com": "USER_INVITED_SUCCESSFULLY",
          "admin@example.com": "USER_ADDED_SUCCESSFULLY",
        },
      }),
    );
    const again = await p.call("POST", "/ng/api/user/users", {
      query: org,
      json: { emails: ["bo@example.com"] },
    });
    expect(again.body.data.addUserResponseMap).toEqual({ "bo@example.com": "USER_ALREADY_INVITED" });
    const pending = await p.call("POST", "/ng/api/invites/aggregate", { query: org });
    const invite = {
      id: expect.stringMatching(/^[0-9a-f]{24}$/),
      name: "bo",
      email: "bo@example.com",
      accountIdentifier: ACC,
      orgIdentifier: "default",
      projectIdentifier: null,
      roleBindings: [],
      userGroups: ["ops"],
      inviteType: "ADMIN_INITIATED_INVITE",
      approved: false,
    };
    expect(pending.body.data.content).toEqual([invite]);
    expect((await p.call("GET", "/ng/api/invites", { query: org })).body.data.content).toEqual([invite]);
    const id = pending.body.data.content[0].id;
    expect((await p.call("DELETE", `/ng/api/invites/${id}`, { query: org })).body).toEqual(
      successBody(invite),
    );
    const gone = await p.call("DELETE", `/ng/api/invites/${id}`, { query: org });
    expect([gone.status, gone.body]).toEqual([
      400,
      errorBody("INVALID_REQUEST", `Invite with id [${id}] not found`),
    ]);
  });
});

describe("removing a user", () => {
  it("takes the user out of a scope's groups and assignments; from the account, the user goes", async () => {
    const q = await inProcessPlatform();
    try {
      await q.call("POST", GROUPS, {
        query: org,
        json: { identifier: "g1", name: "g1", users: [ACCOUNT_ADMIN_UUID] },
      });
      await q.call("POST", GROUPS, { json: { identifier: "g2", name: "g2", users: [ACCOUNT_ADMIN_UUID] } });
      await q.call("POST", RAS, {
        query: org,
        json: {
          identifier: "ra1",
          resourceGroupIdentifier: "_all_organization_level_resources",
          roleIdentifier: "_organization_viewer",
          principal: { identifier: ACCOUNT_ADMIN_UUID, type: "USER" },
        },
      });
      const out = await q.call("DELETE", `/ng/api/user/${ACCOUNT_ADMIN_UUID}`, { query: org });
      expect(out.body).toEqual(successBody(true));
      const groups = async (query: Record<string, string>) =>
        (await q.call("GET", GROUPS, { query })).body.data.content.map((g: { users: string[] }) => g.users);
      expect([await groups(org), await groups({})]).toEqual([[[]], [[ACCOUNT_ADMIN_UUID]]]);
      expect((await q.call("GET", RAS, { query: org })).body.data.content).toEqual([]);
      expect((await q.call("POST", "/ng/api/user/aggregate")).body.data.totalItems).toBe(1);
      expect((await q.call("DELETE", `/ng/api/user/${ACCOUNT_ADMIN_UUID}`)).body).toEqual(successBody(true));
      expect([
        await groups({}),
        (await q.call("POST", "/ng/api/user/aggregate")).body.data.totalItems,
      ]).toEqual([[[]], 0]);
      const gone = await q.call("DELETE", `/ng/api/user/${ACCOUNT_ADMIN_UUID}`);
      expect([gone.status, gone.body]).toEqual([
        404,
        errorBody("ENTITY_NOT_FOUND", `User with id [${ACCOUNT_ADMIN_UUID}] not found`),
      ]);
    } finally {
      await q.close();
    }
  });
});

describe("roles, resource groups and role assignments", () => {
  const scope = { accountIdentifier: ACC, orgIdentifier: "default", projectIdentifier: null };
  const role = {
    identifier: "viewer",
    name: "viewer",
    permissions: ["core_project_view"],
    allowedScopeLevels: ["organization"],
    description: "",
    tags: {},
  };
  const rg = {
    ...scope,
    identifier: "everything",
    name: "everything",
    color: "#0063F7",
    tags: {},
    description: "",
    allowedScopeLevels: ["organization"],
    includedScopes: [],
    resourceFilter: { resources: [], includeAllResources: false },
  };

  it("creates, lists, reads and updates a role and a resource group", async () => {
    const made = await p.call("POST", ROLES, {
      query: org,
      json: { identifier: "viewer", name: "viewer", permissions: ["core_project_view"] },
    });
    expect(made.body).toEqual(successBody({ role, scope, harnessManaged: false, ...stamps }));
    expect((await p.call("GET", ROLES, { query: org })).body.data.content).toEqual([
      { role, scope, harnessManaged: false, ...stamps },
    ]);
    const renamed = await p.call("PUT", `${ROLES}/viewer`, { query: org, json: { ...role, name: "Viewer" } });
    expect(renamed.body.data.role).toEqual({ ...role, name: "Viewer" });
    const group = await p.call("POST", RGS, {
      query: org,
      json: { resourceGroup: { identifier: "everything", name: "everything", accountIdentifier: ACC } },
    });
    expect(group.body).toEqual(successBody({ resourceGroup: rg, harnessManaged: false, ...stamps }));
    expect((await p.call("GET", `${RGS}/everything`, { query: org })).body.data.resourceGroup).toEqual(rg);
    const missingRole = await p.call("GET", `${ROLES}/nope`, { query: org });
    expect([missingRole.status, missingRole.body]).toEqual([
      404,
      errorBody("ENTITY_NOT_FOUND", "Role with identifier [nope] not found in the scope"),
    ]);
    const dup = await p.call("POST", RGS, {
      query: org,
      json: { resourceGroup: { identifier: "everything", name: "e" } },
    });
    expect([dup.status, dup.body]).toEqual([
      400,
      errorBody(
        "DUPLICATE_FIELD",
        "A Resource Group with identifier [everything] is already present in the scope",
      ),
    ]);
  });

  it("assigns a role to a user group (a generated identifier), reads it, and refuses unknown references", async () => {
    const made = await p.call("POST", RAS, {
      query: org,
      json: {
        resourceGroupIdentifier: "everything",
        roleIdentifier: "viewer",
        principal: { identifier: "ops", type: "USER_GROUP" },
      },
    });
    const assignment = {
      identifier: expect.stringMatching(/^role_assignment_[A-Za-z0-9]{20}$/),
      resourceGroupIdentifier: "everything",
      roleIdentifier: "viewer",
      roleReference: { identifier: "viewer", scopeLevel: "organization" },
      principal: { scopeLevel: "organization", identifier: "ops", type: "USER_GROUP" },
      disabled: false,
      managed: false,
      internal: false,
    };
    expect(made.body).toEqual(
      successBody({ roleAssignment: assignment, scope, harnessManaged: false, ...stamps }),
    );
    const id = made.body.data.roleAssignment.identifier;
    expect((await p.call("GET", `${RAS}/${id}`, { query: org })).body.data.roleAssignment).toEqual(
      assignment,
    );
    // A built-in role and resource group need no definition.
    const builtIn = await p.call("POST", RAS, {
      query: org,
      json: {
        identifier: "sa_view",
        resourceGroupIdentifier: "_all_account_level_resources",
        roleIdentifier: "_account_viewer",
        principal: { identifier: "ci", type: "SERVICE_ACCOUNT" },
      },
    });
    expect(builtIn.body.data.roleAssignment.roleReference).toEqual({
      identifier: "_account_viewer",
      scopeLevel: "account",
    });
    expect(
      (await p.call("GET", `${SA}/aggregate/ci`, { query: org })).body.data.roleAssignmentsMetadataDTO,
    ).toEqual([
      {
        identifier: "sa_view",
        roleIdentifier: "_account_viewer",
        roleName: "_account_viewer",
        resourceGroupIdentifier: "_all_account_level_resources",
        resourceGroupName: "_all_account_level_resources",
        managedRole: true,
        managedRoleAssignment: false,
      },
    ]);
    for (const [json, message] of [
      [
        {
          resourceGroupIdentifier: "everything",
          roleIdentifier: "nope",
          principal: { identifier: "ops", type: "USER_GROUP" },
        },
        "Role [nope] not found in the scope",
      ],
      [
        {
          resourceGroupIdentifier: "none",
          roleIdentifier: "viewer",
          principal: { identifier: "ops", type: "USER_GROUP" },
        },
        "Resource group [none] not found in the scope",
      ],
      [
        {
          resourceGroupIdentifier: "everything",
          roleIdentifier: "viewer",
          principal: { identifier: "ghost", type: "USER" },
        },
        "Principal [ghost] of type [USER] not found in the scope",
      ],
    ] as const) {
      const r = await p.call("POST", RAS, { query: org, json });
      expect([r.status, r.body]).toEqual([400, errorBody("INVALID_REQUEST", message)]);
    }
  });

  it("deleting a role takes its assignments along; a resource group's delete answers true", async () => {
    const listed = await p.call("GET", RAS, { query: org });
    expect(listed.body.data.totalItems).toBe(2);
    const deleted = await p.call("DELETE", `${ROLES}/viewer`, { query: org });
    expect(deleted.body.data.role.identifier).toBe("viewer");
    const left = await p.call("GET", RAS, { query: org });
    expect(
      left.body.data.content.map(
        (r: { roleAssignment: { identifier: string } }) => r.roleAssignment.identifier,
      ),
    ).toEqual(["sa_view"]);
    expect((await p.call("DELETE", `${RGS}/everything`, { query: org })).body).toEqual(successBody(true));
    const again = await p.call("DELETE", `${RGS}/everything`, { query: org });
    expect([again.status, again.body]).toEqual([
      400,
      errorBody("INVALID_REQUEST", "Resource Group with identifier [everything] not found in the scope"),
    ]);
    expect(
      (await p.call("DELETE", `${RAS}/sa_view`, { query: org })).body.data.roleAssignment.identifier,
    ).toBe("sa_view");
  });
});

describe("a scope's deletion", () => {
  it("a project's and an organization's deletion take the access control scoped to them along", async () => {
    const inOrg = { orgIdentifier: "gone_org" };
    const inProj = { ...inOrg, projectIdentifier: "gone_proj" };
    const makeScopes = async () => {
      await p.call("POST", "/ng/api/organizations", {
        json: { organization: { identifier: "gone_org", name: "g" } },
      });
      await p.call("POST", "/ng/api/projects", {
        query: inOrg,
        json: { project: { identifier: "gone_proj", name: "gone_proj" } },
      });
    };
    const holdings = async () => {
      const count = async (path: string, query: Record<string, string>) => {
        const r = await p.call("GET", path, { query });
        const data = r.body.data;
        return Array.isArray(data) ? data.length : data.totalItems;
      };
      return {
        projectAccounts: await count(SA, inProj),
        projectGroups: await count(GROUPS, inProj),
        orgAccounts: await count(SA, inOrg),
        orgRoles: await count(ROLES, inOrg),
      };
    };
    await makeScopes();
    await p.call("POST", SA, { query: inProj, json: saBody("proj_sa") });
    await p.call("POST", KEY, { json: { ...keyBody("proj_key", "proj_sa"), ...inProj } });
    const value = (
      await p.call("POST", TOKEN, { json: { ...tokenBody("proj_t", "proj_key", "proj_sa"), ...inProj } })
    ).body.data;
    await p.call("POST", GROUPS, { query: inProj, json: { identifier: "proj_ops", name: "proj_ops" } });
    await p.call("POST", SA, { query: inOrg, json: saBody("org_sa") });
    await p.call("POST", ROLES, {
      query: inOrg,
      json: { identifier: "org_role", name: "org_role", permissions: [] },
    });
    expect([await holdings(), (await p.call("GET", SA, { query: inProj, key: value })).status]).toEqual([
      { projectAccounts: 1, projectGroups: 1, orgAccounts: 1, orgRoles: 1 },
      200,
    ]);

    await p.call("DELETE", "/ng/api/projects/gone_proj", { query: inOrg });
    // The project's token no longer authenticates; the same project made again holds nothing.
    expect((await p.call("GET", SA, { query: inProj, key: value })).status).toBe(401);
    await makeScopes();
    expect(await holdings()).toEqual({ projectAccounts: 0, projectGroups: 0, orgAccounts: 1, orgRoles: 1 });

    await p.call("DELETE", "/ng/api/organizations/gone_org");
    await makeScopes();
    expect(await holdings()).toEqual({ projectAccounts: 0, projectGroups: 0, orgAccounts: 0, orgRoles: 0 });
  });
});

describe("access-control auth and paths", () => {
  it("checks the platform key on /authz/api and /resourcegroup/api, and answers an unknown path as the platform does", async () => {
    const noKey = await p.call("GET", ROLES, { query: org, key: null });
    expect([noKey.status, noKey.body]).toEqual([401, errorBody("INVALID_TOKEN", "Token is not valid.")]);
    const otherAccount = await p.call("GET", RGS, { query: org, account: "acc_other" });
    expect([otherAccount.status, otherAccount.body]).toEqual([
      403,
      errorBody("NG_ACCESS_DENIED", "Missing permission to access account [acc_other]"),
    ]);
    const unknown = await p.call("GET", "/authz/api/permissions", { query: org });
    expect([unknown.status, unknown.body]).toEqual([
      400,
      failureBody("RESOURCE_NOT_FOUND_EXCEPTION", "HTTP 404 Not Found"),
    ]);
    // The client's doubled slashes reach the same routes (`front-proxy.ts`).
    const doubled = await p.call("GET", `/${ROLES}`, { query: org });
    expect(doubled.status).toBe(200);
  });

  it("keeps the access control in the state file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "flagstack-ac-"));
    const statePath = join(dir, "state.json");
    try {
      const first = await inProcessPlatform({ statePath });
      await first.call("POST", SA, { query: org, json: saBody("kept") });
      await first.close();
      const second = await inProcessPlatform({ statePath });
      expect((await second.call("GET", SA, { query: org })).body.data).toEqual([saDto("kept")]);
      expect((await second.call("POST", "/ng/api/user/aggregate", { query: org })).body.data.totalItems).toBe(
        1,
      );
      await second.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
