/**
 * The gRPC definitions the Terraform/OpenTofu door serves, written for this package from the
 * documented wire format (names, field numbers and types only; what flagstack does not use is left
 * out, and a protobuf reader ignores fields it does not know):
 * - plugin protocol 6 (`tfplugin6`): Terraform's and OpenTofu's `docs/plugin-protocol/tfplugin6.*.proto`
 *   (the service `tfplugin6.Provider`, messages `DynamicValue`, `Diagnostic`, `AttributePath`,
 *   `Schema`, and each RPC's `Request`/`Response`); the values in a `DynamicValue` are described in
 *   `docs/plugin-protocol/object-wire-format.md` (`./msgpack.ts`, `./values.ts`);
 * - go-plugin's services (github.com/hashicorp/go-plugin `internal/plugin/grpc_controller.proto`:
 *   `plugin.GRPCController.Shutdown`), and the standard gRPC health service
 *   (`grpc.health.v1.Health.Check`, which go-plugin's client pings with the service name `plugin`).
 *
 * An RPC of the protocol that is not declared here is answered UNIMPLEMENTED by grpc-js, which the
 * client accepts for the optional ones (resource identity, functions, ephemeral resources: OpenTofu
 * `internal/plugin6/grpc_provider.go`).
 * @module
 */
import type * as grpc from "@grpc/grpc-js";

