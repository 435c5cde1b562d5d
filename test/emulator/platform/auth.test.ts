/**
 * Authentication and authorization of the platform API (spec §5, §7; ref §2) over HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Call,
  dockerConnector,
  errorBody,
  type HttpPlatform,
  simplePipeline,
  startPlatform,
  validationBody,
} from "./harness";

let platform: HttpPlatform;
let call: Call;

const PROJECT_KEY = "pat.restricted.project.key";
const BARE_PROJECT_KEY = "pat.restricted.bare.key";
const ORG_KEY = "pat.restricted.org.key";
const OTHER_ORG_KEY = "pat.restricted.other.org";

beforeAll(async () => {
  platform = await startPlatform({
    keys: [
      { key: PROJECT_KEY, type: "platform", projects: ["default/alpha"] },
      { key: BARE_PROJECT_KEY, type: "platform", projects: ["ALPHA"] },
      { key: ORG_KEY, type: "platform", organizations: ["default"] },
      { key: OTHER_ORG_KEY, type: "platform", organizations: ["elsewhere"] },
    ],
  });
  call = platform.call;
  for (const identifier of ["alpha", "beta"]) {
    expect(
      (await call("POST", "/ng/api/projects", { json: { project: { identifier, name: identifier } } }))
        .status,
    ).toBe(200);
    const pipe = await call("POST", "/pipeline/api/pipelines/v2", {
      yaml: simplePipeline("pipe", identifier),
      query: { orgIdentifier: "default", projectIdentifier: identifier },
    });
    expect(pipe.status).toBe(200);
  }
});
afterAll(async () => {
  await platform.emu.stop();
});

const ENDPOINTS: [string, string][] = [
  ["POST", "/ng/api/projects"],
  ["GET", "/ng/api/projects"],
  ["GET", "/ng/api/projects/alpha"],
  ["PUT", "/ng/api/projects/alpha"],
  ["DELETE", "/ng/api/projects/alpha"],
  ["POST", "/ng/api/connectors"],
  ["PUT", "/ng/api/connectors"],
  ["GET", "/ng/api/connectors"],
  ["GET", "/ng/api/connectors/c"],
  ["DELETE", "/ng/api/connectors/c"],
  ["POST", "/pipeline/api/pipelines/v2"],
  ["PUT", "/pipeline/api/pipelines/v2/pipe"],
  ["GET", "/pipeline/api/pipelines/pipe"],
  ["DELETE", "/pipeline/api/pipelines/pipe"],
  ["GET", "/ng/api/unknown"],
];

describe("x-api-key", () => {
  it.each(ENDPOINTS)("%s %s without a key answers 401 INVALID_TOKEN", async (method, path) => {
    const res = await call(method, path, {
      key: null,
      ...(method === "GET" || method === "DELETE" ? {} : { json: {} }),
    });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(errorBody("INVALID_TOKEN", "Token is not valid."));
  });

  it("refuses an unknown key, and admin and SDK keys, with 401", async () => {
    for (const key of ["pat.nobody.x.y", platform.emu.adminKey, platform.emu.sdkKey]) {
      const res = await call("GET", "/ng/api/projects/alpha", { key });
      expect(res.status).toBe(401);
      expect(res.body).toEqual(errorBody("INVALID_TOKEN", "Token is not valid."));
    }
  });

  it("accepts a platform key added at run time", async () => {
    await platform.emu.addKey({ key: "pat.later.added.key", type: "platform" });
    expect((await call("GET", "/ng/api/projects/alpha", { key: "pat.later.added.key" })).status).toBe(200);
  });
});

describe("accountIdentifier", () => {
  it("is required on every request", async () => {
    const res = await call("GET", "/ng/api/projects/alpha", { account: false });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(validationBody([["accountIdentifier", "must not be null"]]));
  });

  it("must name the emulator's account: another one answers 403 NG_ACCESS_DENIED", async () => {
    const res = await call("GET", "/ng/api/projects/alpha", { account: "someone_else" });
    expect(res.status).toBe(403);
    expect(res.body).toEqual(
      errorBody("NG_ACCESS_DENIED", "Missing permission to access account [someone_else]"),
    );
  });

  it("is checked after the key: no key and a wrong account still answers 401", async () => {
    const res = await call("GET", "/ng/api/projects/alpha", { account: "someone_else", key: null });
    expect(res.status).toBe(401);
  });
});

describe("keys restricted to projects and organizations", () => {
  it("lets a project key work in its project only", async () => {
    expect((await call("GET", "/ng/api/projects/alpha", { key: PROJECT_KEY })).status).toBe(200);
    const beta = await call("GET", "/ng/api/projects/beta", { key: PROJECT_KEY });
    expect(beta.status).toBe(403);
    expect(beta.body).toEqual(
      errorBody("NG_ACCESS_DENIED", "Missing permission core_project_view on project with identifier beta"),
    );
    const put = await call("PUT", "/ng/api/projects/beta", {
      key: PROJECT_KEY,
      json: { project: { identifier: "beta", name: "b" } },
    });
    expect(put.body).toEqual(
      errorBody("NG_ACCESS_DENIED", "Missing permission core_project_edit on project with identifier beta"),
    );
    const del = await call("DELETE", "/ng/api/projects/beta", { key: PROJECT_KEY });
    expect(del.body).toEqual(
      errorBody("NG_ACCESS_DENIED", "Missing permission core_project_delete on project with identifier beta"),
    );
    const created = await call("POST", "/ng/api/projects", {
      key: PROJECT_KEY,
      json: { project: { identifier: "gamma", name: "g" } },
    });
    expect(created.status).toBe(403);
    expect(created.body).toEqual(
      errorBody("NG_ACCESS_DENIED", "Missing permission core_project_create on project"),
    );
  });

  it("checks access before existence, so a restricted key learns nothing about other projects", async () => {
    const res = await call("GET", "/ng/api/projects/no_such_project", { key: PROJECT_KEY });
    expect(res.status).toBe(403);
  });

  it("lists only the projects a restricted key may see", async () => {
    const res = await call("GET", "/ng/api/projects", { key: PROJECT_KEY });
    expect(res.status).toBe(200);
    expect(
      res.body.data.content.map((p: { project: { identifier: string } }) => p.project.identifier),
    ).toEqual(["alpha"]);
    expect(res.body.data.totalItems).toBe(1);
  });

  it("matches a bare project entry in any organization, case-insensitively", async () => {
    expect((await call("GET", "/ng/api/projects/alpha", { key: BARE_PROJECT_KEY })).status).toBe(200);
    expect((await call("GET", "/ng/api/projects/beta", { key: BARE_PROJECT_KEY })).status).toBe(403);
  });

  it("keeps a project key out of account- and organization-level connectors", async () => {
    const account = await call("POST", "/ng/api/connectors", {
      key: PROJECT_KEY,
      json: dockerConnector("acct"),
    });
    expect(account.status).toBe(403);
    expect(account.body).toEqual(
      errorBody("NG_ACCESS_DENIED", "Missing permission core_connector_edit on connector"),
    );
    const org = await call("GET", "/ng/api/connectors/x", {
      key: PROJECT_KEY,
      query: { orgIdentifier: "default" },
    });
    expect(org.body).toEqual(
      errorBody("NG_ACCESS_DENIED", "Missing permission core_connector_view on connector with identifier x"),
    );
    const inProject = await call("POST", "/ng/api/connectors", {
      key: PROJECT_KEY,
      json: dockerConnector("mine", { org: "default", project: "alpha" }),
    });
    expect(inProject.status).toBe(200);
    const del = await call("DELETE", "/ng/api/connectors/mine", {
      key: PROJECT_KEY,
      query: { orgIdentifier: "default", projectIdentifier: "beta" },
    });
    expect(del.body).toEqual(
      errorBody(
        "NG_ACCESS_DENIED",
        "Missing permission core_connector_delete on connector with identifier mine",
      ),
    );
  });

  it("keeps a project key out of another project's pipelines", async () => {
    const beta = { orgIdentifier: "default", projectIdentifier: "beta" };
    const read = await call("GET", "/pipeline/api/pipelines/pipe", { key: PROJECT_KEY, query: beta });
    expect(read.status).toBe(403);
    expect(read.body).toEqual(
      errorBody("NG_ACCESS_DENIED", "Missing permission core_pipeline_view on pipeline with identifier pipe"),
    );
    const write = await call("POST", "/pipeline/api/pipelines/v2", {
      key: PROJECT_KEY,
      query: beta,
      yaml: simplePipeline("p2", "beta"),
    });
    expect(write.body).toEqual(
      errorBody("NG_ACCESS_DENIED", "Missing permission core_pipeline_edit on pipeline"),
    );
    const ok = await call("GET", "/pipeline/api/pipelines/pipe", {
      key: PROJECT_KEY,
      query: { orgIdentifier: "default", projectIdentifier: "alpha" },
    });
    expect(ok.status).toBe(200);
  });

  it("lets an organization key work anywhere in its organization but not at account level", async () => {
    expect((await call("GET", "/ng/api/projects/beta", { key: ORG_KEY })).status).toBe(200);
    expect(
      (
        await call("POST", "/ng/api/connectors", {
          key: ORG_KEY,
          json: dockerConnector("org_level", { org: "default" }),
        })
      ).status,
    ).toBe(200);
    expect(
      (await call("POST", "/ng/api/connectors", { key: ORG_KEY, json: dockerConnector("acct_level") }))
        .status,
    ).toBe(403);
  });

  it("refuses a key of another organization everywhere in default", async () => {
    expect((await call("GET", "/ng/api/projects/alpha", { key: OTHER_ORG_KEY })).status).toBe(403);
    const list = await call("GET", "/ng/api/projects", { key: OTHER_ORG_KEY });
    expect(list.status).toBe(200);
    expect(list.body.data.content).toEqual([]);
  });
});

describe("cross-origin requests (spec §5.5)", () => {
  it("answers a preflight without a key, and still requires the key on the request itself", async () => {
    const res = await fetch(
      `${platform.emu.url}/ng/api/projects/alpha?accountIdentifier=${platform.emu.accountId}`,
      {
        method: "OPTIONS",
        headers: {
          origin: "https://ui.example.test",
          "access-control-request-method": "GET",
          "access-control-request-headers": "x-api-key",
        },
      },
    );
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("access-control-allow-headers")).toBe(
      "x-api-key,content-type,if-match,if-none-match",
    );
    const real = await call("GET", "/ng/api/projects/alpha", {
      key: null,
      headers: { origin: "https://ui.example.test" },
    });
    expect(real.status).toBe(401);
    expect(real.headers.get("access-control-allow-origin")).toBe("*");
  });
});
