/**
 * Organizations (not shown by the spec; emulator extension so that a second organization can be
 * used, spec §4 rule 1) over HTTP, and resources placed in another organization.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Call,
  dockerConnector,
  errorBody,
  type HttpPlatform,
  simplePipeline,
  startPlatform,
  successBody,
  validationBody,
} from "./harness";

let platform: HttpPlatform;
let call: Call;

beforeAll(async () => {
  platform = await startPlatform();
  call = platform.call;
});
afterAll(async () => {
  await platform.emu.stop();
});

const createOrg = (organization: Record<string, unknown>) =>
  call("POST", "/ng/api/organizations", { json: { organization } });

describe("organizations", () => {
  it("has the seeded organization default", async () => {
    const res = await call("GET", "/ng/api/organizations/default");
    expect(res.status).toBe(200);
    expect(res.body).toEqual(
      successBody({
        organization: {
          identifier: "default",
          name: "default",
          description: "Default Organization",
          tags: {},
        },
        createdAt: expect.any(Number),
        lastModifiedAt: expect.any(Number),
        harnessManaged: true,
      }),
    );
  });

  it("creates, reads, replaces and lists an organization", async () => {
    const created = await createOrg({ identifier: "acme", name: "Acme", tags: { tier: "gold" } });
    expect(created.status).toBe(200);
    expect(created.headers.get("etag")).toBe("W/0");
    expect(created.body.data).toEqual({
      organization: { identifier: "acme", name: "Acme", description: "", tags: { tier: "gold" } },
      createdAt: expect.any(Number),
      lastModifiedAt: expect.any(Number),
      harnessManaged: false,
    });
    const put = await call("PUT", "/ng/api/organizations/acme", {
      json: { organization: { identifier: "acme", name: "Acme Inc" } },
    });
    expect(put.status).toBe(200);
    expect(put.headers.get("etag")).toBe("W/1");
    expect(put.body.data.organization).toEqual({
      identifier: "acme",
      name: "Acme Inc",
      description: "",
      tags: {},
    });
    expect((await call("GET", "/ng/api/organizations/acme")).body.data).toEqual(put.body.data);
    const list = await call("GET", "/ng/api/organizations", { query: { searchTerm: "acme" } });
    expect(
      list.body.data.content.map((o: { organization: { identifier: string } }) => o.organization.identifier),
    ).toEqual(["acme"]);
  });

  it("refuses a duplicate, a bad body and a missing organization", async () => {
    await createOrg({ identifier: "twin", name: "Twin" });
    const dup = await createOrg({ identifier: "twin", name: "Twin" });
    expect(dup.status).toBe(400);
    expect(dup.body).toEqual(
      errorBody("DUPLICATE_FIELD", "An organization with identifier [twin] is already present"),
    );
    const bad = await createOrg({ identifier: "9", name: "" });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual(
      validationBody([
        [
          "organization.identifier",
          "identifier can be 128 characters long and can only contain alphanumeric, underscore and $ characters, and not start with a number or $",
        ],
        ["organization.name", "name cannot be empty."],
        [
          "organization.name",
          "name can only contain alphanumeric, space, hyphen, underscore, dot and slash characters.",
        ],
      ]),
    );
    const missing = await call("GET", "/ng/api/organizations/nowhere");
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual(
      errorBody("ENTITY_NOT_FOUND", "Organization with identifier [nowhere] not found"),
    );
    const putMissing = await call("PUT", "/ng/api/organizations/nowhere", {
      json: { organization: { identifier: "nowhere", name: "n" } },
    });
    expect(putMissing.status).toBe(400);
    expect(putMissing.body).toEqual(
      errorBody("INVALID_REQUEST", "Organization with identifier [nowhere] not found"),
    );
  });

  it("refuses to delete default", async () => {
    const res = await call("DELETE", "/ng/api/organizations/default");
    expect(res.status).toBe(400);
    expect(res.body).toEqual(
      errorBody("INVALID_REQUEST", "Delete operation not supported for Default Organization"),
    );
  });

  it("holds projects, connectors and pipelines, and deleting it removes them", async () => {
    await createOrg({ identifier: "labs", name: "Labs" });
    const project = await call("POST", "/ng/api/projects", {
      query: { orgIdentifier: "labs" },
      json: { project: { orgIdentifier: "labs", identifier: "lab", name: "Lab" } },
    });
    expect(project.status).toBe(200);
    expect(project.body.data.project.orgIdentifier).toBe("labs");
    expect((await call("GET", "/ng/api/projects/lab")).status).toBe(404);
    expect((await call("GET", "/ng/api/projects/lab", { query: { orgIdentifier: "labs" } })).status).toBe(
      200,
    );
    expect(
      (await call("POST", "/ng/api/connectors", { json: dockerConnector("org_reg", { org: "labs" }) }))
        .status,
    ).toBe(200);
    const scope = { orgIdentifier: "labs", projectIdentifier: "lab" };
    expect(
      (
        await call("POST", "/pipeline/api/pipelines/v2", {
          yaml: simplePipeline("p", "lab", "labs"),
          query: scope,
        })
      ).status,
    ).toBe(200);

    const res = await call("DELETE", "/ng/api/organizations/labs");
    expect(res.status).toBe(200);
    expect(res.body).toEqual(successBody(true));
    expect((await call("GET", "/ng/api/organizations/labs")).status).toBe(404);
    expect((await call("GET", "/ng/api/projects/lab", { query: { orgIdentifier: "labs" } })).status).toBe(
      404,
    );
    expect(
      (await call("GET", "/ng/api/connectors/org_reg", { query: { orgIdentifier: "labs" } })).status,
    ).toBe(400);
    expect((await call("GET", "/pipeline/api/pipelines/p", { query: scope })).status).toBe(404);
    const again = await call("DELETE", "/ng/api/organizations/labs");
    expect(again.status).toBe(404);
    expect(again.body).toEqual(
      errorBody(
        "ENTITY_NOT_FOUND",
        "Organization with identifier [labs] does not exist in the specified scope",
      ),
    );
  });

  it("lets a project-restricted key read its organization but not others", async () => {
    await platform.emu.addKey({ key: "pat.org.reader.key", type: "platform", projects: ["acme/app"] });
    expect((await call("GET", "/ng/api/organizations/acme", { key: "pat.org.reader.key" })).status).toBe(200);
    const other = await call("GET", "/ng/api/organizations/default", { key: "pat.org.reader.key" });
    expect(other.status).toBe(403);
    expect(other.body).toEqual(
      errorBody(
        "NG_ACCESS_DENIED",
        "Missing permission core_organization_view on organization with identifier default",
      ),
    );
    const list = await call("GET", "/ng/api/organizations", { key: "pat.org.reader.key" });
    expect(
      list.body.data.content.map((o: { organization: { identifier: string } }) => o.organization.identifier),
    ).toEqual(["acme"]);
  });
});