/** The protocol definitions, in protobuf's text form. */
export const PROTO = `
syntax = "proto3";
package tfplugin6;

message DynamicValue {
  bytes msgpack = 1;
  bytes json = 2;
}
message Diagnostic {
  enum Severity { INVALID = 0; ERROR = 1; WARNING = 2; }
  Severity severity = 1;
  string summary = 2;
  string detail = 3;
  AttributePath attribute = 4;
}
message AttributePath {
  message Step {
    oneof selector {
      string attribute_name = 1;
      string element_key_string = 2;
      int64 element_key_int = 3;
    }
  }
  repeated Step steps = 1;
}
message RawState {
  bytes json = 1;
  map<string, string> flatmap = 2;
}
enum StringKind { PLAIN = 0; MARKDOWN = 1; }
message Schema {
  message Block {
    int64 version = 1;
    repeated Attribute attributes = 2;
    string description = 4;
    StringKind description_kind = 5;
    bool deprecated = 6;
  }
  message Attribute {
    string name = 1;
    bytes type = 2;
    Object nested_type = 10;
    string description = 3;
    bool required = 4;
    bool optional = 5;
    bool computed = 6;
    bool sensitive = 7;
    StringKind description_kind = 8;
    bool deprecated = 9;
  }
  message Object {
    enum NestingMode { INVALID = 0; SINGLE = 1; LIST = 2; SET = 3; MAP = 4; }
    repeated Attribute attributes = 1;
    NestingMode nesting = 3;
  }
  int64 version = 1;
  Block block = 2;
}
message ServerCapabilities {
  bool plan_destroy = 1;
  bool get_provider_schema_optional = 2;
  bool move_resource_state = 3;
}
message ClientCapabilities {
  bool deferral_allowed = 1;
  bool write_only_attributes_allowed = 2;
}

message GetMetadata {
  message Request {}
  message ResourceMetadata { string type_name = 1; }
  message DataSourceMetadata { string type_name = 1; }
  message Response {
    ServerCapabilities server_capabilities = 1;
    repeated Diagnostic diagnostics = 2;
    repeated DataSourceMetadata data_sources = 3;
    repeated ResourceMetadata resources = 4;
  }
}
message GetProviderSchema {
  message Request {}
  message Response {
    Schema provider = 1;
    map<string, Schema> resource_schemas = 2;
    map<string, Schema> data_source_schemas = 3;
    repeated Diagnostic diagnostics = 4;
    Schema provider_meta = 5;
    ServerCapabilities server_capabilities = 6;
  }
}
message ValidateProviderConfig {
  message Request { DynamicValue config = 1; }
  message Response { repeated Diagnostic diagnostics = 2; }
}
message UpgradeResourceState {
  message Request {
    string type_name = 1;
    int64 version = 2;
    RawState raw_state = 3;
  }
  message Response {
    DynamicValue upgraded_state = 1;
    repeated Diagnostic diagnostics = 2;
  }
}
message ValidateResourceConfig {
  message Request {
    string type_name = 1;
    DynamicValue config = 2;
    ClientCapabilities client_capabilities = 3;
  }
  message Response { repeated Diagnostic diagnostics = 1; }
}
message ValidateDataResourceConfig {
  message Request {
    string type_name = 1;
    DynamicValue config = 2;
  }
  message Response { repeated Diagnostic diagnostics = 1; }
}
message ConfigureProvider {
  message Request {
    string terraform_version = 1;
    DynamicValue config = 2;
    ClientCapabilities client_capabilities = 3;
  }
  message Response { repeated Diagnostic diagnostics = 1; }
}
message ReadResource {
  message Request {
    string type_name = 1;
    DynamicValue current_state = 2;
    bytes private = 3;
    DynamicValue provider_meta = 4;
    ClientCapabilities client_capabilities = 5;
  }
  message Response {
    DynamicValue new_state = 1;
    repeated Diagnostic diagnostics = 2;
    bytes private = 3;
  }
}
message PlanResourceChange {
  message Request {
    string type_name = 1;
    DynamicValue prior_state = 2;
    DynamicValue proposed_new_state = 3;
    DynamicValue config = 4;
    bytes prior_private = 5;
    DynamicValue provider_meta = 6;
    ClientCapabilities client_capabilities = 7;
  }
  message Response {
    DynamicValue planned_state = 1;
    repeated AttributePath requires_replace = 2;
    bytes planned_private = 3;
    repeated Diagnostic diagnostics = 4;
  }
}
message ApplyResourceChange {
  message Request {
    string type_name = 1;
    DynamicValue prior_state = 2;
    DynamicValue planned_state = 3;
    DynamicValue config = 4;
    bytes planned_private = 5;
    DynamicValue provider_meta = 6;
  }
  message Response {
    DynamicValue new_state = 1;
    bytes private = 2;
    repeated Diagnostic diagnostics = 3;
  }
}
message ImportResourceState {
  message Request {
    string type_name = 1;
    string id = 2;
    ClientCapabilities client_capabilities = 3;
  }
  message ImportedResource {
    string type_name = 1;
    DynamicValue state = 2;
    bytes private = 3;
  }
  message Response {
    repeated ImportedResource imported_resources = 1;
    repeated Diagnostic diagnostics = 2;
  }
}
message ReadDataSource {
  message Request {
    string type_name = 1;
    DynamicValue config = 2;
    DynamicValue provider_meta = 3;
    ClientCapabilities client_capabilities = 4;
  }
  message Response {
    DynamicValue state = 1;
    repeated Diagnostic diagnostics = 2;
  }
}
message StopProvider {
  message Request {}
  message Response { string Error = 1; }
}

service Provider {
  rpc GetMetadata(GetMetadata.Request) returns (GetMetadata.Response);
  rpc GetProviderSchema(GetProviderSchema.Request) returns (GetProviderSchema.Response);
  rpc ValidateProviderConfig(ValidateProviderConfig.Request) returns (ValidateProviderConfig.Response);
  rpc ValidateResourceConfig(ValidateResourceConfig.Request) returns (ValidateResourceConfig.Response);
  rpc ValidateDataResourceConfig(ValidateDataResourceConfig.Request) returns (ValidateDataResourceConfig.Response);
  rpc UpgradeResourceState(UpgradeResourceState.Request) returns (UpgradeResourceState.Response);
  rpc ConfigureProvider(ConfigureProvider.Request) returns (ConfigureProvider.Response);
  rpc ReadResource(ReadResource.Request) returns (ReadResource.Response);
  rpc PlanResourceChange(PlanResourceChange.Request) returns (PlanResourceChange.Response);
  rpc ApplyResourceChange(ApplyResourceChange.Request) returns (ApplyResourceChange.Response);
  rpc ImportResourceState(ImportResourceState.Request) returns (ImportResourceState.Response);
  rpc ReadDataSource(ReadDataSource.Request) returns (ReadDataSource.Response);
  rpc StopProvider(StopProvider.Request) returns (StopProvider.Response);
}
`;

