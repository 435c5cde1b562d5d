import { describe, expect, it } from "vitest";
import { connectorNoAnonymousProduction } from "../../policy/connectors";
import { CONNECTOR_TYPE, PROJECT_TYPE } from "../../provider/types";
import { checkedResource, runStackPolicy, stackUrn } from "./util";

/** A Project as a program declares it (provider/platform/project.ts); `org` is the provider's default when left out. */
const project = (identifier: string, tags: Record<string, string>, org?: string) =>
  checkedResource(PROJECT_TYPE, { ...(org ? { org } : {}), identifier, name: identifier, tags });
/** A Connector as a program declares it (provider/platform/connector.ts). */
const connector = (inputs: Record<string, unknown>) =>
  checkedResource(CONNECTOR_TYPE, { name: "Registry", ...inputs }, "conn");
/** A typed registry spec; without `auth` the provider's check makes it Anonymous. */
const docker = (auth?: object) => ({
  url: "https://registry.hub.docker.com/v2/",
  providerType: "DockerHub",
  ...(auth ? { auth } : {}),
});

describe("connector-no-anonymous-production", () => {
  it("reports an anonymous registry in a project tagged env: production (auth defaults to Anonymous)", async () => {
    const reports = await runStackPolicy(
      connectorNoAnonymousProduction,
      await Promise.all([
        project("payments", { env: "Production" }),
        connector({ org: "default", project: "payments", identifier: "dockerhub", dockerRegistry: docker() }),
      ]),
    );
    expect(reports).toEqual([
      {
        message:
          'connector "dockerhub" in project "payments" uses anonymous registry auth, and the project is production (tagged env: production): use UsernamePassword auth with a passwordRef',
        urn: stackUrn(CONNECTOR_TYPE, "conn"),
      },
    ]);
  });

  it("reads the typed kinds too: an anonymous Helm repository in a production project is reported", async () => {
    const reports = await runStackPolicy(
      connectorNoAnonymousProduction,
      await Promise.all([
        project("payments", { env: "production" }),
        connector({
          org: "default",
          project: "payments",
          identifier: "charts",
          httpHelm: { url: "https://charts.example.test", auth: { type: "Anonymous" } },
        }),
        connector({
          org: "default",
          project: "payments",
          identifier: "charts_private",
          httpHelm: {
            url: "https://charts.example.test",
            auth: { type: "UsernamePassword", username: "ci", passwordRef: "account.charts_pw" },
          },
        }),
      ]),
    );
    expect(reports.map((r) => r.message)).toEqual([
      'connector "charts" in project "payments" uses anonymous registry auth, and the project is production (tagged env: production): use UsernamePassword auth with a passwordRef',
    ]);
  });

  it("reports a generic connector of a project listed in the config, by the auth of the spec it sends", async () => {
    const reports = await runStackPolicy(
      connectorNoAnonymousProduction,
      [
        await connector({
          org: "retail",
          project: "shop",
          identifier: "quay",
          generic: {
            type: "DockerRegistry",
            spec: {
              dockerRegistryUrl: "https://quay.io",
              providerType: "Other",
              auth: { type: "Anonymous" },
            },
          },
        }),
      ],
      { productionProjects: ["retail/shop"] },
    );
    expect(reports.map((r) => r.message)).toEqual([
      'connector "quay" in project "shop" uses anonymous registry auth, and the project is production (listed in productionProjects): use UsernamePassword auth with a passwordRef',
    ]);
  });

  it.each<[string, () => ReturnType<typeof connector>[], object]>([
    [
      "authenticated access in production",
      () => [
        project("payments", { env: "production" }),
        connector({
          org: "default",
          project: "payments",
          identifier: "c",
          dockerRegistry: docker({ type: "UsernamePassword", username: "ci", passwordRef: "account.pw" }),
        }),
      ],
      {},
    ],
    [
      "anonymous access in a project not tagged production",
      () => [
        project("sandbox", { env: "dev" }),
        connector({ org: "default", project: "sandbox", identifier: "c", dockerRegistry: docker() }),
      ],
      {},
    ],
    [
      "anonymous access at account level",
      () => [connector({ identifier: "c", dockerRegistry: docker() })],
      { productionProjects: ["payments"] },
    ],
    [
      "a project of another organization",
      () => [
        project("payments", { env: "production" }, "other"),
        connector({ org: "default", project: "payments", identifier: "c", dockerRegistry: docker() }),
      ],
      {},
    ],
    [
      "no production tags configured",
      () => [
        project("payments", { env: "production" }),
        connector({ org: "default", project: "payments", identifier: "c", dockerRegistry: docker() }),
      ],
      { productionProjectTags: {} },
    ],
    [
      "a generic connector with other auth",
      () => [
        project("payments", { env: "production" }),
        connector({
          org: "default",
          project: "payments",
          identifier: "c",
          generic: { type: "Git", spec: { auth: { type: "Http" } } },
        }),
      ],
      {},
    ],
  ])("passes %s", async (_, resources, config) => {
    expect(
      await runStackPolicy(connectorNoAnonymousProduction, await Promise.all(resources()), config),
    ).toEqual([]);
  });
});
