import { describe, expect, it } from "vitest";
import * as sdk from "../../sdk";

describe("sdk barrel", () => {
  it("exports the clients, the typed errors, the schemas and the core", () => {
    for (const name of [
      "AdminClient",
      "EventsClient",
      "PlatformClient",
      "ApiError",
      "NotFoundError",
      "ConflictError",
      "RateLimitError",
      "ValidationError",
      "NetworkError",
      "ConfigurationError",
      "isNotFound",
      "isConflict",
      "isOutcomeUnknown",
      "Flag",
      "Definition",
      "DefinitionBody",
      "EventRecord",
      "ProjectBody",
      "ConnectorBody",
      "HttpCore",
      "route",
      "closeSharedPools",
      "adminEndpoints",
      "platformEndpoints",
      "eventsEndpoints",
    ]) {
      expect(sdk, name).toHaveProperty(name);
    }
  });

  it("the admin client has the contract's namespaces and methods", () => {
    const admin = new sdk.AdminClient({ baseUrl: "http://127.0.0.1:1", apiKey: "k", env: {} });
    const surface = {
      workspaces: ["list", "create", "getByName"],
      environments: ["list", "create", "find"],
      trafficTypes: ["list", "find"],
      rolloutStatuses: ["list", "find"],
      flags: ["create", "get", "list", "patch", "delete", "setDescription", "setTags", "setRolloutStatus"],
      definitions: ["get", "list", "create", "put", "patch", "delete", "kill", "restore"],
      users: ["invite", "list", "get", "put", "patch", "delete", "addToGroup", "removeFromGroup"],
      groups: ["list", "get", "getByName", "create", "put", "delete"],
    } as const;
    for (const [ns, methods] of Object.entries(surface)) {
      for (const m of methods)
        expect(
          typeof (admin as unknown as Record<string, Record<string, unknown>>)[ns]![m],
          `${ns}.${m}`,
        ).toBe("function");
    }
  });

  it("the platform client has create/get/update/delete for projects, connectors and pipelines", () => {
    const p = new sdk.PlatformClient({ baseUrl: "http://127.0.0.1:1", apiKey: "k", accountId: "a", env: {} });
    for (const ns of ["projects", "connectors", "pipelines"] as const) {
      for (const m of ["create", "get", "update", "delete"])
        expect(typeof (p[ns] as unknown as Record<string, unknown>)[m], `${ns}.${m}`).toBe("function");
    }
  });
});