/** go-plugin's controller and the gRPC health service, in protobuf's text form. */
export const PLUGIN_PROTO = `
syntax = "proto3";
package plugin;
message Empty {}
service GRPCController {
  rpc Shutdown(Empty) returns (Empty);
}
`;

export const HEALTH_PROTO = `
syntax = "proto3";
package grpc.health.v1;
message HealthCheckRequest { string service = 1; }
message HealthCheckResponse {
  enum ServingStatus { UNKNOWN = 0; SERVING = 1; NOT_SERVING = 2; SERVICE_UNKNOWN = 3; }
  ServingStatus status = 1;
}
service Health {
  rpc Check(HealthCheckRequest) returns (HealthCheckResponse);
}
`;

/** A loaded service: what `grpc.Server#addService` takes. */
export type ServiceDefinition = grpc.ServiceDefinition;

/** The three services, as grpc-js takes them. */
export interface Services {
  provider: ServiceDefinition;
  controller: ServiceDefinition;
  health: ServiceDefinition;
}

/** How a decoded message reads: plain objects, protobuf field names, numbers, defaults filled in. */
const READ = { longs: Number, enums: Number, defaults: true, oneofs: true } as const;

/**
 * Loads the definitions with protobufjs, the protobuf library `@grpc/proto-loader` is built on,
 * without proto-loader's descriptor step (about 0.4 s of a start-up that Terraform pays several
 * times per command). Messages decode to plain objects with the protobuf field names
 * (`type_name`, `prior_state`), bytes as `Buffer`, enums and 64-bit integers as numbers, unset
 * fields as their defaults (a message as `null`), so the dispatch reads no wrapper class;
 * responses are plain objects of the same shape.
 */
export function loadServices(): Services {
  // A direct dependency, the same copy `@grpc/proto-loader` uses (one version range); a plain
  // `require`, so that the provider binary's bundler carries it.
  const protobuf = require("protobufjs") as typeof import("protobufjs");
  const service = (text: string, name: string): ServiceDefinition => {
    const root = protobuf.parse(text, { keepCase: true }).root;
    const svc = root.lookupService(name);
    const definition: Record<string, ServiceDefinition[string]> = {};
    for (const method of svc.methodsArray) {
      method.resolve();
      const req = method.resolvedRequestType;
      const res = method.resolvedResponseType;
      if (!req || !res) throw new Error(`protocol: ${name}.${method.name} has unresolved types`);
      definition[method.name] = {
        path: `/${name}/${method.name}`,
        requestStream: false,
        responseStream: false,
        requestSerialize: (value: object) => Buffer.from(req.encode(req.fromObject(value)).finish()),
        requestDeserialize: (bytes: Buffer) => req.toObject(req.decode(bytes), READ),
        responseSerialize: (value: object) => Buffer.from(res.encode(res.fromObject(value)).finish()),
        responseDeserialize: (bytes: Buffer) => res.toObject(res.decode(bytes), READ),
      };
    }
    return definition as ServiceDefinition;
  };
  return {
    provider: service(PROTO, "tfplugin6.Provider"),
    controller: service(PLUGIN_PROTO, "plugin.GRPCController"),
    health: service(HEALTH_PROTO, "grpc.health.v1.Health"),
  };
}
