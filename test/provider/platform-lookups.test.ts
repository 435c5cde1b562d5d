/**
 * The program-side platform lookups against the emulator: found objects, not-found errors, bad
 * arguments refused before any request, and credentials from options, environment or client.
 */
import * as pulumi from "@pulumi/pulumi";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Emulator, startEmulator } from "../../emulator";
import { configureProvider, resetProvider } from "../../provider/core/config";
import { renderPipelineYaml, validatePipelineModel } from "../../provider/pipeline-model";
import {
  getConnector,
  getConnectorOutput,
  getOrganization,
  getOrganizationOutput,
  getPipeline,
  getPipelineOutput,
  getProject,
  getProjectOutput,
  type PlatformLookupOptions,
} from "../../provider/platform-lookups";
import { AdminClient, PlatformClient } from "../../sdk";
import { deployCheckout } from "./fixtures/pipelines";

let emu: Emulator;
let client: PlatformClient;
let options: PlatformLookupOptions;
const scope = { org: "default", project: "payments" };

beforeAll(async () => {
  resetProvider();
  emu = await startEmulator({ port: 0 });
  client = new PlatformClient({ baseUrl: emu.url, apiKey: emu.platformKey, accountId: emu.accountId });
  options = { platformApiUrl: emu.url, platformApiKey: emu.platformKey, accountId: emu.accountId };
  await client.projects.create(
    {
      orgIdentifier: "default",
      identifier: "payments",
      name: "Payments",
      color: "#1F8A70",
      modules: [],
      description: "Payment services",
      tags: { team: "payments" },
    },
    { org: "default" },
  );
  await client.connectors.create({
    orgIdentifier: "default",
    projectIdentifier: "payments",
    identifier: "dockerhub",
    name: "Docker Hub",
    description: "",
    tags: {},
    type: "DockerRegistry",
    spec: {
      dockerRegistryUrl: "https://index.docker.io/v2/",
      providerType: "DockerHub",
      auth: { type: "Anonymous" },
      delegateSelectors: [],
      executeOnDelegate: true,
    },
  });
  await client.connectors.create({
    identifier: "repo",
    name: "Repo",
    description: "",
    tags: {},
    type: "Bitbucket",
    spec: { url: "https://bitbucket.example.test/acme" },
  });
  await client.pipelines.create(renderPipelineYaml(deployCheckout, scope), scope);
});

afterAll(async () => {
  await emu?.stop();
});

describe("getProject", () => {
  it("finds a project by identifier (organization default)", async () => {
    expect(await getProject({ identifier: "payments" }, options)).toEqual({
      org: "default",
      identifier: "payments",
      name: "Payments",
      color: "#1F8A70",
      modules: expect.any(Array),
      description: "Payment services",
      tags: { team: "payments" },
      createdAt: expect.any(Number),
      lastModifiedAt: expect.any(Number),
    });
  });

  it("names the project's FME workspace where the admin API's settings are set, as a Project does", async () => {
    const admin = new AdminClient({ baseUrl: emu.url, apiKey: emu.adminKey });
    const ws = await admin.workspaces.getByHarnessProject("default", "payments");
    const config: Record<string, string> = {
      "flagstack:adminApiUrl": emu.url,
      "flagstack:adminApiKey": emu.adminKey,
    };
    resetProvider();
    configureProvider({ get: (k) => config[k] });
    try {
      expect(ws?.name).toBe("Payments");
      expect((await getProject({ identifier: "payments" }, options)).workspaceId).toBe(ws?.id);
    } finally {
      resetProvider();
    }
  });

  it("fails for a project that does not exist", async () => {
    await expect(getProject({ identifier: "nope" }, options)).rejects.toMatchObject({
      kind: "not-found",
      status: 404,
    });
  });

  it("refuses a bad identifier before any request", async () => {
    emu.resetRequests();
    await expect(getProject({ identifier: "no-pe" }, options)).rejects.toThrow(
      "getProject: identifier: identifier can be 128 characters long",
    );
    expect(emu.requests()).toEqual([]);
  });

  it("reads credentials from the environment when no option is given", async () => {
    const saved = { ...process.env };
    process.env.FLAGSTACK_PLATFORM_API_URL = emu.url;
    process.env.FLAGSTACK_PLATFORM_API_KEY = emu.platformKey;
    process.env.FLAGSTACK_ACCOUNT_ID = emu.accountId;
    try {
      expect((await getProject({ identifier: "payments" })).name).toBe("Payments");
    } finally {
      for (const k of ["FLAGSTACK_PLATFORM_API_URL", "FLAGSTACK_PLATFORM_API_KEY", "FLAGSTACK_ACCOUNT_ID"]) {
        if (saved[k] === undefined) delete process.env[k];
        else process.env[k] = saved[k];
      }
    }
  });

  it("says how to configure missing credentials", async () => {
    await expect(getProject({ identifier: "payments" }, { platformApiUrl: emu.url })).rejects.toThrow(
      "flagstack: no platform API key configured: run `pulumi config set flagstack:platformApiKey --secret <value>` or set FLAGSTACK_PLATFORM_API_KEY",
    );
  });

  it("has an Output form", async () => {
    const out = getProjectOutput({ identifier: pulumi.output("payments") }, options);
    const name = await new Promise((resolve) => out.apply((p) => resolve(p.name)));
    expect(name).toBe("Payments");
  });
});

describe("getConnector", () => {
  it("finds a project-level registry connector and reads its spec into the typed form", async () => {
    expect(
      await getConnector({ identifier: "dockerhub", org: "default", project: "payments" }, options),
    ).toMatchObject({
      org: "default",
      project: "payments",
      identifier: "dockerhub",
      name: "Docker Hub",
      type: "DockerRegistry",
      dockerRegistry: {
        url: "https://index.docker.io/v2/",
        providerType: "DockerHub",
        auth: { type: "Anonymous" },
        delegateSelectors: [],
        executeOnDelegate: true,
      },
    });
  });

  it("finds an account-level connector of another type as generic", async () => {
    const c = await getConnector({ identifier: "repo" }, options);
    expect(c).toMatchObject({
      identifier: "repo",
      type: "Bitbucket",
      generic: { type: "Bitbucket", spec: { url: "https://bitbucket.example.test/acme" } },
    });
    expect(c).not.toHaveProperty("org");
    expect(c).not.toHaveProperty("dockerRegistry");
  });

  it("reads a Kubernetes cluster connector into the typed kubernetes form", async () => {
    await client.connectors.create({
      orgIdentifier: "default",
      identifier: "k8s_staging",
      name: "Staging cluster",
      type: "K8sCluster",
      spec: {
        credential: {
          type: "ManualConfig",
          spec: {
            masterUrl: "https://k8s.example.test:6443",
            auth: { type: "ServiceAccount", spec: { serviceAccountTokenRef: "org.k8s_sa_token" } },
          },
        },
        delegateSelectors: ["staging"],
      },
    });
    const c = await getConnector({ identifier: "k8s_staging", org: "default" }, options);
    expect(c).toMatchObject({
      type: "K8sCluster",
      kubernetes: {
        credential: {
          type: "ManualConfig",
          masterUrl: "https://k8s.example.test:6443",
          serviceAccountTokenRef: "org.k8s_sa_token",
        },
        delegateSelectors: ["staging"],
      },
    });
    expect(c).not.toHaveProperty("generic");
  });

  it("finds an organization by identifier; an unknown one is not found", async () => {
    await client.organizations.create({ identifier: "acme", name: "Acme", tags: { tier: "gold" } });
    expect(await getOrganization({ identifier: "acme" }, options)).toMatchObject({
      identifier: "acme",
      name: "Acme",
      description: "",
      tags: { tier: "gold" },
      version: 0,
    });
    expect(
      await new Promise((resolve) =>
        getOrganizationOutput({ identifier: "acme" }, options).apply((o) => resolve(o.name)),
      ),
    ).toBe("Acme");
    await expect(getOrganization({ identifier: "nobody" }, options)).rejects.toMatchObject({
      kind: "not-found",
    });
    await expect(getOrganization({ identifier: "not-an-id" }, options)).rejects.toThrow("identifier");
  });

  it("fails for a connector that is not in the scope (the service's 400 RESOURCE_NOT_FOUND_EXCEPTION)", async () => {
    await expect(getConnector({ identifier: "dockerhub" }, options)).rejects.toMatchObject({
      kind: "not-found",
      status: 400,
      code: "RESOURCE_NOT_FOUND_EXCEPTION",
    });
  });

  it("refuses a project without an organization before any request", async () => {
    emu.resetRequests();
    await expect(getConnector({ identifier: "dockerhub", project: "payments" }, options)).rejects.toThrow(
      "getConnector: org: a project-level connector needs org as well as project",
    );
    expect(emu.requests()).toEqual([]);
  });

  it("has an Output form", async () => {
    const out = getConnectorOutput({ identifier: "repo" }, options);
    expect(await new Promise((resolve) => out.apply((c) => resolve(c.type)))).toBe("Bitbucket");
  });
});

describe("getPipeline", () => {
  it("finds a pipeline and reads it into the typed model", async () => {
    const p = await getPipeline({ identifier: "deploy_checkout", project: "payments" }, options);
    expect(p).toMatchObject({
      id: "default/payments/deploy_checkout",
      org: "default",
      project: "payments",
      identifier: "deploy_checkout",
      name: "Deploy checkout",
      yaml: renderPipelineYaml(deployCheckout, scope),
    });
    expect(p.model).toEqual(validatePipelineModel(deployCheckout));
  });

  it("gives no model for YAML the model cannot represent", async () => {
    const yaml = renderPipelineYaml({ ...deployCheckout, identifier: "with_extras" }, scope).replace(
      "  tags:\n",
      "  notificationRules: []\n  tags:\n",
    );
    await client.pipelines.create(yaml, scope);
    const p = await getPipeline({ identifier: "with_extras", project: "payments" }, options);
    expect(p.yaml).toBe(yaml);
    expect(p.model).toBeUndefined();
  });

  it("fails for a pipeline that does not exist", async () => {
    await expect(getPipeline({ identifier: "nope", project: "payments" }, options)).rejects.toMatchObject({
      kind: "not-found",
      status: 404,
    });
  });

  it("refuses missing arguments before any request", async () => {
    emu.resetRequests();
    await expect(getPipeline({ identifier: "deploy_checkout" } as never, options)).rejects.toThrow(
      "getPipeline: project: identifier is required",
    );
    expect(emu.requests()).toEqual([]);
  });

  it("has an Output form", async () => {
    const out = getPipelineOutput(
      { identifier: "deploy_checkout", project: pulumi.output("payments") },
      options,
    );
    expect(await new Promise((resolve) => out.apply((p) => resolve(p.name)))).toBe("Deploy checkout");
  });
});
